"""Every entry point of the core through tpfemu._lowlevel: success and each reason code."""

import ctypes
import struct

import pytest

from tpfemu import errors
from tpfemu._lowlevel import MQRC, NEVER, CoreQueue
from tpfemu.store.message import StoredMessage, encode_chunk

S = 1_000_000  # microseconds per second


def ident(n: int, tag: bytes = b"M") -> bytes:
    return (tag + str(n).encode()).ljust(24, b".")


# -- create / configure -------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"max_depth": -1}, "max_depth"),
        ({"max_msg_length": 0}, "max_msg_length"),
        ({"default_priority": 10}, "default_priority"),
        ({"msgid_prefix": b"x" * 17}, "msgid_prefix"),
    ],
)
def test_bad_settings_are_refused_by_name(kwargs, word):
    """A queue setting out of range is refused with an error that names the setting."""
    with pytest.raises(ValueError, match=word):
        CoreQueue("BAD", **kwargs)


def test_closed_queue_refuses_calls():
    """Every call on a closed queue raises a clear error instead of reaching C."""
    q = CoreQueue("GONE")
    q.put(b"x")
    q.close()
    q.close()  # closing twice is harmless
    for call in (lambda: q.put(b"x"), q.get, lambda: q.depth, q.cursor, q.purge):
        with pytest.raises(errors.TpfEmuError, match="closed"):
            call()


def test_configure_changes_limits_but_not_existing_order(queue):
    """A lower MAXDEPTH refuses new puts; switching to FIFO does not reorder messages."""
    queue.put(b"p1", 1)
    queue.put(b"p9", 9)
    queue.configure(max_depth=2, fifo=True)
    with pytest.raises(errors.QueueFull):
        queue.put(b"third", 5)
    assert [queue.get(), queue.get()] == [b"p9", b"p1"]


# -- put ----------------------------------------------------------------------------


def test_priority_then_fifo(queue):
    """Gets return the highest priority first and first-in first-out within a priority."""
    for i, prio in enumerate([0, 5, 9, 5, 0, 9]):
        queue.put(f"{prio}-{i}".encode(), prio)
    assert [queue.get() for _ in range(6)] == [
        b"9-2", b"9-5", b"5-1", b"5-3", b"0-0", b"0-4",
    ]


def test_fifo_delivery_keeps_the_message_priority():
    """MSGDLVSQ FIFO returns arrival order while each message keeps its own priority."""
    with CoreQueue("FIFO", fifo=True, default_priority=3) as q:
        q.put_message(b"a", priority=1)
        q.put_message(b"b", priority=9)
        got = [q.get_message() for _ in range(2)]
    assert [(m.data, m.descriptor.priority) for m in got] == [(b"a", 1), (b"b", 9)]


@pytest.mark.parametrize("priority", [-1, 10, 255])
def test_bad_priority_is_mqrc_priority_error(queue, priority):
    """A priority outside 0-9 fails with MQRC_PRIORITY_ERROR and puts nothing."""
    with pytest.raises(errors.PriorityError) as info:
        queue.put(b"x", priority)
    assert info.value.reason == MQRC["MQRC_PRIORITY_ERROR"] == 2050
    assert queue.depth == 0


def test_expiry_must_be_positive(queue):
    """An expiry deadline of zero or less fails with MQRC_EXPIRY_ERROR (seed 001, note 1)."""
    for expiry in (0, -5):
        with pytest.raises(errors.ExpiryError):
            queue.put_message(b"x", expiry=expiry)
    assert queue.depth == 0


def test_message_too_big_for_queue():
    """A message longer than MAXMSGL fails with MQRC_MSG_TOO_BIG_FOR_Q; one at it fits."""
    with CoreQueue("SMALL", max_msg_length=10) as q:
        q.put(b"x" * 10)
        with pytest.raises(errors.MessageTooBig) as info:
            q.put(b"x" * 11)
        assert info.value.reason == 2030 and q.depth == 1


def test_queue_full_at_max_depth():
    """MAXDEPTH counts every message, uncommitted ones too; 0 means unlimited."""
    with CoreQueue("FULL", max_depth=2) as q:
        q.put(b"a")
        q.put(b"b", uow=7)
        with pytest.raises(errors.QueueFull) as info:
            q.put(b"c")
        assert info.value.reason == 2053
        assert "MAXDEPTH" in str(info.value)
    with CoreQueue("UNLIMITED", max_depth=0) as q:
        for _ in range(1000):
            q.put(b"x")
        assert q.depth == 1000


def test_data_must_be_bytes_like(queue):
    """Text is refused with a TypeError saying to encode it; bytes-like objects work."""
    with pytest.raises(TypeError, match="encode"):
        queue.put("text")
    queue.put(bytearray(b"ba"))
    queue.put(memoryview(b"mv"))
    assert [queue.get(), queue.get()] == [b"ba", b"mv"]


def test_generated_msgids_are_unique_and_prefixed():
    """The core gives a message with no MsgId one that starts with the queue's prefix."""
    with CoreQueue("A", msgid_prefix=b"AMQ TPF1") as a, CoreQueue("B") as b:
        ids = [a.put_message(b"x")[0] for _ in range(1000)]
        ids += [b.put_message(b"x")[0] for _ in range(1000)]
    assert len(set(ids)) == 2000
    assert all(i.startswith(b"AMQ TPF1\0\0\0\0\0\0\0\0") for i in ids[:1000])


def test_given_msgid_is_kept(queue):
    """A MsgId given by the application is kept and returned by the get."""
    mid, _ = queue.put_message(b"x", msg_id=ident(1))
    assert mid == ident(1)
    assert queue.get_message().descriptor.msg_id == ident(1)


def test_bad_id_length_is_refused(queue):
    """A MsgId or CorrelId that is not 24 bytes is refused before reaching the core."""
    with pytest.raises(ValueError, match="msg_id"):
        queue.put_message(b"x", msg_id=b"short")
    with pytest.raises(ValueError, match="correl_id"):
        queue.get_message(correl_id=b"x" * 25)


# -- get ----------------------------------------------------------------------------


def test_empty_queue_is_no_msg_available(queue):
    """A get on an empty queue raises NoMessageAvailable (2033), also a LookupError."""
    with pytest.raises(LookupError):
        queue.get()
    with pytest.raises(errors.MQMIError) as info:
        queue.get_message()
    assert (info.value.comp, info.value.reason) == (2, 2033)
    assert str(info.value) == (
        "MQI Error. Comp: 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE (MQGET on 'TEST.Q')"
    )


def test_whole_message_comes_back_whatever_its_size(queue):
    """Without max_length, a get returns the whole message, even past the first buffer."""
    big = bytes(range(256)) * 4096  # 1 MiB, bigger than the 64 KiB first buffer
    queue.put(big)
    queue.put_message(big)
    assert queue.get() == big
    assert queue.get_message().data == big


def test_truncated_failed_leaves_the_message(queue):
    """A too-small buffer fails with 2080 and leaves the message on the queue."""
    queue.put(b"0123456789")
    with pytest.raises(errors.TruncatedMessage) as info:
        queue.get_message(max_length=4)
    assert info.value.reason == 2080
    assert queue.depth == 1 and queue.get() == b"0123456789"


def test_truncated_accepted_is_a_warning_not_an_error(queue):
    """With accept_truncated, the first bytes come back with reason 2079 and it is gone."""
    queue.put(b"0123456789")
    msg = queue.get_message(max_length=4, accept_truncated=True)
    assert msg.data == b"0123" and msg.descriptor.length == 10
    assert msg.reason == MQRC["MQRC_TRUNCATED_MSG_ACCEPTED"] == 2079
    assert queue.depth == 0


def test_zero_length_message(queue):
    """A message of no bytes is put and got like any other."""
    queue.put(b"")
    assert queue.get() == b"" and queue.depth == 0


def test_descriptor_round_trip(queue):
    """A get returns the descriptor that was put: ids, priority, persistence, expiry."""
    mid, seq = queue.put_message(
        b"data", priority=7, persistent=True, expiry=NEVER, msg_id=ident(1),
        correl_id=ident(2, b"C"),
    )
    d = queue.get_message().descriptor
    assert (d.msg_id, d.correl_id, d.priority, d.persistent, d.expiry, d.seq, d.length) == (
        mid, ident(2, b"C"), 7, True, NEVER, seq, 4,
    )


# -- matched gets -------------------------------------------------------------------


def test_get_by_correl_id_returns_first_in_delivery_order(queue):
    """Among messages sharing a CorrelId, a matched get returns the first by priority, FIFO."""
    c = ident(1, b"C")
    queue.put_message(b"other", correl_id=ident(2, b"C"), priority=9)
    queue.put_message(b"c-low-1", correl_id=c, priority=1)
    queue.put_message(b"c-high", correl_id=c, priority=6)
    queue.put_message(b"c-low-2", correl_id=c, priority=1)
    got = [queue.get_message(correl_id=c).data for _ in range(3)]
    assert got == [b"c-high", b"c-low-1", b"c-low-2"]
    with pytest.raises(errors.NoMessageAvailable):
        queue.get_message(correl_id=c)
    assert queue.get() == b"other"


def test_get_by_msg_id_and_both(queue):
    """A get may match MsgId, or MsgId and CorrelId together."""
    queue.put_message(b"a", msg_id=ident(1), correl_id=ident(1, b"C"))
    queue.put_message(b"b", msg_id=ident(2), correl_id=ident(1, b"C"))
    with pytest.raises(errors.NoMessageAvailable):
        queue.get_message(msg_id=ident(1), correl_id=ident(2, b"C"))
    assert queue.get_message(msg_id=ident(2), correl_id=ident(1, b"C")).data == b"b"
    assert queue.get_message(msg_id=ident(1)).data == b"a"


def test_zero_id_matches_any(queue):
    """MQMI_NONE / MQCI_NONE (24 zero bytes) act as wildcards, as IBM documents."""
    queue.put_message(b"x", correl_id=ident(5, b"C"))
    assert queue.get_message(correl_id=bytes(24)).data == b"x"


def test_matched_get_among_many_messages(queue):
    """A matched get finds one message among 100 000 (the index grows as needed)."""
    for i in range(100_000):
        queue.put_message(b"%d" % i, correl_id=ident(i, b"C"))
    assert queue.get_message(correl_id=ident(54_321, b"C")).data == b"54321"
    assert queue.depth == 99_999


# -- browse cursors -----------------------------------------------------------------


def test_browse_walks_without_removing(queue):
    """BROWSE_FIRST/NEXT return messages in delivery order and leave them on the queue."""
    for i, prio in enumerate([1, 8, 4]):
        queue.put(b"%d" % i, prio)
    with queue.cursor() as c:
        assert [m.data for m in c] == [b"1", b"2", b"0"]
    assert queue.depth == 3


def test_cursor_survives_removal_of_its_message(queue):
    """When the message under the cursor is got by another, BROWSE_NEXT goes on after it."""
    for i in range(4):
        queue.put(b"%d" % i)
    c = queue.cursor()
    assert c.first().data == b"0"
    assert c.next().data == b"1"
    assert queue.get() == b"0"
    assert queue.get() == b"1"  # the message under the cursor
    with pytest.raises(errors.NoMessageUnderCursor):
        c.current()
    assert c.next().data == b"2"


def test_browse_next_at_the_end_then_new_message(queue):
    """BROWSE_NEXT past the last message fails with 2033, then finds a message put later."""
    queue.put(b"a")
    c = queue.cursor()
    c.first()
    with pytest.raises(errors.NoMessageAvailable):
        c.next()
    queue.put(b"b")
    assert c.next().data == b"b"


def test_get_under_cursor(queue):
    """MSG_UNDER_CURSOR takes the browsed message; a second try finds none under it."""
    queue.put(b"a")
    queue.put(b"b")
    c = queue.cursor()
    c.first()
    c.next()
    assert c.take().data == b"b"
    with pytest.raises(errors.NoMessageUnderCursor) as info:
        c.take()
    assert info.value.reason == 2034
    assert queue.get() == b"a"


def test_lock_hides_message_from_others(queue):
    """A message browsed with LOCK is invisible to other gets until unlocked."""
    queue.put(b"a")
    c = queue.cursor()
    c.first(lock=True)
    with pytest.raises(errors.NoMessageAvailable):
        queue.get()
    c.unlock()
    with pytest.raises(errors.NoMessageLocked):
        c.unlock()
    assert queue.get() == b"a"


def test_closing_a_cursor_releases_its_lock(queue):
    """Closing a cursor releases the message it locked."""
    queue.put(b"a")
    c = queue.cursor()
    c.first(lock=True)
    c.close()
    assert queue.get() == b"a"


def test_option_errors(queue):
    """Contradictory MQGMO options fail with MQRC_OPTIONS_ERROR (2046)."""
    from tpfemu._lowlevel import MQGMO

    queue.put(b"a")
    c = queue.cursor()
    bad = [
        MQGMO["MQGMO_BROWSE_FIRST"] | MQGMO["MQGMO_BROWSE_NEXT"],
        MQGMO["MQGMO_MSG_UNDER_CURSOR"] | MQGMO["MQGMO_BROWSE_FIRST"],
        MQGMO["MQGMO_LOCK"],
        MQGMO["MQGMO_BROWSE_FIRST"] | MQGMO["MQGMO_LOCK"] | MQGMO["MQGMO_UNLOCK"],
    ]
    for options in bad:
        with pytest.raises(errors.OptionsError):
            queue.get_message(cursor=c, options=options)
    with pytest.raises(errors.OptionsError):
        queue.get_message(options=MQGMO["MQGMO_BROWSE_FIRST"])  # no cursor
    assert queue.depth == 1


# -- expiry (seed 001) ----------------------------------------------------------------


def test_expired_message_is_never_returned_and_discarded_lazily(queue):
    """An expired message counts in depth until a get would return it, then is discarded."""
    queue.put_message(b"old", expiry=10 * S)
    queue.put_message(b"new")
    assert queue.depth == 2  # still counted after its time (note 2)
    assert queue.get_message(now=11 * S).data == b"new"
    assert queue.depth == 0
    report = queue.take_expired()
    assert report.data == b"old" and report.descriptor.expiry == 10 * S
    assert queue.take_expired() is None


def test_priority_queue_discards_only_what_the_get_would_have_returned(queue):
    """A plain get discards expired messages of higher priority and equal-priority ones
    ahead of the first unexpired, but not lower priorities or those behind it (seed 001)."""
    queue.put_message(b"p9-expired", priority=9, expiry=5 * S)
    queue.put_message(b"p5-expired-a", priority=5, expiry=5 * S)
    queue.put_message(b"p5-live", priority=5)
    queue.put_message(b"p5-expired-b", priority=5, expiry=5 * S)
    queue.put_message(b"p1-expired", priority=1, expiry=5 * S)
    assert queue.get_message(now=6 * S).data == b"p5-live"
    taken = []
    while (m := queue.take_expired()) is not None:
        taken.append(m.data)
    assert taken == [b"p9-expired", b"p5-expired-a"]
    assert queue.depth == 2  # p5-expired-b and p1-expired remain until a get reaches them


def test_browse_also_discards(queue):
    """A browse that would have returned an expired message discards it (seed 001)."""
    queue.put_message(b"gone", expiry=S)
    queue.put_message(b"kept")
    with queue.cursor() as c:
        assert c.first(now=2 * S).data == b"kept"
    assert queue.take_expired().data == b"gone"


def test_expiry_under_cursor(queue):
    """A message that expires under the cursor gives 2034 and is discarded (seed 001, note 6)."""
    queue.put_message(b"soon", expiry=5 * S)
    c = queue.cursor()
    c.first(now=1 * S, lock=True)
    with pytest.raises(errors.NoMessageUnderCursor):
        c.take(now=6 * S)
    assert queue.depth == 0 and queue.take_expired().data == b"soon"


def test_matched_get_discards_expired_matches(queue):
    """A matched get discards expired matching messages ahead of the first live match."""
    c = ident(1, b"C")
    queue.put_message(b"x-expired", correl_id=c, expiry=S)
    queue.put_message(b"other-expired", expiry=S)
    queue.put_message(b"x-live", correl_id=c)
    assert queue.get_message(correl_id=c, now=2 * S).data == b"x-live"
    assert queue.take_expired().data == b"x-expired"
    assert queue.take_expired() is None
    assert queue.depth == 1


def test_expired_during_unit_of_work_backout(queue):
    """A message got in a unit of work that is backed out after its expiry is discarded
    by the next get, never returned (seed 001, note 5)."""
    queue.put_message(b"short", expiry=5 * S)
    assert queue.get_message(uow=1, now=1 * S).data == b"short"
    queue.backout(1)
    with pytest.raises(errors.NoMessageAvailable):
        queue.get_message(now=6 * S)
    assert queue.take_expired().descriptor.backout_count == 1


# -- units of work --------------------------------------------------------------------


def test_uncommitted_put_is_counted_but_invisible(queue):
    """A put in a unit of work counts in depth but is not got until commit."""
    queue.put(b"a", 4, uow=9)
    assert queue.depth == 1
    assert queue.depth_at_least(0) == 1 and queue.depth_at_least(0, committed_only=True) == 0
    with pytest.raises(errors.NoMessageAvailable):
        queue.get()
    assert queue.commit(9) == 1
    assert queue.get() == b"a"


def test_backout_of_put_deletes_it(queue):
    """Backing out a unit of work deletes its puts."""
    queue.put(b"a", uow=3)
    assert queue.backout(3) == 1
    assert queue.depth == 0


def test_backout_of_get_restores_in_place_with_count(queue):
    """A get backed out returns the message to its original place, backout count + 1."""
    for m in (b"first", b"second", b"third"):
        queue.put(m)
    assert queue.get_message(uow=5).data == b"first"
    assert queue.depth == 3  # still on the queue until commit
    queue.backout(5)
    m = queue.get_message()
    assert (m.data, m.descriptor.backout_count) == (b"first", 1)


def test_restored_message_keeps_its_backout_count(queue):
    """A message restored at restart keeps its BackoutCount; the next put starts at 0 again
    (the scratch descriptor must not carry the count over), and a backout adds 1."""
    queue.put_message(b"restored", backout_count=4)
    queue.put_message(b"new")
    assert queue.get_message(uow=9).descriptor.backout_count == 4
    queue.backout(9)
    assert queue.get_message().descriptor.backout_count == 5
    assert queue.get_message().descriptor.backout_count == 0
    with pytest.raises(ValueError, match="backout_count"):
        queue.put_message(b"x", backout_count=-1)


def test_commit_of_get_is_final(queue):
    """A get committed removes the message for good."""
    queue.put(b"a")
    queue.get(uow=2)
    assert queue.commit(2) == 1
    assert queue.depth == 0 and queue.backout(2) == 0


def test_unknown_or_bad_unit_of_work(queue):
    """Commit of a unit of work with nothing here is a no-op; a non-positive id is refused."""
    assert queue.commit(12345) == 0
    with pytest.raises(ValueError, match="unit of work"):
        queue.commit(0)


# -- batches, purge, counters ------------------------------------------------------------


def test_put_many_and_get_many(queue):
    """A batch is put in order and got back in delivery order, lengths and all."""
    seq = queue.put_many([b"a", b"bb", b"ccc"], priority=2)
    queue.put(b"top", 9)
    batch = queue.get_many(10, with_descriptors=True)
    assert batch.messages() == [b"top", b"a", b"bb", b"ccc"]
    assert list(batch.lengths) == [3, 1, 2, 3]
    assert [d.seq for d in batch.descriptors()][1:] == [seq, seq + 1, seq + 2]


def test_put_many_is_all_or_nothing():
    """A batch that would pass MAXDEPTH puts nothing."""
    with CoreQueue("B", max_depth=3) as q:
        q.put(b"x")
        with pytest.raises(errors.QueueFull):
            q.put_many([b"a", b"b", b"c"])
        assert q.depth == 1


def test_get_many_respects_the_byte_limit(queue):
    """get_many stops before a message that would not fit, and fails if the first does not."""
    queue.put_many([b"x" * 600, b"y" * 600])
    batch = queue.get_many(10, max_bytes=1000)
    assert batch.messages() == [b"x" * 600]
    with pytest.raises(errors.TruncatedMessage):
        queue.get_many(10, max_bytes=100)
    assert queue.depth == 1
    queue.get()
    with pytest.raises(errors.NoMessageAvailable):
        queue.get_many(10)


def test_purge_keeps_units_of_work(queue):
    """CLEAR removes committed messages but not those held by an open unit of work."""
    queue.put(b"a")
    queue.put(b"b")
    queue.put(b"pending", uow=1)
    queue.get(uow=2)  # takes b"a" under a unit of work
    assert queue.purge() == 1
    assert queue.depth == 2
    queue.backout(2)
    queue.commit(1)
    assert [queue.get(), queue.get()] == [b"a", b"pending"]


def test_depth_by_priority_counters(queue):
    """depth_at_least counts messages at or above a priority, and follows gets."""
    for prio in (0, 3, 3, 7, 9):
        queue.put(b"x", prio)
    assert [queue.depth_at_least(p) for p in (0, 3, 4, 8, 9)] == [5, 4, 2, 1, 1]
    queue.get()
    assert queue.depth_at_least(8) == 0
    assert queue.stats()["depth_by_priority"][3] == 2


def test_free_list_reuse_under_churn(queue):
    """10^6 put/get cycles of 1 KB after a warm-up hold no more memory than before."""
    payload = b"x" * 1024
    for _ in range(1000):
        queue.put(payload)
    for _ in range(1000):
        queue.get()
    before = queue.stats()
    put, get = queue.put, queue.get
    for _ in range(1_000_000):
        put(payload)
        get()
    after = queue.stats()
    assert after["slab_bytes"] == before["slab_bytes"]
    assert after["slots_free"] == before["slots_free"]
    assert after["puts"] - before["puts"] == 1_000_000


def test_large_messages_are_freed(queue):
    """Messages over 64 KiB are allocated singly and their memory is freed by the get."""
    queue.put(b"L" * 200_000)
    assert queue.stats()["large_bytes"] > 200_000
    assert queue.get() == b"L" * 200_000
    assert queue.stats()["large_bytes"] == 0


# -- context records, put time, the expiry scan ------------------------------------------


def test_put_time_is_set_by_the_core_unless_given(queue):
    """A put records the current time (microseconds), or the time the caller gives."""
    import time

    before = time.time_ns() // 1000
    queue.put_message(b"now")
    queue.put_message(b"then", put_time=123)
    after = time.time_ns() // 1000
    first, second = queue.get_message().descriptor, queue.get_message().descriptor
    assert before <= first.put_time <= after
    assert second.put_time == 123


def test_context_record_is_kept_and_can_be_skipped(queue):
    """The context record at the head of the data comes back whole, or is left out by
    get_body (the MQI's fast path)."""
    queue.put_message(b"CTXbody", ctx_len=3)
    queue.put_message(b"CTXbody", ctx_len=3)
    queue.put(b"plain")
    m = queue.get_message()
    assert (m.data, m.descriptor.ctx_len) == (b"CTXbody", 3)
    assert queue.get_body() == b"body"
    assert queue.get_body() == b"plain"
    with pytest.raises(ValueError, match="ctx_len"):
        queue.put_message(b"ab", ctx_len=3)


def test_expiry_scan_discards_only_expired_free_messages(queue):
    """The expiry scan discards expired messages anywhere on the queue, but not those held
    by a unit of work or a lock (they are dealt with when released)."""
    queue.put_message(b"live", priority=9)
    queue.put_message(b"old-1", priority=1, expiry=5 * S)
    queue.put_message(b"old-held", priority=0, expiry=5 * S)
    queue.put_message(b"old-2", priority=0, expiry=5 * S)
    c = queue.cursor()
    c.first(now=S)
    c.next(now=S)
    c.next(now=S, lock=True)  # old-held
    assert queue.discard_expired(now=6 * S) == 2
    assert [queue.take_expired().data, queue.take_expired().data] == [b"old-1", b"old-2"]
    assert queue.depth == 2


def test_cap_body_truncates_on_the_data_after_the_context_record(queue):
    """With cap_body, max_length limits the application data; the record comes whole."""
    queue.put_message(b"CTX" + b"0123456789", ctx_len=3)
    with pytest.raises(errors.TruncatedMessage):
        queue.get_message(max_length=9, cap_body=True)
    m = queue.get_message(max_length=10, cap_body=True)
    assert m.data == b"CTX0123456789" and m.reason == 0
    queue.put_message(b"CTX" + b"0123456789", ctx_len=3)
    m = queue.get_message(max_length=4, cap_body=True, accept_truncated=True)
    assert (m.data, m.reason) == (b"CTX0123", 2079)


# -- put_packed: a restart's batch, as the checkpoint stores it ---------------------------


def _packed(*messages: StoredMessage) -> bytes:
    return encode_chunk(messages)


def test_put_packed_keeps_each_messages_descriptor():
    q = CoreQueue("RESTORED")
    ids = [bytes([i]) * 24 for i in (1, 2, 3)]
    cids = [b"C" * 24, bytes(24), b"D" * 24]
    first, count, expiring = q.put_packed(_packed(
        StoredMessage(70, ids[0], cids[0], 3, NEVER, 11, 2, 4, b"ctxA"),
        StoredMessage(71, ids[1], cids[1], 7, 2**62, 22, 0, 0, b"B"),
        StoredMessage(72, ids[2], cids[2], 3, NEVER, 33, 1, 0, memoryview(b"cC")),
    ))  # fmt: skip
    assert (count, expiring) == (3, True)
    got = [q.get_message() for _ in range(3)]
    # priority order, then put order; every field as given, the backout count too
    assert [m.descriptor.msg_id for m in got] == [ids[1], ids[0], ids[2]]
    assert [m.descriptor.seq for m in got] == [first + 1, first, first + 2]
    d = got[1].descriptor
    assert (d.correl_id, d.priority, d.expiry, d.put_time, d.ctx_len, d.persistent,
            d.backout_count) == (cids[0], 3, NEVER, 11, 2, True, 4)
    assert got[0].descriptor.expiry == 2**62 and got[0].data == b"B"
    assert got[2].data == b"cC" and got[2].descriptor.ctx_len == 1
    assert q.put_packed(_packed(StoredMessage(9, ids[0], cids[0], 0, NEVER, 1, 0, 0, b"x"))
                        )[1:] == (1, False)  # fmt: skip
    assert q.put_packed(_packed()) == (first + 4, 0, False)


def test_put_packed_is_all_or_nothing():
    q = CoreQueue("RESTORED", max_msg_length=8)
    ok = StoredMessage(1, b"A" * 24, bytes(24), 1, NEVER, 1, 0, 0, b"a")
    for bad, error in ((ok._replace(priority=12), errors.PriorityError),
                       (ok._replace(data=b"123456789"), errors.MessageTooBig),
                       (ok._replace(expiry=0), errors.ExpiryError)):  # fmt: skip
        with pytest.raises(error):
            q.put_packed(_packed(ok, bad))
        assert q.depth == 0
    chunk = _packed(ok, ok)
    for damaged in (chunk[:-1], chunk + b"!", chunk[:3], b"\xff" + chunk[1:]):
        with pytest.raises(ValueError, match="do not add up"):
            q.put_packed(damaged)
    assert q.depth == 0
    with pytest.raises(TypeError, match="bytes-like"):
        q.put_packed("text")


def test_put_packed_gather_reads_each_messages_data_at_its_address():
    """The log tail's form of a packed batch: descriptors alone, and the address of each
    message's data (here, of bytes objects kept alive by the test)."""
    q = CoreQueue("RESTORED")
    datas = [b"first", b"", b"third!"]
    messages = [StoredMessage(70 + i, bytes([i + 1]) * 24, bytes(24), 5, NEVER, 11 + i, 0, i, d)
                for i, d in enumerate(datas)]  # fmt: skip
    chunk = encode_chunk(messages)
    descriptors = chunk[: 4 + 88 * len(messages)]
    addresses = b"".join(struct.pack("P", ctypes.cast(ctypes.c_char_p(d), ctypes.c_void_p).value)
                         for d in datas)  # fmt: skip
    for bad in ((descriptors[:-1], addresses), (descriptors, addresses[:-8]),
                (descriptors, addresses + addresses[:8]), (b"", b"")):  # fmt: skip
        with pytest.raises(ValueError, match="put_packed_gather"):
            q.put_packed_gather(*bad)
    assert q.depth == 0
    first, count, expiring = q.put_packed_gather(descriptors, addresses)
    assert (count, expiring) == (3, False)
    got = [q.get_message() for _ in range(3)]
    assert [m.data for m in got] == datas
    assert [m.descriptor.backout_count for m in got] == [0, 1, 2]
    assert [m.descriptor.seq for m in got] == [first, first + 1, first + 2]


def test_interpreter_exits_with_a_cursor_left_open(tmp_path):
    """A program that leaves a browse cursor open still exits at once, whatever order
    the interpreter collects the queue and the cursor in."""
    import subprocess
    import sys

    script = tmp_path / "open_cursor.py"
    script.write_text(
        "from tpfemu._lowlevel import CoreQueue\n"
        "q = CoreQueue('LEFT.OPEN')\n"
        "c = q.cursor()\n"
        "q.put(b'a')\n"
        "q.put(b'b')\n"
        "c.first(lock=True)\n"
        "print('browsed')\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "browsed"


def test_get_many_hands_over_one_contiguous_buffer(queue):
    """get_many's batch holds the messages back to back with their sizes, cut into each
    message's bytes on demand, and takes a first message longer than its first guess."""
    big = bytes(range(256)) * 5000  # 1.28 MB: past the first buffer get_many allocates
    queue.put_many([b"one", b"", b"three"])
    queue.put(big)
    batch = queue.get_many(10, max_bytes=8)
    assert (batch.data, list(batch.lengths)) == (b"onethree", [3, 0, 5])
    assert batch.messages() == [b"one", b"", b"three"]
    assert queue.get_many(10, max_bytes=2 << 20).messages() == [big]


def test_get_many_returns_at_most_its_limit(queue):
    """A huge max_count is served up to the per-call limit, without allocating for it."""
    from tpfemu._lowlevel.queue import GET_MANY_MOST

    queue.put_batch(b"", [0] * (GET_MANY_MOST + 5))
    assert len(queue.get_many(1 << 40, with_descriptors=True)) == GET_MANY_MOST
    assert len(queue.get_many(1 << 40)) == 5
