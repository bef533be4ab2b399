"""Restart round trips of processor-unique queues (seed 004): persistent committed messages
come back in order with their descriptors, non-persistent ones and uncommitted work do not,
object definitions persist, and a full log is MQ reason 2192 with nothing half-done."""

from __future__ import annotations

import functools
import itertools
import time
from pathlib import Path

import pytest

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr import persistence as persistence_module
from tpfemu.store import checkpoint as checkpoint_module
from tpfemu.store.lmdbenv import MiB
from tpfemu.store.message import chunk_keys
from tpfemu.store.recovery import recover

_names = itertools.count(1)
IN_OUT = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_BROWSE
PERSISTENT, NOT_PERSISTENT = CMQC.MQPER_PERSISTENT, CMQC.MQPER_NOT_PERSISTENT


class Home:
    """A home and the systems booted on it, one at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = f"PQM{next(_names)}"
        self.system: tpfemu.System | None = None

    def boot(self, **kwargs) -> tpfemu.System:
        kwargs.setdefault("journal", "off")
        self.system = tpfemu.System.start(self.name, self.path, "B", **kwargs)
        return self.system

    def restart(self, **kwargs) -> tpfemu.System:
        self.system.stop()
        return self.boot(**kwargs)

    def queue(self, name: str, options: int = IN_OUT) -> pymqi.Queue:
        return pymqi.Queue(pymqi.connect(self.name), name, options)

    def mqsc(self, *commands: str) -> list[str]:
        return [self.system.console(c) for c in commands]


@pytest.fixture
def home(tmp_path):
    h = Home(tmp_path)
    h.boot()
    h.mqsc("ZMQSC DEF MQP", "ZMQSC DEF QL-APP.Q", "ZMQSC DEF QL-PSIST.Q DEFPSIST-YES")
    yield h
    if h.system is not None:
        h.system.stop()


def put(q: pymqi.Queue, data: bytes, persistence: int = PERSISTENT, **md_fields) -> pymqi.MD:
    md = pymqi.MD(Persistence=persistence, **md_fields)
    q.put(data, md)
    return md


def drain(q: pymqi.Queue) -> list[tuple[bytes, pymqi.MD]]:
    out = []
    while True:
        md = pymqi.MD()
        try:
            out.append((q.get(None, md), md))
        except pymqi.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out


def test_persistent_messages_survive_and_non_persistent_do_not(home):
    q = home.queue("APP.Q")
    for i in range(6):
        put(q, b"m%d" % i, PERSISTENT if i % 2 == 0 else NOT_PERSISTENT)
    home.restart()
    assert [data for data, _ in drain(home.queue("APP.Q"))] == [b"m0", b"m2", b"m4"]


def test_defpsist_decides_for_persistence_as_queue_def(home):
    """MQPER_PERSISTENCE_AS_Q_DEF takes the queue's DEFPSIST (the first queue resolved)."""
    put(home.queue("PSIST.Q"), b"yes", CMQC.MQPER_PERSISTENCE_AS_Q_DEF)
    put(home.queue("APP.Q"), b"no", CMQC.MQPER_PERSISTENCE_AS_Q_DEF)
    home.restart()
    assert [d for d, _ in drain(home.queue("PSIST.Q"))] == [b"yes"]
    assert drain(home.queue("APP.Q")) == []


def test_order_and_descriptors_come_back(home):
    q = home.queue("APP.Q")
    sent = []
    for i, prio in enumerate([3, 7, 3, 0, 9, 7]):
        md = put(q, b"body-%d" % i, Priority=prio, CorrelId=b"CORR%d" % i,
                 ReplyToQ=b"REPLY.Q", Format=CMQC.MQFMT_STRING, Expiry=6000)
        sent.append((b"body-%d" % i, md))
    before = {data: md for data, md in sent}
    home.restart()
    got = drain(home.queue("APP.Q"))
    # priority order, then put order within a priority
    expected = [b"body-4", b"body-1", b"body-5", b"body-0", b"body-2", b"body-3"]
    assert [data for data, _ in got] == expected
    for data, md in got:
        put_md = before[data]
        assert md.MsgId == put_md.MsgId
        assert md.CorrelId == bytes(put_md.CorrelId).ljust(24, b"\0")
        assert md.Priority == put_md.Priority
        assert md.Persistence == PERSISTENT
        assert md.ReplyToQ.rstrip() == b"REPLY.Q"
        assert md.Format == CMQC.MQFMT_STRING
        assert (md.PutDate, md.PutTime) == (put_md.PutDate, put_md.PutTime)
        assert 0 < md.Expiry <= 6000  # the remaining expiry, still counting down
        assert md.BackoutCount == 0


def test_backout_count_survives(home):
    q = home.queue("APP.Q")
    put(q, b"poison")
    conn = q._qmgr
    for _ in range(3):
        md = pymqi.MD()
        gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)
        assert q.get(None, md, gmo) == b"poison"
        conn.backout()
    home.restart()
    [(data, md)] = drain(home.queue("APP.Q"))
    assert (data, md.BackoutCount) == (b"poison", 3)


def test_uncommitted_put_is_backed_out_and_uncommitted_get_restored(home):
    q = home.queue("APP.Q")
    put(q, b"committed-1")
    put(q, b"committed-2")
    sync = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    q.put(b"in-flight-put", pymqi.MD(Persistence=PERSISTENT), sync)
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"committed-1"
    home.restart()  # the stop backs the unit of work out
    got = drain(home.queue("APP.Q"))
    assert [d for d, _ in got] == [b"committed-1", b"committed-2"]
    assert got[0][1].BackoutCount == 1


def test_committed_get_is_not_delivered_again(home):
    q = home.queue("APP.Q")
    for i in range(4):
        put(q, b"m%d" % i)
    assert q.get() == b"m0"  # outside syncpoint: final when it returns
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"m1"
    q._qmgr.commit()
    home.restart()
    assert [d for d, _ in drain(home.queue("APP.Q"))] == [b"m2", b"m3"]


def test_a_unit_of_work_costs_one_sync_at_its_commit(home):
    """Persistent puts and gets in syncpoint are not synced by themselves: their records
    go to disk with the MQCMIT, in one batch, and only then are they committed."""
    q = home.queue("APP.Q")
    put(q, b"old")  # outside syncpoint: synced before MQPUT returns
    log = home.system.qmgr.persistence.log
    syncs = log.stats["syncs"]
    in_syncpoint = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    for i in range(3):
        q.put(b"new-%d" % i, pymqi.MD(Persistence=PERSISTENT), in_syncpoint)
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"old"
    time.sleep(0.2)  # a logger woken by the records would have synced them by now
    assert log.stats["syncs"] == syncs
    q._qmgr.commit()
    assert log.stats["syncs"] == syncs + 1
    home.restart()
    assert [d for d, _ in drain(home.queue("APP.Q"))] == [b"new-0", b"new-1", b"new-2"]


def test_checkpoint_plus_log_equals_the_live_state(home):
    """Work across checkpoints and trims: what restart would rebuild (checkpoint + log
    tail) is at every moment exactly the queue's committed persistent messages."""
    q = home.queue("APP.Q")
    plog = home.system.qmgr.persistence
    n = 0

    def live() -> list[bytes]:
        return [bytes(m.data[m.ctx_len:]) for m in
                recover(plog.path, log=plog.log, checkpoints=plog.checkpoints)["APP.Q"]]

    def browse(persistent_only: bool = True) -> list[bytes]:
        out, options = [], CMQC.MQGMO_BROWSE_FIRST
        while True:
            md = pymqi.MD()
            try:
                data = q.get(None, md, pymqi.GMO(Options=options))
            except pymqi.MQMIError:
                return out
            if md.Persistence == PERSISTENT or not persistent_only:
                out.append(data)
            options = CMQC.MQGMO_BROWSE_NEXT

    for round_no in range(4):
        for _ in range(25):
            put(q, b"r%d-%d" % (round_no, n), PERSISTENT if n % 3 else NOT_PERSISTENT)
            n += 1
        for _ in range(10):
            q.get()
        in_flight = q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        plog.checkpointer.checkpoint()  # with a get in flight: the replay point holds
        q._qmgr.backout()
        assert in_flight in browse(persistent_only=False)
        # recovery sees the same messages in put order; the queue delivers them by priority
        assert sorted(live()) == sorted(browse())
    home.restart()
    restored = [d for d, _ in drain(home.queue("APP.Q"))]
    assert len(restored) == len(set(restored)) > 0


def test_clear_ql_removes_persistent_messages_for_good(home):
    q = home.queue("APP.Q")
    for i in range(5):
        put(q, b"m%d" % i)
    q.close()  # CLEAR is refused while the queue is open
    assert home.mqsc("ZMQSC CLEAR QL-APP.Q")[0].startswith("MQSC0030I")
    home.restart()
    assert drain(home.queue("APP.Q")) == []


def test_an_expired_persistent_message_is_not_restored(home):
    q = home.queue("APP.Q")
    put(q, b"short", Expiry=2)  # 0.2 s
    put(q, b"long", Expiry=600)
    time.sleep(0.3)
    assert q.get() == b"long"  # the expired one is discarded on the way
    home.restart()
    assert drain(home.queue("APP.Q")) == []


def test_a_message_that_expired_while_down_is_discarded(home):
    put(home.queue("APP.Q"), b"short", Expiry=2)
    home.system.stop()
    time.sleep(0.3)
    home.boot()
    assert drain(home.queue("APP.Q")) == []


def test_a_queue_altered_below_its_depth_keeps_its_messages(home):
    q = home.queue("APP.Q")
    for i in range(5):
        put(q, b"m%d" % i)
    home.mqsc("ZMQSC ALT QL-APP.Q MAXDEPTH-2")
    home.restart()
    assert len(drain(home.queue("APP.Q"))) == 5


def test_definitions_survive_a_restart(home):
    home.mqsc(
        "ZMQSC DEF PROC-APP.PROC APPLID-QZZ1",
        "ZMQSC DEF QL-TRIG.Q MAXDEPTH-77 TRIGTYPE-EVERY PROCESS-APP.PROC",
        "ZMQSC DEF QA-ALIAS.Q TARGQ-APP.Q",
        "ZMQSC DEF QL-GONE.Q",
        "ZMQSC ALT QL-APP.Q MAXDEPTH-1234",
        "ZMQSC DEL QL-GONE.Q",
    )
    shown = home.mqsc("ZMQSC DISP QL-*", "ZMQSC DISP QA-*", "ZMQSC DISP PROC-*")
    home.restart()
    after = home.mqsc("ZMQSC DISP QL-*", "ZMQSC DISP QA-*", "ZMQSC DISP PROC-*")
    assert after == shown
    assert "GONE.Q" not in after[0]
    assert "1234" in after[0]


def test_messages_of_a_queue_deleted_offline_are_reported(home, tmp_path):
    put(home.queue("APP.Q"), b"orphan")
    home.system.stop()
    from tpfemu.store.definitions import DefinitionStore

    with DefinitionStore(tmp_path) as store:
        store.remove("QL", "APP.Q")
    system = home.boot()
    assert any("APP.Q" in line and "not restored" in line for line in system.log)


def test_a_full_log_is_storage_full_and_nothing_is_half_done(home, monkeypatch):
    """The log's map cannot grow past its ceiling: the MQPUT that does not fit fails with
    2192 and is not on the queue; every put acknowledged before comes back."""
    home.system.stop()
    small = functools.partial(persistence_module.RecoveryLog, map_size=MiB, max_map_size=MiB,
                              preformat=0)
    monkeypatch.setattr(persistence_module, "RecoveryLog", small)
    home.boot(checkpoint_interval=3600)
    q = home.queue("APP.Q")
    acknowledged = 0
    with pytest.raises(pymqi.MQMIError) as failed:
        for i in range(5000):
            put(q, bytes(1000) + b"%d" % i)
            acknowledged += 1
    assert failed.value.reason == CMQC.MQRC_STORAGE_MEDIUM_FULL
    assert 0 < acknowledged < 5000
    assert home.system.qmgr.local_queue("APP.Q").core.depth == acknowledged
    # a unit of work that cannot be logged is backed out at MQCMIT: warning 2003
    q.put(b"x" * 900, pymqi.MD(Persistence=PERSISTENT), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    with pytest.raises(pymqi.MQMIError) as commit_failed:
        q._qmgr.commit()
    assert (commit_failed.value.comp, commit_failed.value.reason) == (
        CMQC.MQCC_WARNING, CMQC.MQRC_BACKED_OUT)
    assert home.system.qmgr.local_queue("APP.Q").core.depth == acknowledged
    home.system.stop()
    monkeypatch.undo()
    home.boot()
    assert len(drain(home.queue("APP.Q"))) == acknowledged


def test_a_persistent_expiration_report_survives(home):
    """Reports the queue manager makes are logged like any persistent put: an expiration
    report of a persistent message is still on its reply queue after a restart."""
    home.mqsc("ZMQSC DEF QL-REPLY.Q")
    q = home.queue("APP.Q")
    put(q, b"short", Expiry=1, Report=CMQC.MQRO_EXPIRATION, ReplyToQ=b"REPLY.Q")
    time.sleep(0.2)
    assert drain(q) == []  # discarded on the way, and reported
    home.restart()
    [(data, md)] = drain(home.queue("REPLY.Q"))
    assert md.Feedback == CMQC.MQFB_EXPIRATION and md.Persistence == PERSISTENT


def test_truncated_get_in_flight_keeps_the_whole_message_for_checkpoints(home):
    """A persistent message got truncated (ACCEPT_TRUNCATED_MSG) in a unit of work is
    still whole in a checkpoint taken meanwhile; backed out, it comes back whole."""
    q = home.queue("APP.Q")
    put(q, b"0123456789" * 10)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
    with pytest.raises(pymqi.MQMIError) as warned:
        q.get(10, pymqi.MD(), gmo)
    assert warned.value.reason == CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
    home.system.qmgr.persistence.checkpointer.checkpoint()
    q._qmgr.backout()
    home.restart()
    [(data, md)] = drain(home.queue("APP.Q"))
    assert data == b"0123456789" * 10 and md.BackoutCount == 1


def test_restart_puts_messages_back_in_batches_with_their_descriptors(home, monkeypatch):
    """Restart puts the recovered messages back several per call into the core, a
    checkpoint chunk per call; they come back as they were: priority order then put
    order, MsgId, CorrelId, priority, context, remaining expiry and backout count (the
    messages with one in the batches with the others)."""
    monkeypatch.setattr(checkpoint_module, "CHUNK_MESSAGES", 4)
    batches: list[int] = []
    put_chunk = persistence_module._put_chunk

    def counting(queue, core, chunk):
        batches.append(len(chunk_keys(chunk)))
        put_chunk(queue, core, chunk)

    monkeypatch.setattr(persistence_module, "_put_chunk", counting)
    q = home.queue("APP.Q")
    sent = {}
    for i in range(23):
        data = b"msg-%02d" % i
        persistence = NOT_PERSISTENT if i == 5 else PERSISTENT
        sent[data] = put(q, data, persistence, Priority=i % 3, CorrelId=b"CORR%d" % i,
                         ReplyToQ=b"REPLY.Q%d" % i, Expiry=-1 if i % 2 else 60000)
    backouts = {b"msg-06": 2, b"msg-10": 1}
    for data, times in backouts.items():
        for _ in range(times):
            gmo = pymqi.GMO(Version=2, Options=CMQC.MQGMO_SYNCPOINT,
                            MatchOptions=CMQC.MQMO_MATCH_MSG_ID)
            assert q.get(None, pymqi.MD(MsgId=sent[data].MsgId), gmo) == data
            q._qmgr.backout()
    home.restart()
    got = drain(home.queue("APP.Q"))
    expected = sorted((d for d in sent if d != b"msg-05"), key=lambda d: -sent[d].Priority)
    assert [data for data, _ in got] == expected  # stable sort: put order within a priority
    for data, md in got:
        put_md = sent[data]
        assert (md.MsgId, md.Priority, md.Persistence) == (put_md.MsgId, put_md.Priority,
                                                           PERSISTENT)
        assert md.CorrelId == bytes(put_md.CorrelId).ljust(24, b"\0")
        assert md.ReplyToQ.rstrip() == b"REPLY.Q%d" % int(data[4:])
        assert (md.PutDate, md.PutTime) == (put_md.PutDate, put_md.PutTime)
        if put_md.Expiry == -1:
            assert md.Expiry == -1
        else:
            assert 0 < md.Expiry <= 60000
        assert md.BackoutCount == backouts.get(data, 0)
    # 22 messages in the checkpoint's chunks of 4
    assert batches == [4, 4, 4, 4, 4, 2]


def test_restart_refused_by_the_core_fails_as_one_at_a_time(home):
    """A batch the core refuses is put one message at a time: the messages before the one
    at fault are on the queue, and its error is raised, as without batches."""
    from tpfemu.store.message import NEVER, StoredMessage

    queue = home.system.qmgr.local_queue("APP.Q")
    messages = [StoredMessage(100 + i, b"ID%022d" % i, bytes(24), 9 if i != 6 else 12, NEVER,
                              1_000 + i, 0, 0, memoryview(b"data-%d" % i)) for i in range(10)]
    with pytest.raises(persistence_module.errors.PriorityError):
        persistence_module.QueuePersistence._restore_queue(queue, [messages])
    assert queue.core.depth == 6
    assert sorted(queue.log_keys.values()) == [100, 101, 102, 103, 104, 105]
    with queue.core.cursor() as cursor:
        assert [m.data for m in cursor] == [b"data-%d" % i for i in range(6)]


def test_restart_packs_recovered_lists_a_batch_at_a_time(home, monkeypatch):
    """Messages recovered from the log (not in a checkpoint chunk) go back RESTORE_BATCH
    per call into the core, each with its descriptor, key and backout count."""
    from tpfemu.store.message import NEVER, StoredMessage

    monkeypatch.setattr(persistence_module, "RESTORE_BATCH", 4)
    calls: list[int] = []
    put_chunk = persistence_module._put_chunk
    monkeypatch.setattr(persistence_module, "_put_chunk", lambda queue, core, chunk: (
        calls.append(len(chunk_keys(chunk))), put_chunk(queue, core, chunk)))  # fmt: skip
    queue = home.system.qmgr.local_queue("APP.Q")
    messages = [StoredMessage(200 + i, b"ID%022d" % i, b"C%023d" % i, i % 3,
                              NEVER if i else 2**62, 1_000 + i, 1, i % 2,
                              memoryview(b"Xdata-%d" % i)) for i in range(10)]  # fmt: skip
    assert persistence_module.QueuePersistence._restore_queue(queue, [messages[:7],
                                                                      messages[7:]]) == 10
    assert calls == [4, 3, 3] and queue.expiring
    with queue.core.cursor() as cursor:
        got = {bytes(m.data): m.descriptor for m in cursor}
    for m in messages:
        d = got[bytes(m.data)]
        assert (d.msg_id, d.correl_id, d.priority, d.expiry, d.put_time, d.ctx_len,
                d.backout_count) == m[1:8]
        assert queue.log_keys[d.seq] == m.key


def test_shared_queue_takes_plain_and_md_calls_in_any_order(home):
    """A COMMON YES queue's storage is the TPFCS store, which the MQI's C fast paths for
    calls with an MD cannot serve: whatever plan an earlier call made, puts and gets with
    and without an MD work on it."""
    home.mqsc("ZMQSC DEF QL-SHR.Q COMMON-YES")
    q = home.queue("SHR.Q")
    q.put(b"plain 1")
    q.put(b"md 1", pymqi.MD(Priority=3))
    q.put(b"plain 2")
    md = pymqi.MD()
    assert q.get(None, md) == b"md 1" and md.Priority == 3
    assert q.get() == b"plain 1"
    md = pymqi.MD()
    assert q.get(None, md) == b"plain 2" and md.Priority == 0
    q.close()


def test_with_a_home_only_persistent_gets_take_the_logged_path(tmp_path, monkeypatch):
    """With a home (and the journal off, so nobody listens), a get of a non-persistent
    message is served by the MQI's fast path, with or without an MD; a get of a
    persistent one is logged, by the plan's log port with an MD and by the full path
    without one, so it is gone after a restart."""
    from tpfemu.qmgr import mqget

    h = Home(tmp_path)
    h.boot(journal="off")
    h.mqsc("ZMQSC DEF MQP", "ZMQSC DEF QL-APP.Q")
    q = h.queue("APP.Q")
    put(q, b"warm", NOT_PERSISTENT)
    q.get(None, pymqi.MD())  # the handle's get plan
    for body, persistence in ((b"np1", NOT_PERSISTENT), (b"p1", PERSISTENT),
                              (b"np2", NOT_PERSISTENT), (b"p2", PERSISTENT),
                              (b"p3", PERSISTENT)):
        put(q, body, persistence)
    full_gets = []
    real = mqget.get_full
    monkeypatch.setattr(mqget, "get_full",
                        lambda *a, **kw: full_gets.append(1) or real(*a, **kw))
    md = pymqi.MD()
    got = [q.get(None, md), q.get(None, pymqi.MD()), q.get(), q.get()]
    assert got == [b"np1", b"p1", b"np2", b"p2"] and md.Persistence == NOT_PERSISTENT
    assert len(full_gets) == 1  # p2 (no MD); p1 by the plan, through its log port
    q.close()
    h.restart(journal="off")
    assert [body for body, _ in drain(h.queue("APP.Q"))] == [b"p3"]
    h.system.stop()
    h.system = None
