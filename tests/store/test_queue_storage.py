"""The QueueStorage contract: the memory queue and the shared queue behave the same.

Every case runs on the memory queue of the C core (:class:`CoreQueue`) and on a
processor-shared queue (:class:`SharedQueue`) through one parametrized fixture, and must
give the same results, reason codes and descriptors. Where the two really differ, the case
says so, and docs/deviations.md names it.
"""

from __future__ import annotations

import inspect
import itertools
import time

import pytest
from store_helpers import cid, drain, mid

from tpfemu import errors
from tpfemu._lowlevel import MQGMO, NEVER, CoreQueue, Cursor, check_get_options
from tpfemu.mq import cmqc
from tpfemu.store.shared import SharedCursor, SharedQueue, SharedQueueStore
from tpfemu.store.storage import QueueStorage, StorageCursor

PREFIX = b"AMQ TPF1".ljust(16)


@pytest.fixture(params=["core", "shared"])
def make(request, tmp_path):
    """A factory of empty queues of the kind under test, closed after the test."""
    made = []
    space = None
    if request.param == "core":
        def factory(**settings):
            q = CoreQueue("T.Q", msgid_prefix=PREFIX, **settings)
            made.append(q)
            return q
    else:
        space = SharedQueueStore.open(tmp_path / "home", "B", durable=False)
        names = itertools.count(1)

        def factory(**settings):
            q = space.queue(f"T.Q{next(names)}", msgid_prefix=PREFIX, **settings)
            made.append(q)
            return q
    factory.kind = request.param
    yield factory
    for q in made:
        q.close()
    if space is not None:
        space.close()


# --- the contract: the same behaviour on CoreQueue and SharedQueue ----------------------------


def test_priority_order_then_fifo(make):
    """Messages come out by priority, highest first, and in arrival order within one."""
    q = make()
    for i, p in enumerate([0, 5, 9, 5, 0, 9]):
        q.put(f"{p}-{i}".encode(), p)
    assert drain(q) == [b"9-2", b"9-5", b"5-1", b"5-3", b"0-0", b"0-4"]
    with pytest.raises(errors.NoMessageAvailable) as exc:
        q.get()
    assert exc.value.reason == cmqc.MQRC_NO_MSG_AVAILABLE


def test_fifo_delivery_keeps_priority_in_descriptor_and_no_reorder_on_configure(make):
    """FIFO delivery places every message at DEFPRTY yet keeps its own priority in the
    descriptor, and a later configure moves nothing."""
    q = make(fifo=True, default_priority=4)
    q.put_message(b"a", priority=1)
    q.put_message(b"b", priority=9)
    q.configure(fifo=False, msgid_prefix=PREFIX)
    q.put_message(b"c", priority=5)  # placed at 5: ahead of the two placed at 4
    q.put_message(b"d", priority=2)
    got = [q.get_message() for _ in range(4)]
    assert [m.data for m in got] == [b"c", b"a", b"b", b"d"]
    assert [m.descriptor.priority for m in got] == [5, 1, 9, 2]


def test_put_message_descriptor_and_generated_ids(make):
    """put_message stores the whole descriptor, generates unique prefixed MsgIds and stamps the
    put time when none is given."""
    q = make()
    m1, s1 = q.put_message(b"x" * 10, priority=3, persistent=True, correl_id=cid(1),
                           ctx_len=4, put_time=1234)
    m2, s2 = q.put_message(b"y", msg_id=mid(2))
    assert m1[:16] == PREFIX and m1 != bytes(24) and m2 == mid(2)
    assert s2 == s1 + 1
    d = q.get_message().descriptor
    assert (d.msg_id, d.correl_id, d.priority, d.persistent, d.expiry, d.put_time,
            d.ctx_len, d.seq, d.uow, d.backout_count, d.length) == \
        (m1, cid(1), 3, True, NEVER, 1234, 4, s1, 0, 0, 10)
    now = time.time_ns() // 1000
    assert abs(q.get_message().descriptor.put_time - now) < 5_000_000  # 0 = now
    ids = {q.put_message(b"z")[0] for _ in range(50)}
    assert len(ids) == 50


def test_get_body_leaves_out_the_context_record(make):
    """get_body returns the data after the context record; get returns it whole."""
    q = make()
    q.put_message(b"CTXhello", ctx_len=3)
    q.put_message(b"CTXworld", ctx_len=3)
    assert q.get_body() == b"hello"
    assert q.get() == b"CTXworld"


def test_matching_on_msgid_and_correlid(make):
    """A get matches on MsgId, CorrelId or both; all zeros match any; a malformed id is refused."""
    q = make()
    for i in range(1, 5):
        q.put_message(f"m{i}".encode(), msg_id=mid(i), correl_id=cid(i % 2))
    assert q.get_message(msg_id=mid(3)).data == b"m3"
    assert q.get_message(correl_id=cid(1)).data == b"m1"
    assert q.get_message(msg_id=mid(4), correl_id=cid(0)).data == b"m4"
    with pytest.raises(errors.NoMessageAvailable):
        q.get_message(msg_id=mid(2), correl_id=cid(1))
    with pytest.raises(errors.NoMessageAvailable):
        q.get_message(msg_id=mid(9))
    assert q.get_message(msg_id=bytes(24)).data == b"m2"  # MQMI_NONE matches any
    assert q.depth == 0
    with pytest.raises(ValueError):
        q.get_message(msg_id=b"short")


def test_matching_through_units_of_work_cursors_and_purge(make):
    """Matched gets skip messages hidden by units of work, follow cursors, and see purge and
    commit."""
    q = make()
    for i in range(30):
        q.put_message(f"m{i}".encode(), msg_id=mid(i), correl_id=cid(i % 3))
    assert q.get_message(correl_id=cid(1), uow=1).data == b"m1"
    assert q.get_message(correl_id=cid(1)).data == b"m4"  # m1 is hidden
    assert q.backout(1) == 1
    again = q.get_message(correl_id=cid(1))
    assert again.data == b"m1" and again.descriptor.backout_count == 1
    c = q.cursor()
    assert c.first(correl_id=cid(2)).data == b"m2"
    assert c.next(correl_id=cid(2)).data == b"m5"
    assert c.take().data == b"m5"
    assert c.next(correl_id=cid(2)).data == b"m8"
    with pytest.raises(errors.NoMessageAvailable):
        c.next(msg_id=mid(3))  # m3 is behind the cursor
    assert q.get_message(msg_id=mid(8), correl_id=cid(2)).data == b"m8"
    with pytest.raises(errors.NoMessageAvailable):
        q.get_message(msg_id=mid(8))
    q.put_message(b"late", msg_id=mid(8), correl_id=cid(7), uow=2)
    with pytest.raises(errors.NoMessageAvailable):
        q.get_message(msg_id=mid(8))
    assert q.purge() == 26
    with pytest.raises(errors.NoMessageAvailable):
        q.get_message(correl_id=cid(0))
    q.commit(2)
    q.put_message(b"new", msg_id=mid(0), correl_id=cid(0))
    assert q.get_message(correl_id=cid(7)).data == b"late"
    assert q.get_message(msg_id=mid(0), correl_id=cid(0)).data == b"new"
    assert q.depth == 0
    c.close()


def test_put_in_a_unit_of_work_is_invisible_until_commit(make):
    """A put in a unit of work counts in CURDEPTH but no getter sees it until the commit."""
    q = make()
    q.put(b"a", 0, 7)
    q.put_message(b"b", priority=5, uow=7)
    q.put(b"c", 1)
    assert q.depth == 3  # CURDEPTH counts uncommitted puts
    assert q.depth_at_least(0) == 3
    assert q.depth_at_least(0, committed_only=True) == 1
    assert q.depth_at_least(2, committed_only=True) == 0
    assert q.get_message(uow=7).data == b"c"  # not even the same unit of work sees them
    with pytest.raises(errors.NoMessageAvailable):
        q.get()
    assert q.commit(7) == 3  # two puts and the get
    assert drain(q) == [b"b", b"a"]
    assert q.commit(7) == 0


def test_backout_of_a_put_removes_it(make):
    """Backing out a put removes the message; unit of work 0 cannot be committed."""
    q = make()
    q.put(b"keep", 0)
    q.put(b"drop", 9, 3)
    assert q.backout(3) == 1
    assert q.depth == 1 and drain(q) == [b"keep"]
    with pytest.raises(ValueError):
        q.commit(0)


def test_get_in_a_unit_of_work_hides_then_commit_or_backout(make):
    """A get in a unit of work hides the message; backout restores it in place with its backout
    count raised, commit removes it."""
    q = make()
    for x in (b"a", b"b", b"c"):
        q.put(x, 0)
    assert q.get_message(uow=5).data == b"a"
    assert q.depth == 3 and q.depth_at_least(0, without_gets=True) == 2
    assert q.get() == b"b"  # a is hidden
    assert q.backout(5) == 1
    back = q.get_message(uow=6)
    assert back.data == b"a" and back.descriptor.backout_count == 1  # in its old place
    assert q.commit(6) == 1
    assert q.depth == 1 and drain(q) == [b"c"]
    assert q.stats()["gets"] >= 4


def test_two_units_of_work_are_independent(make):
    """Two units of work on one queue commit and back out independently."""
    q = make()
    q.put(b"a", 0)
    q.put(b"b", 0)
    assert q.get_message(uow=1).data == b"a"
    assert q.get_message(uow=2).data == b"b"
    q.put(b"c", 0, 2)
    assert q.backout(1) == 1
    assert q.commit(2) == 2
    assert drain(q) == [b"a", b"c"]


def test_browse_cursor(make):
    """A browse cursor walks delivery order, stays after the last message, and continues after a
    message got by someone else."""
    q = make()
    for i in range(3):
        q.put(f"m{i}".encode(), 0)
    c = q.cursor()
    assert [m.data for m in c] == [b"m0", b"m1", b"m2"]
    assert q.depth == 3
    with pytest.raises(errors.NoMessageAvailable):
        c.next()  # stays after the last ...
    q.put(b"m3", 0)
    q.put(b"hi", 9)  # ... so a later put is found; one of higher priority behind it is not
    assert c.next().data == b"m3"
    assert c.current().data == b"m3"
    assert c.first().data == b"hi"
    assert c.next().data == b"m0"
    assert q.get() == b"hi"
    assert q.get() == b"m0"  # the message under the cursor is got by someone else
    with pytest.raises(errors.NoMessageUnderCursor):
        c.current()
    assert c.next().data == b"m1"  # BROWSE_NEXT continues after its place
    assert c.take().data == b"m1"  # MSG_UNDER_CURSOR
    with pytest.raises(errors.NoMessageUnderCursor):
        c.take()
    assert c.next(msg_id=None).data == b"m2"
    c.close()
    assert drain(q) == [b"m2", b"m3"]


def test_browse_with_matching_and_under_cursor_in_a_unit_of_work(make):
    """Browsing matches ids, and a get under the cursor in a unit of work is restored under it
    by backout."""
    q = make()
    for i in range(4):
        q.put_message(f"m{i}".encode(), correl_id=cid(i % 2))
    c = q.cursor()
    assert c.first(correl_id=cid(1)).data == b"m1"
    assert c.next(correl_id=cid(1)).data == b"m3"
    with pytest.raises(errors.NoMessageAvailable):
        c.next(correl_id=cid(1))
    got = q.get_message(cursor=c, options=MQGMO["MQGMO_MSG_UNDER_CURSOR"], uow=4)
    assert got.data == b"m3"
    assert q.backout(4) == 1
    assert c.current().descriptor.backout_count == 1
    c.close()


def test_browse_locks(make):
    """MQGMO_LOCK hides a message from other gets and cursors until unlock, a new lock, a get
    through its cursor, or the cursor's close."""
    q = make()
    for i in range(4):
        q.put(f"m{i}".encode(), 0)
    c1, c2 = q.cursor(), q.cursor()
    assert c1.first(lock=True).data == b"m0"
    assert q.get() == b"m1"  # the locked message is hidden from other gets ...
    assert c2.first().data == b"m2"  # ... and from other cursors
    assert c1.current().data == b"m0"  # not from its own cursor
    c1.unlock()
    with pytest.raises(errors.NoMessageLocked):
        c1.unlock()
    assert c2.first().data == b"m0"
    assert c1.first(lock=True).data == b"m0"
    assert c1.next(lock=True).data == b"m2"  # a new lock releases the old one
    assert c2.first().data == b"m0"
    # a get through the handle whose cursor holds the lock may take the locked message
    assert q.get_message(cursor=c1, msg_id=None).data == b"m0"
    assert q.get_message(cursor=c1).data == b"m2"
    with pytest.raises(errors.NoMessageLocked):
        c1.unlock()  # got: no longer locked
    assert c2.first(lock=True).data == b"m3"
    c2.close()  # closing a cursor releases its lock
    assert q.get() == b"m3"
    c1.close()


def test_cursor_option_errors(make):
    """Conflicting cursor options, or cursor options without a cursor, fail with OptionsError
    and change nothing."""
    q = make()
    q.put(b"x", 0)
    for opts in (MQGMO["MQGMO_BROWSE_FIRST"], MQGMO["MQGMO_LOCK"],
                 MQGMO["MQGMO_BROWSE_FIRST"] | MQGMO["MQGMO_BROWSE_NEXT"]):
        with pytest.raises(errors.OptionsError):
            q.get_message(options=opts, cursor=None if opts != MQGMO["MQGMO_LOCK"]
                          else q.cursor())
    c = q.cursor()
    with pytest.raises(errors.OptionsError):
        q.get_message(cursor=c, options=MQGMO["MQGMO_BROWSE_FIRST"] | MQGMO["MQGMO_UNLOCK"])
    assert q.depth == 1


def test_truncation(make):
    """A too-small buffer fails and leaves the message, unless truncation is accepted; cap_body
    leaves the context record whole."""
    q = make()
    q.put_message(b"0123456789")
    with pytest.raises(errors.TruncatedMessage) as exc:
        q.get_message(max_length=4)
    assert exc.value.reason == cmqc.MQRC_TRUNCATED_MSG_FAILED
    assert exc.value.original_length == 10 and exc.value.descriptor.length == 10
    assert q.depth == 1  # the message stays
    msg = q.get_message(max_length=4, accept_truncated=True)
    assert msg.data == b"0123" and msg.reason == cmqc.MQRC_TRUNCATED_MSG_ACCEPTED
    assert msg.descriptor.length == 10 and q.depth == 0
    q.put_message(b"CTXbody!", ctx_len=3)
    with pytest.raises(errors.TruncatedMessage) as exc:
        q.get_message(max_length=2, cap_body=True)
    assert exc.value.original_length == 5 and exc.value.context_record == b"CTX"
    c = q.cursor()
    with pytest.raises(errors.TruncatedMessage):
        c.first(max_length=1)
    assert c.current().data == b"CTXbody!"  # a failed browse still moves the cursor
    msg = q.get_message(max_length=2, cap_body=True, accept_truncated=True)
    assert msg.data == b"CTXbo" and msg.reason == cmqc.MQRC_TRUNCATED_MSG_ACCEPTED
    q.put_message(b"fits")
    assert q.get_message(max_length=4).data == b"fits"
    c.close()


def test_expiry(make):
    """A get discards expired messages ahead of the one it returns; discard_expired and
    take_expired handle the rest."""
    q = make()
    now = time.time_ns() // 1000
    q.put_message(b"old-9", priority=9, expiry=now - 1)
    q.put_message(b"live-5", priority=5, expiry=now + 3600 * 10**6)
    q.put_message(b"old-0", priority=0, expiry=now - 1)
    assert q.depth == 3
    assert q.get_message(now=now).data == b"live-5"  # discards the expired one before it
    assert q.depth == 1  # old-0 is behind: not discarded yet
    expired = q.take_expired()
    assert expired.data == b"old-9" and expired.descriptor.priority == 9
    assert q.take_expired() is None
    assert q.discard_expired(now) == 1
    assert q.depth == 0 and q.take_expired().data == b"old-0"
    with pytest.raises(errors.ExpiryError):
        q.put_message(b"x", expiry=0)


def test_expiry_with_matching_cursors_and_units_of_work(make):
    """Matched gets and cursors discard expired messages; a message held by a unit of work is
    not discarded until committed."""
    q = make()
    now = time.time_ns() // 1000
    q.put_message(b"a", msg_id=mid(1), expiry=now + 10)
    q.put_message(b"b", msg_id=mid(1))
    q.put_message(b"c", msg_id=mid(2), expiry=now + 10)
    q.put_message(b"d", msg_id=mid(3), expiry=now + 10, uow=4)
    assert q.get_message(msg_id=mid(1), now=now + 20).data == b"b"
    assert q.depth == 2 and q.take_expired().data == b"a"
    c = q.cursor()
    assert c.first(now=now).data == b"c"
    with pytest.raises(errors.NoMessageUnderCursor):
        c.current(now=now + 20)  # expired under the cursor (seed 001, note 6)
    assert q.take_expired().data == b"c"
    assert q.discard_expired(now + 20) == 0  # held by a unit of work
    assert q.commit(4) == 1
    assert q.discard_expired(now + 20) == 1
    assert q.depth == 0
    c.close()


def test_purge_leaves_units_of_work(make):
    """purge removes committed messages (a locked one too) but leaves those held by units of
    work."""
    q = make()
    q.put(b"a", 0)
    q.put(b"b", 0)
    q.put(b"c", 0, 1)
    assert q.get_message(uow=2).data == b"a"
    c = q.cursor()
    assert c.first(lock=True).data == b"b"
    assert q.purge() == 1  # b (locked, but committed); not a (got) nor c (uncommitted)
    assert q.depth == 2
    with pytest.raises(errors.NoMessageLocked):
        c.unlock()
    assert q.backout(2) == 1 and q.commit(1) == 1
    assert drain(q) == [b"a", b"c"]
    c.close()


def test_limits(make):
    """MAXDEPTH, MAXMSGL and the priority range are enforced, uncommitted puts count in depth,
    and configure lifts the limits."""
    q = make(max_depth=2, max_msg_length=5)
    with pytest.raises(errors.MessageTooBig) as exc:
        q.put(b"123456", 0)
    assert exc.value.reason == cmqc.MQRC_MSG_TOO_BIG_FOR_Q
    q.put(b"1", 0)
    q.put(b"2", 0, 9)
    with pytest.raises(errors.QueueFull) as exc:
        q.put_message(b"3")
    assert exc.value.reason == cmqc.MQRC_Q_FULL
    with pytest.raises(errors.PriorityError):
        q.put_message(b"x", priority=10)
    q.backout(9)
    q.configure(max_depth=0, max_msg_length=100, msgid_prefix=PREFIX)
    q.put(b"123456", 0)
    assert q.depth == 2
    with pytest.raises(TypeError):
        q.put_message("text")


def test_depth_at_least_by_priority(make):
    """depth_at_least counts messages of a priority or more, with or without uncommitted puts
    and gets."""
    q = make()
    for p in (0, 3, 3, 7, 9):
        q.put(b"x", p)
    q.put(b"y", 8, 1)
    assert [q.depth_at_least(p) for p in (0, 3, 4, 8, 9, 12, -1)] == [6, 5, 3, 2, 1, 1, 6]
    assert q.depth_at_least(8, committed_only=True) == 1
    q.get_message(uow=2)  # takes the 9
    assert q.depth_at_least(9, without_gets=True) == 0
    assert q.depth_at_least(9) == 1
    stats = q.stats()
    assert stats["depth"] == 6 and stats["uncommitted_puts"] == 1
    assert stats["uncommitted_gets"] == 1 and stats["depth_by_priority"][3] == 2


def test_closed_queue_refuses_calls(make):
    """A closed queue refuses calls, and closing it again is allowed."""
    q = make()
    q.put(b"x", 0)
    q.close()
    with pytest.raises(errors.TpfEmuError):
        q.put_message(b"y")
    q.close()  # idempotent


# --- the protocol itself ----------------------------------------------------------------------


def _protocol_members(protocol: type) -> list[str]:
    return sorted(n for n in vars(protocol) if not n.startswith("_") or n in (
        "__enter__", "__exit__", "__iter__"))


def _compatible(expected: inspect.Signature, actual: inspect.Signature) -> list[str]:
    """What keeps ``actual`` from taking every call ``expected`` allows (empty: nothing)."""
    problems = []
    params = actual.parameters
    for name, p in expected.parameters.items():
        if p.kind is p.VAR_POSITIONAL:
            if not any(q.kind is q.VAR_POSITIONAL for q in params.values()):
                problems.append("no *args")
            continue
        q = params.get(name)
        if q is None:
            problems.append(f"no parameter {name}")
        elif q.kind is not p.kind:
            problems.append(f"{name} is {q.kind.description}, not {p.kind.description}")
        elif q.default != p.default:
            problems.append(f"{name} defaults to {q.default!r}, not {p.default!r}")
    for name, q in params.items():
        if name not in expected.parameters and q.default is q.empty \
                and q.kind not in (q.VAR_POSITIONAL, q.VAR_KEYWORD):
            problems.append(f"extra parameter {name} without a default")
    return problems


@pytest.mark.parametrize("impl,protocol", [(CoreQueue, QueueStorage),
                                           (SharedQueue, QueueStorage),
                                           (Cursor, StorageCursor),
                                           (SharedCursor, StorageCursor)],
                         ids=["CoreQueue", "SharedQueue", "Cursor", "SharedCursor"])
def test_each_storage_class_has_the_protocols_signatures(impl, protocol):
    """Every member of the protocol is on the class, a property where the protocol has one,
    and takes every call the protocol's signature allows."""
    problems = []
    for name in _protocol_members(protocol):
        expected = getattr(protocol, name)
        actual = getattr(impl, name, None)
        if actual is None:
            problems.append(f"{name}: missing")
        elif isinstance(expected, property):
            if not isinstance(actual, property):
                problems.append(f"{name}: not a property")
        elif callable(expected):
            problems += [f"{name}: {p}" for p in _compatible(inspect.signature(expected),
                                                             inspect.signature(actual))]
    assert not problems, "\n".join(problems)


def test_the_signature_check_catches_a_mismatch():
    """The signature check refuses a method whose parameter has another default or kind."""
    def put(self, data: bytes, priority: int = 0, uow: int = 0) -> None: ...

    def bad_default(self, data: bytes, priority: int = 5, uow: int = 0) -> None: ...

    def bad_kind(self, data: bytes, *, priority: int = 0, uow: int = 0) -> None: ...

    def extra(self, data: bytes, priority: int = 0, uow: int = 0, log=None) -> None: ...

    expected = inspect.signature(put)
    assert _compatible(expected, inspect.signature(bad_default))
    assert _compatible(expected, inspect.signature(bad_kind))
    assert _compatible(expected, inspect.signature(extra)) == []


def test_both_storages_and_cursors_are_queue_storage_at_run_time(make):
    """A live queue of either kind is a QueueStorage and its cursor a StorageCursor."""
    q = make()
    assert isinstance(q, QueueStorage)
    c = q.cursor()
    assert isinstance(c, StorageCursor)
    c.close()
    assert not isinstance(object(), QueueStorage)


# --- where the two differ ---------------------------------------------------------------------


def test_closing_frees_a_memory_queues_messages_but_not_a_shared_queues(make, tmp_path):
    """DIFFERENCE (docs/deviations.md, processor-shared queues): closing a memory queue
    frees its messages, non-persistent ones included; a shared queue's stay in the store
    and a new handle on the queue sees them."""
    q = make()
    q.put(b"kept?", 0)
    q.put_message(b"persistent", persistent=True)
    q.close()
    if make.kind == "core":
        with pytest.raises(errors.TpfEmuError):
            q.depth  # noqa: B018 - the memory is gone with the queue
        return
    again = q.space.queue(q.name)
    assert again.depth == 2
    assert drain(again) == [b"kept?", b"persistent"]


# --- MQGET's option rule, stated once in the core ---------------------------------------------


@pytest.mark.parametrize("names,has_cursor,ok", [
    ((), False, True),
    (("BROWSE_FIRST",), True, True),
    (("BROWSE_FIRST",), False, False),  # a cursor option needs a cursor
    (("BROWSE_FIRST", "BROWSE_NEXT"), True, False),  # two browse options
    (("MSG_UNDER_CURSOR", "BROWSE_NEXT"), True, False),
    (("BROWSE_NEXT", "LOCK"), True, True),
    (("LOCK",), True, False),  # a lock needs a browse
    (("BROWSE_FIRST", "LOCK", "UNLOCK"), True, False),
    (("UNLOCK",), True, True),
    (("UNLOCK", "MSG_UNDER_CURSOR"), True, False),
    (("ACCEPT_TRUNCATED_MSG", "SYNCPOINT"), False, True),  # other bits are not its business
])
def test_one_option_rule_for_both_storages(make, names, has_cursor, ok):
    """The core's check_get_options decides MQGET's cursor-option conflicts, and both
    storages refuse exactly what it refuses, with MQRC_OPTIONS_ERROR and nothing changed."""
    options = 0
    for n in names:
        options |= getattr(cmqc, f"MQGMO_{n}")
    rc = check_get_options(options, has_cursor)
    assert rc == (0 if ok else cmqc.MQRC_OPTIONS_ERROR)
    q = make()
    q.put(b"x", 0)
    c = q.cursor() if has_cursor else None
    if ok:
        try:
            q.get_message(options=options, cursor=c)
        except errors.MQMIError as exc:
            assert exc.reason != cmqc.MQRC_OPTIONS_ERROR
    else:
        with pytest.raises(errors.OptionsError):
            q.get_message(options=options, cursor=c)
        assert q.depth == 1
    if c is not None:
        c.close()
