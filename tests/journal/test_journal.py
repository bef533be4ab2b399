"""The event journal: what it records, its segments, levels, readers and export."""

from __future__ import annotations

import json
import os
import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu import journal
from tpfemu.journal import SCHEMA, JournalError, SchemaMismatch
from tpfemu.journal.schema import payload_hash
from tpfemu.journal.writer import Journal
from tpfemu.mqi import CMQC
from tpfemu.qmgr.manager import QueueManager

IO = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE


def _open(system: tpfemu.System, queue: str = "APP.Q"):
    qm = pymqi.connect(system.name)
    return qm, pymqi.Queue(qm, queue, IO)


def _events(system: tpfemu.System, *kinds: str) -> list[journal.JournalEvent]:
    assert system.journal.flush(), "the journal did not flush"
    return list(journal.read_events(system.home, events=kinds or None))


# -- what is recorded ----------------------------------------------------------------------


def test_schema_round_trip_every_column(tmp_path):
    """Events emitted with every field set are read back with each column equal, from the
    segment and from its Parquet export, and the files carry SCHEMA and its version."""
    qmgr = QueueManager("RTQM", cpu="C").start()
    jr = Journal(qmgr, tmp_path / "j", level="payload").start()
    group = b"G" * 24
    emitted = [
        ("put", "Q.ONE", 1_700_000_000_000_001,
         dict(msg_id=b"M" * 24, correl_id=b"C" * 24, group_id=group, priority=7,
              persistent=True, expiry=300, length=4, uow=42, data=b"ABCD", msg_type=1,
              format=b"MQSTR   ", reply_to_q=b"REPLY.Q".ljust(48),
              reply_to_qmgr=b" " * 48)),
        ("get", "Q.ONE", 1_700_000_000_000_002,
         dict(msg_id=b"M" * 24, correl_id=b"C" * 24, priority=7, persistent=True,
              expires_us=1_700_000_000_000_002 + 250_000, length=4, uow=0, data=b"ABCD")),
        ("commit", "Q.ONE", 1_700_000_000_000_003, dict(uow=42, count=2)),
        ("trigger", "Q.TWO", 1_700_000_000_000_004,
         dict(trigtype="FIRST", initq="INIT.Q", process="")),
    ]
    for kind, queue, t, fields in emitted:
        qmgr.events.emit(kind, queue, t, **fields)
    jr.stop()
    qmgr.stop()

    table = journal.read_table(tmp_path / "j")
    assert table.schema.equals(SCHEMA)
    rows = table.to_pylist()
    assert [r["seq"] for r in rows] == [0, 1, 2, 3]
    put, get, commit, trigger = rows
    assert put == {
        "event_time_us": 1_700_000_000_000_001, "seq": 0, "cpu": "C", "qmgr": "RTQM",
        "queue": "Q.ONE", "event": "put", "msg_id": b"M" * 24, "correl_id": b"C" * 24,
        "group_id": group, "priority": 7, "persistent": True, "expiry": 300, "length": 4,
        "payload_hash": payload_hash(b"ABCD"), "payload": b"ABCD", "uow": 42, "ecb": None,
        "program": None, "detail": None, "msg_type": 1, "format": "MQSTR",
        "reply_to_q": "REPLY.Q", "reply_to_qmgr": None,
    }
    assert get["event"] == "get" and get["expiry"] == 3  # 0.25 s left, rounded up
    assert get["group_id"] is None and get["payload_hash"] == put["payload_hash"]
    assert get["uow"] == 0
    assert commit["msg_id"] is None and commit["priority"] is None
    assert commit["payload_hash"] is None and commit["length"] is None
    assert commit["uow"] == 42 and commit["detail"] == '{"count": 2}'
    assert trigger["queue"] == "Q.TWO"
    assert trigger["detail"] == '{"initq": "INIT.Q", "trigtype": "FIRST"}'  # "" left out

    (segment,) = journal.segments(tmp_path / "j")
    meta = pa.ipc.open_stream(pa.memory_map(str(segment))).schema.metadata
    assert meta[b"tpfemu.journal.version"] == b"4" and meta[b"tpfemu.journal.cpu"] == b"C"
    assert meta[b"tpfemu.journal.first_seq"] == b"0"

    (parquet,) = journal.to_parquet([tmp_path / "j"], tmp_path / "out")
    assert parquet.name == segment.stem + ".parquet"
    exported = pq.read_table(parquet)
    assert exported.schema.equals(SCHEMA)
    assert exported.to_pylist() == rows


def test_mqi_put_and_get_are_recorded_with_the_message_fields(start_system):
    """A put and a get through the MQI are journaled with the MsgId, CorrelId, priority,
    persistence, expiry, length, payload hash and unit of work of the message."""
    system = start_system()
    qm, q = _open(system)
    md = pymqi.MD(Priority=6, CorrelId=b"CORREL-1", Expiry=600,
                  Persistence=CMQC.MQPER_NOT_PERSISTENT)
    q.put(b"hello journal", md)
    got = q.get(None, pymqi.MD())
    assert got == b"hello journal"
    put, get = _events(system, "put", "get")
    assert put.event == "put" and get.event == "get"
    assert put.queue == get.queue == "APP.Q"
    assert put.cpu == "B" and put.qmgr == system.name
    assert put.msg_id == get.msg_id == bytes(md.MsgId)
    assert put.correl_id == get.correl_id == b"CORREL-1".ljust(24, b"\0")
    assert put.priority == get.priority == 6
    assert put.persistent is False and get.persistent is False
    assert put.expiry == 600 and 0 < get.expiry <= 600
    assert put.length == get.length == len(b"hello journal")
    assert put.payload_hash == get.payload_hash == payload_hash(b"hello journal")
    assert put.payload is None  # level "events"
    assert put.uow == 0
    assert put.seq < get.seq and put.event_time_us <= get.event_time_us
    q.close()
    qm.disconnect()


def test_browse_commit_and_backout_are_recorded(start_system):
    """A browse, a committed put and a backed-out put each leave their event, with the
    unit of work's id and message count."""
    system = start_system()
    qm, q = _open(system)
    q.put(b"one", pymqi.MD())
    q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    q.put(b"two", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    q.put(b"three", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.backout()
    events = _events(system, "put", "browse", "commit", "backout")
    assert [e.event for e in events] == ["put", "browse", "put", "commit", "put", "backout"]
    _, browse, two, commit, three, backout = events
    assert browse.payload_hash == payload_hash(b"one")
    assert two.uow != 0 and commit.uow == two.uow and commit.fields == {"count": 1}
    assert three.uow != 0 and backout.uow == three.uow and backout.fields == {"count": 1}
    q.close()
    qm.disconnect()


def test_expired_message_is_recorded_with_its_data(start_system):
    """A message discarded because it expired is journaled as ``expire`` with the
    discarded message's MsgId, length and payload."""
    system = start_system(journal="payload")
    qm, q = _open(system)
    md = pymqi.MD(Expiry=1)  # a tenth of a second
    q.put(b"short-lived", md)
    time.sleep(0.25)
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD())
    assert info.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    (expired,) = _events(system, "expire")
    assert expired.msg_id == bytes(md.MsgId)
    assert expired.payload == b"short-lived" and expired.length == len(b"short-lived")
    assert expired.payload_hash == payload_hash(b"short-lived")
    assert expired.expiry == 0
    q.close()
    qm.disconnect()


def test_ecb_id_and_program_of_the_calling_entry(start_system):
    """An MQI call made inside an entry records that ECB's id and program; one made
    outside any entry leaves both null."""
    system = start_system()
    done = threading.Event()

    def qzz1(ecb):
        conn = pymqi.connect(system.name)
        pymqi.Queue(conn, "APP.Q", CMQC.MQOO_OUTPUT).put(b"from an entry", pymqi.MD())
        conn.disconnect()
        done.set()

    system.programs.load("QZZ1", qzz1)
    system.dispatcher.cremc("QZZ1")
    assert done.wait(5)
    assert system.dispatcher.wait_idle(5)
    qm, q = _open(system)
    q.put(b"from outside", pymqi.MD())
    inside, outside = _events(system, "put")
    assert inside.program == "QZZ1" and isinstance(inside.ecb, int)
    assert outside.program is None and outside.ecb is None
    q.close()
    qm.disconnect()


def test_a_failed_program_run_is_recorded(start_system):
    """An entry that ends with a system error (a dump) is journaled as a program-failed
    event naming its ECB, program and error; a run that ends normally is not."""
    system = start_system()

    def qzf1(ecb):
        raise ZeroDivisionError("no divisor")

    system.programs.load("QZF1", qzf1)
    system.programs.load("QZF2", lambda ecb: None)
    system.dispatcher.cremc("QZF1")
    system.dispatcher.cremc("QZF2")
    assert system.dispatcher.wait_idle(5)
    (failed,) = _events(system, "program-failed")
    assert failed.program == "QZF1" and isinstance(failed.ecb, int)
    assert failed.queue == "" and failed.msg_id is None
    detail = json.loads(failed.detail)
    assert detail["code"].startswith("SE-E") and "no divisor" in detail["error"]
    assert f"ECB-{failed.ecb} PGM-QZF1" in "\n".join(system.log)


# -- levels ------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["events", "payload"])
def test_payload_only_at_payload_level(start_system, level):
    """Message data is in the journal only at level ``payload``; the hash at both."""
    system = start_system(journal=level)
    qm, q = _open(system)
    q.put(b"secret data", pymqi.MD())
    (put,) = _events(system, "put")
    assert put.payload_hash == payload_hash(b"secret data")
    assert put.payload == (b"secret data" if level == "payload" else None)
    q.close()
    qm.disconnect()


def test_journal_off_writes_nothing(start_system, tmp_path):
    """With level ``off`` there is no journal and nothing is written to the home."""
    system = start_system(journal="off")
    qm, q = _open(system)
    q.put(b"x", pymqi.MD())
    q.get(None, pymqi.MD())
    assert system.journal is None
    assert not system.qmgr.events.active
    q.close()
    qm.disconnect()
    system.stop()
    assert not (tmp_path / "home" / "journal").exists()


def test_no_home_no_journal():
    """A system without a home has nothing to write to: no journal."""
    with tpfemu.System.start(name="JRNNOHOME") as system:
        assert system.journal is None
        assert not system.qmgr.events.active


def test_unknown_level_is_refused(tmp_path):
    """An unknown journal level is a ValueError naming the levels."""
    with pytest.raises(ValueError, match="off, events, payload"):
        tpfemu.System(home=tmp_path, journal="verbose")


# -- concurrency -----------------------------------------------------------------------------


def test_concurrent_load_loses_nothing_and_keeps_order(start_system):
    """8 threads putting and getting on 4 queues at once: every put and get is journaled
    exactly once, seq numbers are dense, and each thread's puts and gets appear in the
    order the thread made them."""
    queues = [f"LOAD.Q{i}" for i in range(4)]
    system = start_system(queues=queues, journal="payload")
    threads, per_thread = 8, 300
    put_ids: dict[int, list[bytes]] = {}
    got_ids: dict[int, list[bytes]] = {}
    errors: list[BaseException] = []
    barrier = threading.Barrier(threads)

    def work(t: int) -> None:
        try:
            qm = pymqi.connect(system.name)
            q = pymqi.Queue(qm, queues[t % 4], IO)
            mine_put, mine_got = [], []
            barrier.wait()
            for i in range(per_thread):
                md = pymqi.MD()
                q.put(f"{t}:{i}".encode(), md)
                mine_put.append(bytes(md.MsgId))
                got = pymqi.MD()
                q.get(None, got)
                mine_got.append(bytes(got.MsgId))
            put_ids[t], got_ids[t] = mine_put, mine_got
            q.close()
            qm.disconnect()
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert not errors, errors
    system.stop()  # a clean stop flushes everything
    events = list(journal.read_events(system.home))
    assert [e.seq for e in events] == list(range(len(events)))
    puts = [e for e in events if e.event == "put"]
    gets = [e for e in events if e.event == "get"]
    assert len(puts) == len(gets) == threads * per_thread
    assert len({e.msg_id for e in puts}) == threads * per_thread
    seq_of_put = {e.msg_id: e.seq for e in puts}
    seq_of_get = {e.msg_id: e.seq for e in gets}
    for t in range(threads):
        put_seqs = [seq_of_put[m] for m in put_ids[t]]
        assert put_seqs == sorted(put_seqs), f"thread {t}'s puts out of order"
        get_seqs = [seq_of_get[m] for m in got_ids[t]]
        assert get_seqs == sorted(get_seqs), f"thread {t}'s gets out of order"
        # a thread's own put comes before its following get, on the right queue
        for put_seq, get_seq in zip(put_seqs, get_seqs, strict=True):
            assert put_seq < get_seq
    by_payload = {e.payload: e for e in puts}
    for t in range(threads):
        for i in (0, per_thread - 1):
            e = by_payload[f"{t}:{i}".encode()]
            assert e.queue == queues[t % 4] and e.msg_id == put_ids[t][i]


# -- segments ---------------------------------------------------------------------------------


def test_segments_rotate_by_size(tmp_path):
    """A journal passes to a new segment once the current one reaches segment_bytes; the
    segments together hold every event in order."""
    qmgr = QueueManager("ROTQM").start()
    jr = Journal(qmgr, tmp_path / "j", segment_bytes=16 * 1024, batch_events=20,
                 level="payload").start()
    for i in range(400):
        qmgr.events.emit("put", "Q", 1_000 + i, msg_id=i.to_bytes(24, "big"), length=100,
                         data=bytes([i % 256]) * 100)
        if i % 50 == 49:
            assert jr.flush()
    jr.stop()
    qmgr.stop()
    files = journal.segments(tmp_path / "j")
    assert len(files) >= 3
    assert [f.name for f in files] == [f"B-{n:08d}.arrows" for n in range(1, len(files) + 1)]
    for f in files[:-1]:
        assert f.stat().st_size >= 16 * 1024
    events = list(journal.read_events(tmp_path / "j"))
    assert [e.seq for e in events] == list(range(400))
    assert [e.event_time_us for e in events] == [1_000 + i for i in range(400)]


def test_a_restart_continues_segments_and_seq(start_system, tmp_path):
    """A system started again on the same home opens the next segment and continues the
    seq numbers where the last run stopped."""
    first = start_system(name="JRNRS")
    qm, q = _open(first)
    q.put(b"run one", pymqi.MD())
    q.close()
    qm.disconnect()
    first.stop()
    before = list(journal.read_events(first.home))
    second = start_system(name="JRNRS")
    qm, q = _open(second)
    q.put(b"run two", pymqi.MD())
    events = _events(second)
    assert [p.name for p in journal.segments(second.home)] == [
        "B-00000001.arrows", "B-00000002.arrows"]
    assert [e.seq for e in events] == list(range(len(events)))
    assert events[: len(before)] == before
    assert events[-1].event == "put" and events[-1].length == len(b"run two")
    q.close()
    qm.disconnect()


def test_torn_last_batch_is_skipped(tmp_path):
    """A segment cut off in the middle of its last batch (a crash while writing) reads
    up to the last complete batch, and exports the same."""
    qmgr = QueueManager("TORNQM").start()
    jr = Journal(qmgr, tmp_path / "j").start()
    for i in range(30):
        qmgr.events.emit("put", "Q", i, length=i)
        if i % 10 == 9:
            assert jr.flush()  # three batches of ten
    jr.stop()
    qmgr.stop()
    (segment,) = journal.segments(tmp_path / "j")
    data = segment.read_bytes()
    segment.write_bytes(data[: len(data) - 60])  # into the last batch's body
    events = list(journal.read_events(segment))
    assert [e.seq for e in events] == list(range(20))
    (exported,) = journal.to_parquet([segment], tmp_path / "out")
    assert pq.read_table(exported).num_rows == 20


def test_flush_makes_events_readable_while_running(start_system):
    """After flush() every event emitted so far is in the segment, with the system
    still running."""
    system = start_system()
    qm, q = _open(system)
    for i in range(50):
        q.put(b"m%d" % i, pymqi.MD())
    assert len(_events(system, "put")) == 50
    assert system.running
    q.close()
    qm.disconnect()


# -- bad files ---------------------------------------------------------------------------------


def _write_stream(path, table: pa.Table) -> None:
    with pa.OSFile(str(path), "wb") as f, pa.ipc.new_stream(f, table.schema) as w:
        w.write_table(table)


def test_wrong_schema_names_the_file_and_field(tmp_path):
    """A segment whose column has the wrong type raises SchemaMismatch naming the file
    and the field, from the reader and from the export (which then writes nothing)."""
    good = pa.table({name: pa.nulls(0, SCHEMA.field(name).type) for name in SCHEMA.names})
    bad = good.set_column(good.schema.get_field_index("seq"), "seq", pa.array([], pa.string()))
    path = tmp_path / "B-00000001.arrows"
    _write_stream(path, bad)
    with pytest.raises(SchemaMismatch, match=r"B-00000001\.arrows.*'seq'"):
        journal.read_table(path)
    with pytest.raises(SchemaMismatch, match=r"B-00000001\.arrows.*'seq'"):
        journal.to_parquet([tmp_path], tmp_path / "out")
    assert not list((tmp_path / "out").glob("*")) if (tmp_path / "out").exists() else True


def test_missing_required_field_is_a_mismatch(tmp_path):
    """A segment without a required column raises SchemaMismatch naming it."""
    table = pa.table({"event_time_us": pa.array([1], pa.int64())})
    path = tmp_path / "other.arrows"
    _write_stream(path, table)
    with pytest.raises(SchemaMismatch, match=r"other\.arrows.*'seq' is missing"):
        list(journal.read_events(path))


def test_unreadable_file_is_a_clear_error(tmp_path):
    """A file that is not an Arrow stream raises JournalError naming it."""
    path = tmp_path / "B-00000001.arrows"
    path.write_bytes(b"this is not an arrow stream at all" * 10)
    with pytest.raises(JournalError, match=r"B-00000001\.arrows"):
        journal.read_table(path)
    with pytest.raises(JournalError, match=r"B-00000001\.arrows"):
        journal.to_parquet([path], tmp_path / "out")


def test_missing_source_and_empty_journal(tmp_path):
    """A source that does not exist, or holds no segments, is a JournalError naming it."""
    with pytest.raises(JournalError, match="nowhere"):
        journal.segments(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    assert journal.segments(tmp_path / "empty") == []
    with pytest.raises(JournalError, match="empty: no journal segments"):
        journal.to_parquet([tmp_path / "empty"], tmp_path / "out")


def test_export_is_atomic_and_replaces(start_system, tmp_path):
    """Exporting twice replaces the files and leaves no temporary files behind."""
    system = start_system()
    qm, q = _open(system)
    q.put(b"x", pymqi.MD())
    q.close()
    qm.disconnect()
    system.stop()
    out = tmp_path / "out"
    first = journal.to_parquet([system.home], out)
    second = journal.to_parquet([system.home, system.home / "journal"], out)
    assert second[0] == first[0] and len(second) == 2  # the same segment twice: renamed
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in second)
    assert pq.read_table(second[0]).equals(pq.read_table(second[1]))


def test_a_crash_keeps_every_flushed_event(tmp_path):
    """A process that dies without stopping its system (os._exit) leaves a journal that
    holds at least every event flushed before the crash, readable without error; a new
    system on that home continues after it."""
    import subprocess
    import sys
    import textwrap

    home = tmp_path / "home"
    script = textwrap.dedent(f"""
        import os
        import tpfemu, tpfemu.mqi as pymqi
        from tpfemu.mqi import CMQC
        system = tpfemu.System.start(name="JRNCRASH", home={str(home)!r})
        system.qmgr.catalog.define("MQP")
        system.qmgr.catalog.define("QL", "APP.Q")
        q = pymqi.Queue(pymqi.connect("JRNCRASH"), "APP.Q", CMQC.MQOO_OUTPUT)
        for i in range(100):
            q.put(b"m%d" % i, pymqi.MD())
        assert system.journal.flush()
        for i in range(5):
            q.put(b"late", pymqi.MD())
        os._exit(3)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert done.returncode == 3, done.stderr.decode()
    puts = [e for e in journal.read_events(home) if e.event == "put"]
    assert 100 <= len(puts) <= 105
    assert [e.payload_hash for e in puts[:100]] == [payload_hash(b"m%d" % i)
                                                   for i in range(100)]
    last = max(e.seq for e in journal.read_events(home))
    with tpfemu.System.start(name="JRNCRASH", home=home) as system:
        pymqi.Queue(pymqi.connect("JRNCRASH"), "APP.Q", CMQC.MQOO_OUTPUT).put(b"after")
        system.journal.flush()
        after = [e for e in journal.read_events(home) if e.seq > last]
        assert [e.event for e in after] == ["put"] and after[0].seq == last + 1


def test_trigger_and_trigger_message_are_recorded(start_system):
    """A FIRST trigger is journaled as ``trigger`` (type and initiation queue in detail),
    with the queue manager's put of the trigger message; both come before the put that
    fired them (the trigger is decided inside the put, its event after it)."""
    system = start_system(queues=())
    cat = system.qmgr.catalog
    cat.define("PROC", "APP.PROC", applid="PRG1", appltype="TPF")
    cat.define("QL", "INIT.Q")
    cat.define("QL", "TRIG.Q", trigger="YES", trigtype="FIRST", initq="INIT.Q",
               process="APP.PROC")
    qm = pymqi.connect(system.name)
    monitor = pymqi.Queue(qm, "INIT.Q", CMQC.MQOO_INPUT_SHARED)  # a trigger monitor
    qm.put1("TRIG.Q", b"wake up", pymqi.MD())
    events = _events(system, "put", "trigger")
    assert [(e.event, e.queue) for e in events] == [
        ("trigger", "TRIG.Q"), ("put", "INIT.Q"), ("put", "TRIG.Q")]
    trigger, trigger_message, _ = events
    assert trigger.fields == {"trigtype": "FIRST", "initq": "INIT.Q", "process": "APP.PROC"}
    assert trigger.msg_id is None
    assert trigger_message.fields == {"internal": True}
    assert trigger_message.msg_id is not None and trigger_message.length > 0
    monitor.close()
    qm.disconnect()


def test_a_write_failure_stops_the_journal_not_the_system(start_system):
    """When writing fails (a full disk, say) the journal reports it on the console and
    stops recording; MQI calls go on working."""
    system = start_system()
    jr = system.journal
    assert jr.flush()
    segment_fd = jr._fd
    jr._fd = os.open("/dev/full", os.O_WRONLY)  # every write: ENOSPC, a real full disk
    os.close(segment_fd)
    qm, q = _open(system)
    q.put(b"lost", pymqi.MD())
    assert jr.flush() is False
    assert any("JRNL0001E" in line and "No space left" in line for line in system.log)
    assert not system.qmgr.events.active
    q.put(b"still works", pymqi.MD())
    assert q.get() == b"lost"
    q.close()
    qm.disconnect()


def test_system_levels_are_the_schema_levels():
    """The levels System accepts are the journal schema's."""
    from tpfemu.journal.schema import LEVELS
    from tpfemu.system import JOURNAL_LEVELS

    assert JOURNAL_LEVELS == LEVELS


def test_cli_and_system_do_not_import_pyarrow():
    """Starting the CLI or a system without a journal does not import pyarrow."""
    import subprocess
    import sys

    code = ("import sys, tpfemu.cli, tpfemu\n"
            "with tpfemu.System.start(name='JRNNOPA'):\n"
            "    pass\n"
            "print('pyarrow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_payload_batches_are_bounded_by_data_size(tmp_path, monkeypatch):
    """At level payload a record batch ends once its message data passes
    MAX_BATCH_PAYLOAD, so large messages never overflow an Arrow binary column."""
    from tpfemu.journal import writer

    monkeypatch.setattr(writer, "MAX_BATCH_PAYLOAD", 1000)
    qmgr = QueueManager("BIGQM").start()
    # a long interval: the writer takes all ten events in the one cycle stop() asks for
    jr = Journal(qmgr, tmp_path / "j", level="payload", interval=600).start()
    for i in range(10):
        qmgr.events.emit("put", "Q", i, length=400, data=bytes([i]) * 400)
    jr.stop()
    qmgr.stop()
    (segment,) = journal.segments(tmp_path / "j")
    reader = pa.ipc.open_stream(pa.memory_map(str(segment)))
    sizes = [batch.num_rows for batch in reader]
    assert sizes == [3, 3, 3, 1]  # 3 x 400 bytes passes 1000
    assert [e.payload for e in journal.read_events(segment)] == [
        bytes([i]) * 400 for i in range(10)]
