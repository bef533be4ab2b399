"""Cursors of the TPFCS-like store: movement, positioning, live and snapshot isolation."""

from __future__ import annotations

import pytest

from tpfemu.errors import TpfcsError
from tpfemu.store.tpfcs import Kind, Lifetime


@pytest.fixture
def bag(store):
    pid = store.create_keyed_bag("MQS")
    for key in (b"b", b"d", b"a", b"c", b"b"):
        store.at_new_key_put(pid, key, key)
    return pid


def raises_to2(name: str):
    return pytest.raises(TpfcsError, match=rf"\b{name}\b")


def keys(elements) -> list[bytes]:
    return [e.key for e in elements]


def test_next_walks_forward_and_returns_none_at_the_end(store, bag):
    """next() visits every element in key order, then returns None (EODAD) and stays there."""
    cursor = store.cursor(bag)
    seen = []
    while (element := cursor.next()) is not None:
        seen.append(element)
    assert keys(seen) == [b"a", b"b", b"b", b"c", b"d"]
    assert cursor.next() is None


def test_previous_walks_backward(store, bag):
    """previous() from a fresh cursor starts at the last element and walks to the first."""
    cursor = store.cursor(bag)
    cursor.last()
    seen = [cursor.current()]
    while (element := cursor.previous()) is not None:
        seen.append(element)
    assert keys(seen) == [b"d", b"c", b"b", b"b", b"a"]
    assert cursor.previous() is None
    assert cursor.next().key == b"a"  # off the front, next() is the first element


def test_direction_changes_return_to_the_neighbour(store, bag):
    """Turning around returns the neighbour element, as a list iterator does."""
    cursor = store.cursor(bag)
    assert cursor.first().key == b"a"
    assert cursor.next().index == 1  # the first b (serial 1)
    assert cursor.previous().key == b"a"
    cursor.last()
    assert cursor.next() is None
    assert cursor.previous().key == b"d"  # stepping back from past-the-end gives the last


def test_first_last_on_an_empty_collection(store):
    """first/last/next/previous on an empty collection return None."""
    cursor = store.cursor(store.create_sequence("MQS"))
    assert cursor.first() is None and cursor.last() is None
    assert cursor.next() is None and cursor.previous() is None


def test_iteration_continues_from_the_position(store, bag):
    """Iterating a cursor yields the elements after its position."""
    cursor = store.cursor(bag)
    cursor.seek(b"c")
    assert keys(cursor) == [b"d"]


def test_seek_positions_at_the_first_key_at_or_after(store, bag):
    """seek(key) lands on the first element whose key is >= key, or None past the end."""
    cursor = store.cursor(bag)
    assert cursor.seek(b"b").index == 1
    assert cursor.seek(b"bb").key == b"c"
    assert cursor.seek(b"z") is None
    assert cursor.previous().key == b"d"  # the gap before b"z" follows the last element
    with raises_to2("TO2_ERROR_LOCATOR_LGH"):
        cursor.seek(b"")


def test_seek_index_on_sequences(store):
    """seek_index(i) lands on the first element whose index is >= i."""
    pid = store.create_sequence("MQS")
    for i in range(5):
        store.add(pid, b"%d" % i)
    store.remove_index(pid, 3)
    cursor = store.cursor(pid)
    assert cursor.seek_index(3).index == 4
    assert cursor.seek_index(9) is None
    with raises_to2("TO2_ERROR_INDEX"):
        cursor.seek_index(0)
    with raises_to2("TO2_ERROR_METHOD"):
        cursor.seek(b"k")
    with raises_to2("TO2_ERROR_METHOD"):
        store.cursor(store.create_keyed_bag("MQS")).seek_index(1)


def test_current_needs_an_element_under_the_cursor(store, bag):
    """current() raises TO2_ERROR_EODAD before the first move, at the ends and once removed."""
    cursor = store.cursor(bag)
    with raises_to2("TO2_ERROR_EODAD"):
        cursor.current()
    element = cursor.first()
    assert cursor.current() == element
    store.remove_key(bag, b"a")
    with raises_to2("TO2_ERROR_EODAD"):
        cursor.current()
    cursor.last()
    cursor.next()
    with raises_to2("TO2_ERROR_EODAD"):
        cursor.current()


def test_remove_at_cursor_keeps_the_place(store, bag):
    """remove() deletes the element under the cursor; next() then gives the one after it."""
    cursor = store.cursor(bag)
    cursor.seek(b"b")
    assert cursor.remove().index == 1
    assert cursor.next().index == 5  # the second b
    assert cursor.previous().key == b"a"
    assert keys(store.cursor(bag)) == [b"a", b"b", b"c", b"d"]
    cursor.first()
    store.remove_key(bag, b"a")
    with raises_to2("TO2_ERROR_EODAD"):
        cursor.remove()  # someone else took it


def test_live_cursor_sees_changes_between_steps(store):
    """A live cursor sees elements added ahead of it and not those removed, and can poll."""
    pid = store.create_sequence("MQS")
    store.add(pid, b"1")
    store.add(pid, b"2")
    cursor = store.cursor(pid)
    assert cursor.next().data == b"1"
    store.remove_index(pid, 2)
    store.add(pid, b"3")
    assert cursor.next().data == b"3"
    assert cursor.next() is None
    store.add(pid, b"4")
    assert cursor.next().data == b"4"  # after the end, a later next() finds new elements


def test_live_cursor_never_repeats_or_skips_remaining_elements(store):
    """Elements added behind a live cursor are not revisited; those staying are all seen."""
    pid = store.create_keyed_bag("MQS")
    for key in (b"b", b"d", b"f"):
        store.at_new_key_put(pid, key, b"")
    cursor = store.cursor(pid)
    seen = [cursor.next().key]
    store.at_new_key_put(pid, b"a", b"")  # behind
    store.at_new_key_put(pid, b"b", b"")  # ahead: equal keys keep FIFO order
    store.at_new_key_put(pid, b"e", b"")  # ahead
    seen += keys(cursor)
    assert seen == [b"b", b"b", b"d", b"e", b"f"]


def test_snapshot_cursor_reads_one_frozen_state(store, bag):
    """A snapshot cursor does not see commits made after it was created."""
    with store.cursor(bag, snapshot=True) as snap:
        store.remove_key(bag, b"a")
        store.at_new_key_put(bag, b"e", b"e")
        assert keys(snap) == [b"a", b"b", b"b", b"c", b"d"]
        assert snap.snapshot and "snapshot" in repr(snap)
    assert keys(store.cursor(bag)) == [b"b", b"b", b"c", b"d", b"e"]


def test_snapshot_cursor_is_read_only_and_closes(store, bag):
    """remove() on a snapshot cursor is TO2_ERROR_METHOD; a closed cursor is TO2_ERROR_ENV."""
    snap = store.cursor(bag, snapshot=True)
    snap.first()
    with raises_to2("TO2_ERROR_METHOD"):
        snap.remove()
    snap.close()
    snap.close()
    with raises_to2("TO2_ERROR_ENV"):
        snap.next()
    with raises_to2("TO2_ERROR_ENV"):
        snap.current()


def test_cursor_on_a_missing_or_deleted_collection(store):
    """A cursor needs a live collection; deleting it under a live cursor fails the next step."""
    from tpfemu.store.tpfcs import Pid
    with raises_to2("TO2_ERROR_PID"):
        store.cursor(Pid.from_int(77))
    with raises_to2("TO2_ERROR_PID"):
        store.cursor(Pid.from_int(77), snapshot=True)
    pid = store.create_sequence("MQS", Lifetime.LONG_TERM)
    store.add(pid, b"x")
    cursor = store.cursor(pid)
    store.delete_collection(pid)
    with raises_to2("TO2_ERROR_PID"):
        cursor.next()


def test_cursor_stops_at_the_collection_boundary(store):
    """Cursors never wander into the neighbouring collections' elements."""
    pids = [store.create_collection("MQS", Kind.SEQUENCE) for _ in range(3)]
    for n, pid in enumerate(pids):
        for i in range(3):
            store.add(pid, b"%d-%d" % (n, i))
    middle = store.cursor(pids[1])
    assert [e.data for e in middle] == [b"1-0", b"1-1", b"1-2"]
    assert middle.last().data == b"1-2" and middle.first().data == b"1-0"
    assert middle.previous() is None
    assert store.cursor(pids[2]).last().data == b"2-2"
