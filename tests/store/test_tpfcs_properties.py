"""Properties of the TPFCS-like store checked against a plain Python model (Hypothesis)."""

from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tpfemu.store.tpfcs import Tpfcs

KEYS = st.binary(min_size=1, max_size=4) | st.sampled_from(
    [b"\x00", b"\x00\x00", b"\x00\xff", b"\xff", b"\xff\x00", b"a", b"a\x00", b"ab"])
DATA = st.binary(max_size=64)
OPS = st.lists(st.one_of(
    st.tuples(st.just("put"), KEYS, DATA),
    st.tuples(st.just("remove"), KEYS),
    st.tuples(st.just("take")),
), max_size=40)

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with Tpfcs.open(tmp_path_factory.mktemp("tpfcs"), durable=False) as s:
        s.create_data_store("MQS")
        yield s


def model_order(model: list[tuple[bytes, int, bytes]]) -> list[tuple[bytes, int, bytes]]:
    """Key order, equal keys in insertion (serial) order."""
    return sorted(model, key=lambda e: (e[0], e[1]))


@SETTINGS
@given(pairs=st.lists(st.tuples(KEYS, DATA), max_size=50))
def test_keyed_bag_round_trip_keeps_key_then_insertion_order(store, pairs):
    """Whatever is put into a bag comes back, sorted by key bytes, FIFO within a key."""
    pid = store.create_keyed_bag("MQS")
    serials = [store.at_new_key_put(pid, key, data) for key, data in pairs]
    expected = model_order([(k, s, d) for (k, d), s in zip(pairs, serials, strict=True)])
    got = [(e.key, e.index, e.data) for e in store.cursor(pid)]
    assert got == expected
    backwards = store.cursor(pid)
    back = [backwards.last()] if expected else []
    while back and (element := backwards.previous()) is not None:
        back.append(element)
    assert [(e.key, e.index, e.data) for e in reversed(back)] == expected
    assert store.count(pid) == len(pairs)
    store.delete_collection(pid)


@SETTINGS
@given(ops=OPS)
def test_keyed_bag_matches_its_model_under_puts_removes_and_takes(store, ops):
    """remove_key takes the oldest element of a key and take_first the first in order."""
    pid = store.create_keyed_bag("MQS")
    model: list[tuple[bytes, int, bytes]] = []
    for op in ops:
        if op[0] == "put":
            serial = store.at_new_key_put(pid, op[1], op[2])
            model.append((op[1], serial, op[2]))
        elif op[0] == "remove":
            matching = model_order([e for e in model if e[0] == op[1]])
            if matching:
                assert store.remove_key(pid, op[1]) == matching[0][2]
                model.remove(matching[0])
            else:
                assert store.elements_at_key(pid, op[1]) == []
        else:
            element = store.take_first(pid)
            if model:
                first = model_order(model)[0]
                assert (element.key, element.index, element.data) == first
                model.remove(first)
            else:
                assert element is None
    assert [(e.key, e.index, e.data) for e in store.cursor(pid)] == model_order(model)
    assert store.count(pid) == len(model)
    store.delete_collection(pid)


@SETTINGS
@given(keys=st.lists(KEYS, max_size=30), probe=KEYS)
def test_seek_lands_on_the_first_key_not_less(store, keys, probe):
    """cursor.seek(k) returns the smallest stored key >= k (or None)."""
    pid = store.create_keyed_set("MQS")
    for key in set(keys):
        store.at_new_key_put(pid, key, b"")
    candidates = sorted(k for k in set(keys) if k >= probe)
    element = store.cursor(pid).seek(probe)
    assert (element.key if element else None) == (candidates[0] if candidates else None)
    store.delete_collection(pid)


def test_threads_taking_from_one_collection_take_each_element_once(tmp_path):
    """Four threads racing take_first share out every element exactly once."""
    with Tpfcs.open(tmp_path, durable=False, map_size=256 * 1024) as s:
        s.create_data_store("MQS")
        pid = s.create_sequence("MQS")
        s.transact(lambda t: [t.add(pid, bytes(2000)) for _ in range(1000)])  # grows the map
        taken: list[list[int]] = [[] for _ in range(4)]

        def take(mine: list[int]) -> None:
            while (element := s.take_first(pid)) is not None:
                mine.append(element.index)
        threads = [threading.Thread(target=take, args=(t,)) for t in taken]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        flat = [i for mine in taken for i in mine]
        assert sorted(flat) == list(range(1, 1001))


def test_threads_writing_while_the_map_grows(tmp_path):
    """Threads adding concurrently survive repeated map growth with nothing lost."""
    with Tpfcs.open(tmp_path, durable=False, map_size=128 * 1024) as s:
        s.create_data_store("MQS")
        pid = s.create_sequence("MQS")
        errors: list[BaseException] = []

        def add() -> None:
            try:
                for _ in range(150):
                    s.add(pid, bytes(4000))
                    s.first(pid)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)
        threads = [threading.Thread(target=add) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == [] and s.count(pid) == 600 and s.map_size > 128 * 1024
