"""The journal's capture in C: the MQI fast paths record their events in the journal's
EventLog, and those events are the ones the Python path would have emitted."""

from __future__ import annotations

import dataclasses
import os
import threading

import numpy as np
import pyarrow as pa
import pytest
import xxhash

import tpfemu
import tpfemu.mqi as pymqi
from ecb import linkage
from tpfemu import journal
from tpfemu._lowlevel import CoreQueue, EventLog, follow_running_ecbs, payload_hashes
from tpfemu.journal.reader import read_table
from tpfemu.journal.schema import SCHEMA, SEGMENT_SCHEMA, to_segment
from tpfemu.journal.writer import RECORD, Journal
from tpfemu.mqi import CMQC
from tpfemu.qmgr.events import EventBus

IO = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF

#: Columns that differ between two runs of the same calls by nature.
_RUN_COLUMNS = ("event_time_us", "seq", "msg_id", "expiry")


def _workload(system: tpfemu.System, tag: bytes) -> None:
    """The everyday calls, each made three times so that later ones take the fast path
    (the first call on a handle takes the full path and leaves the plan)."""
    conn = pymqi.connect(system.name)
    q = pymqi.Queue(conn, "APP.Q", IO)
    for i in range(3):
        q.put(tag + b" plain %d" % i)  # no MD
    for _ in range(3):
        q.get()
    for i in range(3):
        q.put(tag + b" md %d" % i, pymqi.MD(Priority=7, CorrelId=b"CORREL-%d" % i,
                                             Expiry=6000, MsgType=CMQC.MQMT_REQUEST,
                                             Format=CMQC.MQFMT_STRING, ReplyToQ=b"REPLY.Q"))
    for i in range(3):
        q.put(tag + b" group %d" % i, pymqi.MD(Version=2, GroupId=b"GROUP-1"))
    for _ in range(6):
        q.get(None, pymqi.MD())
    in_syncpoint = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    for i in range(3):
        q.put(tag + b" syncpoint %d" % i, pymqi.MD(), in_syncpoint)
    conn.commit()
    for _ in range(3):
        q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    conn.commit()
    q.close()
    conn.disconnect()


def _in_entry(system: tpfemu.System, tag: bytes) -> None:
    done = threading.Event()
    failed: list[BaseException] = []

    def qcap(ecb):
        try:
            _workload(system, tag)
        except BaseException as exc:  # reported below, not lost in the dispatcher
            failed.append(exc)
        finally:
            done.set()

    system.programs.load("QCAP", qcap)
    system.dispatcher.cremc("QCAP")
    assert done.wait(10) and system.dispatcher.wait_idle(10)
    assert not failed, failed


@pytest.mark.parametrize("level", ["events", "payload"])
def test_fast_path_events_recorded_in_c_equal_the_python_ones(start_system, monkeypatch,
                                                              level):
    """The same calls, once with only the journal listening (its EventLog records the
    plans' events in C, and a cycle of only those is encoded as Arrow in C by
    EventLog.write_ipc) and once with a second listener (the plans decline, the full
    paths emit in Python, and pyarrow builds the columns): the journal holds the same
    events, field by field (MsgId, time and seq aside), outside and inside an entry,
    with the GroupId, CorrelId, priority and expiry of each message and the payload hash
    of its data."""
    system = start_system(journal=level)
    bus = system.qmgr.events
    assert bus.capture is system.journal._log
    assert system.journal.flush()
    by_columns = []  # rows written by the pyarrow path (events emitted in Python)
    original = Journal._write_emitted
    monkeypatch.setattr(Journal, "_write_emitted", lambda self, items, seq0: (
        by_columns.extend(items), original(self, items, seq0))[1])
    written = system.journal.written
    _workload(system, b"run")
    assert system.journal.flush()
    in_c = system.journal.written - written - len(by_columns)
    assert in_c >= 14  # the put/get calls after each handle's first: encoded in C
    _in_entry(system, b"run")
    assert system.journal.flush()
    before = list(journal.read_events(system.home))
    captured = [e for e in before if e.event in ("put", "get")]

    def listener(kind, queue, time_us, fields):
        pass

    bus.subscribe_raw(listener)
    assert bus.capture is None and bus.active
    _workload(system, b"run")
    _in_entry(system, b"run")
    bus.unsubscribe(listener)
    assert bus.capture is system.journal._log
    assert system.journal.flush()
    python = [e for e in list(journal.read_events(system.home))[len(before):]
              if e.event in ("put", "get")]

    assert len(captured) == 2 * 24  # twice (outside, inside an entry) 12 puts, 12 gets
    assert sum(1 for e in captured if e.uow) >= 12  # (the syncpoint ones at least)
    assert len(python) == len(captured)
    for c, p in zip(captured, python, strict=True):
        c_row, p_row = dataclasses.asdict(c), dataclasses.asdict(p)
        for name in _RUN_COLUMNS:
            c_row.pop(name)
            p_row.pop(name)
        if c.uow:  # (a unit of work each run: an entry's get takes one; ids differ)
            assert p.uow and p.uow != c.uow
            c_row.pop("uow")
            p_row.pop("uow")
        if c.ecb is not None:  # two entries, two ECBs
            assert p.ecb is not None and p.ecb != c.ecb
            c_row.pop("ecb")
            p_row.pop("ecb")
        assert c_row == p_row, repr((c_row, p_row))
        if c.event == "put" or c.expiry == -1:
            assert c.expiry == p.expiry
        else:  # the time left when got: the runs are moments apart
            assert 0 <= p.expiry <= c.expiry <= p.expiry + 1
    puts = [e for e in captured if e.event == "put"]
    gets = [e for e in captured if e.event == "get"]
    # MsgType, Format and ReplyToQ(Mgr) as the MD gave them, read in C from the context
    # record; a message without one has the default put context (a datagram, no format)
    requests = [e for e in captured if e.msg_type == CMQC.MQMT_REQUEST]
    assert len(requests) == 12 and all(  # 3 puts, their 3 gets, outside and inside
        (e.format, e.reply_to_q, e.reply_to_qmgr) == ("MQSTR", "REPLY.Q", system.qmgr.name)
        for e in requests)  # (a blank ReplyToQMgr is the queue manager's name, as IBM's)
    plain = puts[:3]  # the first three puts, with no MD
    assert all((e.msg_type, e.format, e.reply_to_q, e.reply_to_qmgr) ==
                         (CMQC.MQMT_DATAGRAM, None, None, None) for e in plain)
    # each put's message got in put order (priority 7 first, then the priority-0 ones,
    # which is also the order they were put in), under the MsgId the put recorded
    assert [e.msg_id for e in puts] == [e.msg_id for e in gets]
    assert all(len(e.msg_id) == 24 and e.msg_id != bytes(24) for e in puts)
    def hashed(data: bytes) -> bytes:
        return xxhash.xxh64(data, seed=42).digest()

    md_put = next(e for e in puts if e.payload_hash == hashed(b"run md 0"))
    assert md_put.priority == 7 and md_put.expiry == 6000
    assert md_put.correl_id == b"CORREL-0".ljust(24, b"\0")
    group_get = next(e for e in gets if e.payload_hash == hashed(b"run group 0"))
    assert group_get.group_id == b"GROUP-1".ljust(24, b"\0")
    assert all((e.payload is not None) == (level == "payload") for e in captured)
    inside = [e for e in captured if e.program == "QCAP"]
    assert len(inside) == len(captured) // 2 and all(isinstance(e.ecb, int) for e in inside)


def test_the_capture_stands_down_for_any_other_subscriber():
    """``capture`` names the EventLog only while it is the only subscriber; a second
    EventLog is refused."""
    bus = EventBus("QM")
    log = EventLog(lambda: None)
    assert bus.capture is None and not bus.active
    bus.subscribe_capture(log)
    assert bus.capture is log and bus.active
    with pytest.raises(ValueError, match="EventLog is subscribed already"):
        bus.subscribe_capture(EventLog(lambda: None))
    seen = []
    bus.subscribe(seen.append)
    assert bus.capture is None
    bus.emit("define", "Q", 5, type="QL")
    assert len(log) == 1 and len(seen) == 1
    bus.unsubscribe(seen.append)
    assert bus.capture is log
    bus.unsubscribe_capture(log)
    assert bus.capture is None and not bus.active
    bus.emit("define", "Q", 6)
    assert len(log) == 1


@pytest.mark.parametrize("payload", [False, True], ids=["events", "payload"])
def test_an_event_log_keeps_the_order_of_both_kinds(payload):
    """Events recorded by a core queue and events added from Python come out of take()
    in the order they happened: the descriptor in the fixed record, the queue as an index
    into the names, the payload hash computed, and at level payload the data back to
    back in record order."""
    log = EventLog(lambda: None, payload=payload)
    q = CoreQueue("ORDER.Q")
    try:
        log.add("define", "ORDER.Q", 1, {"kind": "QL"})
        q.put(b"first", 4, 0, log)
        log.add("alter", "ORDER.Q", 2, {})
        assert q.get_body(0, False, log) == b"first"
        q.put(b"second!", 2, 0, log)
        count, records, names, items, data = log.take()
    finally:
        q.close()
    assert count == 5 and len(log) == 0
    recs = np.frombuffer(records, dtype=RECORD)
    assert list(recs["kind"]) == [0, 1, 0, 2, 1]
    assert [i[0] for i in items] == ["define", "alter"]
    assert names == ["ORDER.Q"] and list(recs["queue"][[1, 3, 4]]) == [0, 0, 0]
    assert list(recs["program"]) == [-1] * 5
    put, get = recs[1], recs[3]
    assert bytes(put["msg_id"]) == bytes(get["msg_id"]) != bytes(24)
    assert put["priority"] == get["priority"] == 4 and put["length"] == 5
    assert put["ecb"] == -1 and put["time_us"] <= get["time_us"]
    hashes = [bytes(h) for h in recs["hash"][[1, 3, 4]]]
    assert hashes == [payload_hashes([d]) for d in (b"first", b"first", b"second!")]
    assert data == (b"firstfirstsecond!" if payload else None)


def test_take_starts_each_cycle_afresh():
    """After take(), names are numbered afresh and the reused arena holds only the new
    cycle's data."""
    log = EventLog(lambda: None, payload=True)
    a, b = CoreQueue("A.Q"), CoreQueue("B.Q")
    try:
        for round_ in range(3):
            a.put(b"a%d" % round_ * 100, 0, 0, log)
            b.put(b"b%d" % round_ * 200, 0, 0, log)
            count, records, names, _, data = log.take()
            recs = np.frombuffer(records, dtype=RECORD)
            assert count == 2 and names == ["A.Q", "B.Q"]
            assert list(recs["queue"]) == [0, 1]
            assert data == b"a%d" % round_ * 100 + b"b%d" % round_ * 200
        assert log.take()[0] == 0
    finally:
        a.close()
        b.close()


def _segment_rows(path, log: EventLog, emitted) -> tuple[int, list[dict]]:
    """(events write_ipc took, the put and get rows it wrote after the schema, read
    back by the journal's reader and validated): the segment's metadata gives cpu B,
    qmgr QMW and the first seq, 100, as the writer's does, and each run handed to
    ``emitted`` is written too (as the writer writes it: a row's seq is its place)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)

    def write_emitted(items, seq0):
        emitted(items, seq0)
        batch = pa.RecordBatch.from_pylist([
            {name: None for name in SCHEMA.names} | {
                "event_time_us": t, "seq": seq0 + i, "cpu": "B", "qmgr": "QMW",
                "queue": queue, "event": kind}
            for i, (kind, queue, t, *_) in enumerate(items)], schema=SCHEMA)
        os.write(fd, to_segment(batch).serialize().to_pybytes())

    try:
        os.write(fd, SEGMENT_SCHEMA.with_metadata({
            "tpfemu.journal.version": "4", "tpfemu.journal.cpu": "B",
            "tpfemu.journal.qmgr": "QMW", "tpfemu.journal.first_seq": "100",
        }).serialize().to_pybytes())
        written = log.write_ipc(fd, 100, "B", "QMW", 3, write_emitted)
        os.write(fd, b"\xff\xff\xff\xff\x00\x00\x00\x00")
    finally:
        os.close(fd)
    pa.ipc.open_stream(path).read_all().validate(full=True)  # (as written)
    table = read_table(path)
    table.validate(full=True)
    assert table.schema.equals(SCHEMA)
    return written[0], [r for r in table.to_pylist() if r["event"] in ("put", "get")]


@pytest.mark.parametrize("payload", [False, True], ids=["events", "payload"])
def test_write_ipc_writes_runs_in_order(tmp_path, payload):
    """write_ipc encodes the fast paths' records in C (here in batches of 3) and hands
    runs of Python-emitted events to its callback, in order, seq counting on across
    both; the rows are valid Arrow with the journal schema."""
    log = EventLog(lambda: None, payload=payload)
    q = CoreQueue("W.Q")
    handed = []

    def emitted(items, seq0):
        handed.append((seq0, [i[0] for i in items]))

    try:
        for i in range(4):
            q.put(b"m%d" % i * 50, i, 0, log)
        log.add("commit", "W.Q", 1, {"uow": 7})
        log.add("alter", "W.Q", 2, {})
        q.get_body(0, False, log)
        count, rows = _segment_rows(tmp_path / "s.arrows", log, emitted)
    finally:
        q.close()
    assert count == 7 and handed == [(104, ["commit", "alter"])]
    assert [r["seq"] for r in rows] == [100, 101, 102, 103, 106]
    assert [r["event"] for r in rows] == ["put"] * 4 + ["get"]
    assert {r["queue"] for r in rows} == {"W.Q"} and {r["cpu"] for r in rows} == {"B"}
    assert [r["priority"] for r in rows] == [0, 1, 2, 3, 3]
    assert rows[4]["payload_hash"] == payload_hashes([b"m3" * 50])
    assert [r["payload"] for r in rows] == (
        [b"m%d" % i * 50 for i in (0, 1, 2, 3, 3)] if payload else [None] * 5)
    assert all(r["group_id"] is None and r["ecb"] is None and r["expiry"] == -1
               for r in rows)
    assert len(log) == 0 and log.lost == 0


def test_write_ipc_keeps_what_is_recorded_while_it_writes(tmp_path):
    """Events recorded while write_ipc runs (here from its callback, as an application
    thread would while the GIL is released) go to the next cycle: not into this one, and
    not lost."""
    log = EventLog(lambda: None)
    q = CoreQueue("R.Q")

    def emitted(items, seq0):
        q.put(b"during", 5, 0, log)

    try:
        log.add("define", "R.Q", 1, {})
        q.put(b"before", 0, 0, log)
        _, first = _segment_rows(tmp_path / "a.arrows", log, emitted)
        assert len(log) == 1
        _, second = _segment_rows(tmp_path / "b.arrows", log, emitted)
    finally:
        q.close()
    assert [r["length"] for r in first] == [6] and [r["priority"] for r in second] == [5]
    assert log.lost == 0


def test_write_ipc_counts_what_a_failing_callback_leaves_unwritten(tmp_path):
    """When the callback raises, write_ipc raises it, and the events of the cycle not
    written yet are counted as lost."""
    log = EventLog(lambda: None)
    q = CoreQueue("F.Q")

    def emitted(items, seq0):
        raise RuntimeError("disk on fire")

    try:
        q.put(b"one", 0, 0, log)
        log.add("commit", "F.Q", 1, {})
        q.put(b"two", 0, 0, log)
        fd = os.open(tmp_path / "f.arrows", os.O_WRONLY | os.O_CREAT)
        try:
            with pytest.raises(RuntimeError, match="disk on fire"):
                log.write_ipc(fd, 0, "B", "QM", 8, emitted)
        finally:
            os.close(fd)
    finally:
        q.close()
    assert log.lost == 2 and len(log) == 0  # the commit and the put after it


def test_payload_hashes_in_a_batch():
    """payload_hashes hashes each data of a list (XXH64 seed 42: test_payload_hash.py
    checks the hash itself); None gives zeros; anything else is refused by position."""
    datas = [os.urandom(n) for n in (0, 1, 31, 32, 33, 1024, 70_000)]
    out = payload_hashes([*datas, None])
    assert [out[8 * i:8 * i + 8] for i in range(len(datas))] == [
        xxhash.xxh64(d, seed=42).digest() for d in datas]
    assert out[-8:] == bytes(8)
    with pytest.raises(TypeError, match="item 0 is str"):
        payload_hashes(["text"])


def test_an_event_that_cannot_be_recorded_is_counted_not_raised(monkeypatch):
    """The call a record is for has happened: when the record fails (here reading the
    running ECB's program raises), the put still stands, no error reaches the caller, and
    the log counts the event as lost."""
    # As in a process where no entry has run yet (other tests' entries, such as the
    # channels' CMQL, would make the watcher untrusted and the slot unread).
    monkeypatch.setattr(linkage, "_entries_started", False)
    class BrokenEcb:
        ecb_id = 7

        @property
        def program(self):
            raise RuntimeError("no program table")

    log = EventLog(lambda: None)
    q = CoreQueue("LOST.Q")
    follow_running_ecbs(linkage.watch_running)  # as the journal does before recording
    watcher = linkage._watcher  # what the ECB runtime calls at each switch
    watcher(BrokenEcb())
    try:
        q.put(b"kept", 0, 0, log)
        assert q.depth == 1 and len(log) == 0 and log.lost == 1
        assert q.get_body(0, False, log) == b"kept"
        assert log.lost == 2
    finally:
        watcher(None)
        q.close()


@pytest.mark.parametrize("payload", [False, True], ids=["events", "payload"])
def test_every_record_carries_its_payloads_hash(tmp_path, payload):
    """Every way a record gets its payload hash gives the data's hash, in take() and in
    the rows write_ipc writes: a put; a get of a message whose put the log recorded (the
    put's hash, remembered), in the same cycle or the one before; a get of a message put
    outside the log (hashed at the get); data of 100 KB."""
    log = EventLog(lambda: None, payload=payload)
    q = CoreQueue("H.Q")
    big = os.urandom(100_000)
    try:
        q.put(b"early", 0, 0, log)
        first = log.take()
        q.put(b"unlogged", 0)
        for data in (b"same cycle", big):
            q.put(data, 0, 0, log)
        got = [q.get_body(0, False, log) for _ in range(4)]
        count, records, *_ = log.take()
        q.put(b"written", 0, 0, log)
        assert q.get_body(0, False, log) == b"written"
        _, rows = _segment_rows(tmp_path / "h.arrows", log, lambda items, seq0: None)
    finally:
        q.close()
    assert got == [b"early", b"unlogged", b"same cycle", big]
    recs = np.frombuffer(records, dtype=RECORD)
    assert count == 6 and list(recs["kind"]) == [1, 1, 2, 2, 2, 2]
    want = [b"same cycle", big, b"early", b"unlogged", b"same cycle", big]
    assert [bytes(h) for h in recs["hash"]] == [payload_hashes([d]) for d in want]
    assert bytes(np.frombuffer(first[1], dtype=RECORD)["hash"][0]) == payload_hashes(
        [b"early"])
    assert [r["payload_hash"] for r in rows] == [payload_hashes([b"written"])] * 2


@pytest.mark.parametrize("level", ["events", "payload"])
def test_a_logged_get_with_no_md_leaves_the_context_record_out(start_system, level):
    """Messages put with an MD carry a context record ahead of their data. Got with no
    MD while the journal listens (after the handle's first get, by its plan: the core's
    get into one bytes object, in C), each comes back as its data alone, and its get
    event has the GroupId from the record, the data's length and hash, and at level
    payload the data."""
    system = start_system(journal=level)
    conn = pymqi.connect(system.name)
    q = pymqi.Queue(conn, "APP.Q", IO)
    datas = [b"with context %d" % i for i in range(3)]
    for data in datas:
        q.put(data, pymqi.MD(Version=2, GroupId=b"GROUP-2", ApplIdentityData=b"ID"))
    assert [q.get() for _ in datas] == datas
    assert q.get_handle().get_plan is not None  # the last two by the plan
    q.close()
    conn.disconnect()
    assert system.journal.flush()
    gets = list(journal.read_events(system.home, events=["get"]))
    assert [(e.group_id, e.length, e.payload_hash) for e in gets] == [
        (b"GROUP-2".ljust(24, b"\0"), len(d), payload_hashes([d])) for d in datas]
    assert [e.payload for e in gets] == (datas if level == "payload" else [None] * 3)


@pytest.mark.parametrize("with_md", [False, True], ids=["no MD", "MD"])
def test_a_plan_follows_the_capture_between_calls_on_one_handle(start_system, with_md):
    """On one open handle, whose plans read the event bus's ``capture`` at every call (a
    remembered attribute look-up): a listener subscribed between two puts hears the
    puts made while it is subscribed and no other, and the journal holds every put."""
    system = start_system()
    bus = system.qmgr.events
    conn = pymqi.connect(system.name)
    q = pymqi.Queue(conn, "APP.Q", IO)
    heard: list[bytes] = []

    def listener(kind, queue, time_us, fields):
        if kind == "put":
            heard.append(fields["msg_id"])

    def put(i: int) -> None:
        if with_md:
            q.put(b"follow %d" % i, pymqi.MD())
        else:
            q.put(b"follow %d" % i)

    try:
        for i in range(3):  # (the first call leaves the plans; the others take them)
            put(i)
        bus.subscribe_raw(listener)
        put(3)
        put(4)
        bus.unsubscribe(listener)
        put(5)
        put(6)
        assert bus.capture is system.journal._log
        assert system.journal.flush()
        puts = [e for e in journal.read_events(system.home, events={"put"})
                if e.queue == "APP.Q"]
        assert len(puts) == 7
        assert heard == [puts[3].msg_id, puts[4].msg_id]
    finally:
        q.close()
        conn.disconnect()


def test_reply_to_names_that_differ_late_in_the_field_are_each_recorded(start_system):
    """Each put's ReplyToQ, ReplyToQMgr and Format are recorded as its own, where
    consecutive puts' fields differ in one byte only, early, in the middle or near the
    end of the 48-byte field (the capture compares a field with the last one seen)."""
    system = start_system()
    conn = pymqi.connect(system.name)
    q = pymqi.Queue(conn, "APP.Q", IO)
    names = ["R" * 40 + "A", "R" * 40 + "B", "R" * 20 + "X" + "R" * 20 + "B", "R" * 41,
             "RA", "RB", "R" * 3 + "Z" + "R" * 37, "R" * 3 + "Z" + "R" * 37]
    qmgrs = ["QM" + "M" * 38 + "1", "QM" + "M" * 38 + "2"]
    formats = [b"FMTAAAA1", b"FMTAAAA2"]
    try:
        for i, name in enumerate(names * 2):
            q.put(b"reply %d" % i, pymqi.MD(ReplyToQ=name.encode(),
                                            ReplyToQMgr=qmgrs[i % 2].encode(),
                                            Format=formats[i // 3 % 2]))
        assert system.journal.flush()
        puts = [e for e in journal.read_events(system.home, events={"put"})
                if e.queue == "APP.Q"]
    finally:
        q.close()
        conn.disconnect()
    assert [(e.reply_to_q, e.reply_to_qmgr, e.format) for e in puts] == [
        (name, qmgrs[i % 2], formats[i // 3 % 2].decode())
        for i, name in enumerate(names * 2)]


def test_equal_context_records_are_each_recorded_as_their_own(start_system):
    """Consecutive messages whose context records are equal, or differ in their GroupId
    alone, each have their own ReplyToQ, Format and GroupId in their put and get events,
    also where a write cycle (which starts a new table of names) falls between two equal
    records: the capture reads a record once and compares the next ones with it."""
    system = start_system()
    conn = pymqi.connect(system.name)
    q = pymqi.Queue(conn, "APP.Q", IO)
    groups = [None, None, "flush", None, None, b"G1", b"G1", b"G2", None, b"G2", "flush",
              b"G2"]
    sent = []
    try:
        for i, group in enumerate(groups):
            if group == "flush":
                assert system.journal.flush()
                continue
            reply = "R2" if i == 9 else "R1"
            md = pymqi.MD(Version=2, ReplyToQ=reply.encode(), Format=CMQC.MQFMT_STRING)
            if group is not None:
                md.GroupId = group
            q.put(b"equal %d" % i, md)
            sent.append((reply, None if group is None else group.ljust(24, b"\0")))
        got = [q.get(None, pymqi.MD()) for _ in sent]
        assert system.journal.flush()
    finally:
        q.close()
        conn.disconnect()
    assert len(got) == len(sent)
    events = [e for e in journal.read_events(system.home) if e.queue == "APP.Q"]
    for kind in ("put", "get"):
        assert [(e.reply_to_q, e.group_id, e.format) for e in events if e.event == kind] == [
            (reply, group, "MQSTR") for reply, group in sent], kind
