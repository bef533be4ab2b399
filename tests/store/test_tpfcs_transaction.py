"""Commit scopes over the TPFCS-like store: all-or-nothing, nesting, joining, threads."""

from __future__ import annotations

import threading

import pytest

from tpfemu.errors import TpfcsError
from tpfemu.store.tpfcs import Transaction


@pytest.fixture
def seq(store):
    return store.create_sequence("MQS")


def raises_to2(name: str):
    return pytest.raises(TpfcsError, match=rf"\b{name}\b")


def datas(store, pid) -> list[bytes]:
    return [e.data for e in store.cursor(pid)]


def test_commit_makes_every_call_visible_together(store, seq):
    """Calls in a transaction are invisible to other threads until it commits, then all are."""
    seen_inside = []
    with store.transaction() as t:
        t.add(seq, b"1")
        t.add(seq, b"2")
        reader = threading.Thread(target=lambda: seen_inside.append(store.count(seq)))
        reader.start()
        reader.join()
        assert t.count(seq) == 2  # the transaction reads its own writes
    assert seen_inside == [0]
    assert datas(store, seq) == [b"1", b"2"]


def test_an_exception_rolls_everything_back(store, seq):
    """An exception leaving the block rolls back every call of the transaction."""
    store.add(seq, b"before")
    with pytest.raises(RuntimeError):
        with store.transaction() as t:
            t.add(seq, b"lost")
            t.remove_index(seq, 1)
            t.create_data_store("GONE")
            raise RuntimeError("abend")
    assert datas(store, seq) == [b"before"] and store.data_stores() == ["MQS"]


def test_explicit_commit_and_rollback(store, seq):
    """commit() and rollback() end the transaction early; later use is TO2_ERROR_ENV."""
    t = store.transaction()
    with t:
        t.add(seq, b"kept")
        t.commit()
        assert not t.active
        with raises_to2("TO2_ERROR_ENV"):
            t.add(seq, b"late")
    with store.transaction() as t2:
        t2.add(seq, b"dropped")
        t2.rollback()
    assert datas(store, seq) == [b"kept"]
    with raises_to2("TO2_ERROR_ENV"):
        t2.commit()
    with raises_to2("TO2_ERROR_ENV"):
        with t2:
            pass  # a transaction is begun once


def test_store_calls_in_the_thread_join_the_open_transaction(store, seq):
    """Calls made through the store by the same thread join its open transaction."""
    with pytest.raises(KeyError):
        with store.transaction():
            store.add(seq, b"joined")
            assert store.count(seq) == 1
            raise KeyError
    assert store.count(seq) == 0


def test_nested_transactions_commit_into_their_parent(store, seq):
    """A nested transaction's rollback undoes only its own work; its commit waits for the root."""
    with store.transaction() as outer:
        outer.add(seq, b"outer")
        with pytest.raises(ValueError):
            with store.transaction() as inner:
                inner.add(seq, b"inner-rolled-back")
                raise ValueError
        with store.transaction() as inner2:
            inner2.add(seq, b"inner-kept")
            with raises_to2("TO2_ERROR_ENV"):
                outer.add(seq, b"outer must wait for its child")
        assert datas(store, seq) == [b"outer", b"inner-kept"]
    assert datas(store, seq) == [b"outer", b"inner-kept"]


def test_nested_commit_is_undone_by_the_parent_rollback(store, seq):
    """Nothing of a nested commit remains if the root rolls back."""
    with store.transaction() as outer:
        with store.transaction() as inner:
            inner.add(seq, b"x")
        outer.rollback()
    assert store.count(seq) == 0


def test_a_refused_call_leaves_the_transaction_usable(store):
    """A TpfcsError inside a transaction changes nothing, and the transaction can go on."""
    pid = store.create_keyed_set("MQS")
    with store.transaction() as t:
        t.at_new_key_put(pid, b"k", b"1")
        with raises_to2("TO2_ERROR_LOCATOR_NOT_UNIQUE"):
            t.at_new_key_put(pid, b"k", b"2")
        with raises_to2("TO2_ERROR_LOCATOR_NOT_FOUND"):
            t.remove_key(pid, b"zz")
        t.at_new_key_put(pid, b"j", b"3")
    assert [(e.key, e.data) for e in store.cursor(pid)] == [(b"j", b"3"), (b"k", b"1")]


def test_a_transaction_belongs_to_its_thread(store, seq):
    """Using a transaction from another thread is TO2_ERROR_ENV."""
    errors = []
    with store.transaction() as t:
        def other() -> None:
            try:
                t.add(seq, b"x")
            except TpfcsError as exc:
                errors.append(exc.code_name)
        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
    assert errors == ["TO2_ERROR_ENV"]


def test_transactions_of_two_threads_serialise(store, seq):
    """Two threads' transactions never interleave: each one's adds stay contiguous."""
    def work(tag: bytes) -> None:
        for _ in range(20):
            with store.transaction() as t:
                t.add(seq, tag + b"1")
                t.add(seq, tag + b"2")
    threads = [threading.Thread(target=work, args=(tag,)) for tag in (b"a", b"b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    values = datas(store, seq)
    assert len(values) == 80
    assert all(values[i][:1] == values[i + 1][:1] and values[i].endswith(b"1")
               for i in range(0, 80, 2))


def test_create_and_take_in_one_unit_of_work(store):
    """Collections created in a rolled-back transaction do not exist afterwards."""
    with store.transaction() as t:
        pid = t.create_keyed_bag("MQS", name="Q")
        t.at_new_key_put(pid, b"k", b"v")
        assert t.take_first(pid).data == b"v"
        t.rollback()
    assert store.names("MQS") == {} and store.collections() == []


def test_transact_runs_a_function_and_returns_its_result(store, seq):
    """transact(fn) commits fn's work and returns its value."""
    assert store.transact(lambda t: [t.add(seq, b"a"), t.add(seq, b"b")]) == [1, 2]
    assert isinstance(store.transaction(), Transaction)
    assert datas(store, seq) == [b"a", b"b"]


def test_cursor_in_a_transaction_sees_its_writes(store, seq):
    """A live cursor used inside a transaction reads through it and can remove in it."""
    store.add(seq, b"committed")
    with pytest.raises(LookupError):
        with store.transaction() as t:
            t.add(seq, b"pending")
            cursor = t.cursor(seq)
            assert [e.data for e in cursor] == [b"committed", b"pending"]
            cursor.first()
            cursor.remove()
            assert t.count(seq) == 1
            raise LookupError
    assert datas(store, seq) == [b"committed"]


def test_the_store_cannot_close_under_an_open_transaction(store, seq):
    """close() inside the thread's open transaction is TO2_ERROR_ENV; the work still commits."""
    with store.transaction() as t:
        t.add(seq, b"x")
        with raises_to2("TO2_ERROR_ENV"):
            store.close()
    assert not store.closed and store.count(seq) == 1
