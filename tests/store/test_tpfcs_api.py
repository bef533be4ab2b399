"""The TPFCS-like collection store: data stores, collections, kinds, lifetimes, errors."""

from __future__ import annotations

import pytest

from tpfemu.errors import TpfcsError, TpfEmuError
from tpfemu.store.tpfcs import (
    ERROR_CODES,
    CollectionInfo,
    Element,
    Kind,
    Lifetime,
    Pid,
    Tpfcs,
)


def code_of(excinfo: pytest.ExceptionInfo) -> str:
    return excinfo.value.code_name


def raises_to2(name: str):
    """pytest.raises for a TpfcsError with this TO2_ERROR_* name."""
    return pytest.raises(TpfcsError, match=rf"\b{name}\b")


# --- data stores ------------------------------------------------------------------------


def test_data_store_names_are_one_to_eight_of_a_z_0_9(store):
    """Names of 1-8 upper-case letters and digits are accepted; anything else is refused."""
    for good in ("A", "Z9", "ABCDEFGH", "12345678"):
        store.create_data_store(good)
    for bad in ("", "ABCDEFGHI", "mqs", "A.B", "A B", 7, None):
        with raises_to2("TO2_ERROR_DS_NAME"):
            store.create_data_store(bad)
    assert store.data_stores() == sorted(["A", "Z9", "ABCDEFGH", "12345678", "MQS"])


def test_duplicate_data_store_is_refused(store):
    """Creating a data store that exists raises TO2_ERROR_DS_EXISTS and changes nothing."""
    with raises_to2("TO2_ERROR_DS_EXISTS"):
        store.create_data_store("MQS")
    assert store.data_stores() == ["MQS"]


def test_collections_need_an_existing_data_store(store):
    """A collection in an unknown data store is refused with TO2_ERROR_DS_NOT_FOUND."""
    with raises_to2("TO2_ERROR_DS_NOT_FOUND"):
        store.create_keyed_bag("NOPE")
    with raises_to2("TO2_ERROR_DS_NOT_FOUND"):
        store.collections("NOPE")


def test_delete_data_store_only_when_empty(store):
    """A data store holding a collection cannot be deleted; once empty it can."""
    pid = store.create_sequence("MQS", lifetime=Lifetime.SHORT_TERM)
    with raises_to2("TO2_ERROR_DS_NOT_EMPTY"):
        store.delete_data_store("MQS")
    store.delete_collection(pid)
    store.delete_data_store("MQS")
    assert store.data_stores() == []
    with raises_to2("TO2_ERROR_DS_NOT_FOUND"):
        store.delete_data_store("MQS")


def test_delete_data_store_purges_its_deleted_collections(store):
    """Reclaimable (deleted long-term) collections do not keep a data store alive."""
    pid = store.create_keyed_bag("MQS", name="Q")
    store.at_new_key_put(pid, b"k", b"v")
    store.delete_collection(pid)
    store.delete_data_store("MQS")
    with raises_to2("TO2_ERROR_PID"):
        store.reclaim_pid(pid)


# --- collections, PIDs, dictionary ------------------------------------------------------


def test_create_returns_distinct_printable_pids(store):
    """Each create returns a new 8-byte PID that prints as 16 hex digits and parses back."""
    pids = [store.create_collection("MQS", kind) for kind in Kind]
    assert len(set(pids)) == 4
    for pid in pids:
        assert isinstance(pid, Pid) and len(pid) == 8
        assert len(str(pid)) == 16 and int(str(pid), 16) > 0
        assert Pid.parse(str(pid)) == pid == Pid.parse(bytes(pid))
        assert repr(pid) == f"Pid('{pid}')"


def test_info_describes_a_collection(store):
    """info() reports data store, kind, lifetime, limits, name and count."""
    pid = store.create_log("MQS", Lifetime.SHORT_TERM, name="AUDIT", entry_length=10,
                           max_entries=3)
    store.add(pid, b"one")
    info = store.info(pid)
    assert isinstance(info, CollectionInfo)
    assert (info.pid, info.data_store, info.kind, info.lifetime) == (
        pid, "MQS", Kind.LOG, Lifetime.SHORT_TERM)
    assert (info.count, info.name, info.entry_length, info.max_entries, info.key_length) == (
        1, "AUDIT", 10, 3, None)
    assert not info.deleted and info.deleted_at is None and info.created_at > 0
    assert [c.pid for c in store.collections("MQS")] == [pid]


def test_named_collections_are_found_through_the_dictionary(store):
    """A name given at create is entered in the data store's dictionary, atomically and once."""
    pid = store.create_keyed_bag("MQS", name="APP.SHARED.Q")
    assert store.lookup("MQS", "APP.SHARED.Q") == pid
    assert store.names("MQS") == {"APP.SHARED.Q": pid}
    with raises_to2("TO2_ERROR_LOCATOR_NOT_UNIQUE"):
        store.create_sequence("MQS", name="APP.SHARED.Q")
    assert len(store.collections()) == 1  # the refused create left nothing behind
    with raises_to2("TO2_ERROR_LOCATOR_NOT_FOUND"):
        store.lookup("MQS", "OTHER")
    for bad in ("", "x" * 65, "a\0b"):
        with raises_to2("TO2_ERROR_NAME"):
            store.create_sequence("MQS", name=bad)


def test_create_refuses_bad_parameters(store):
    """Unknown kinds or lifetimes and limits that do not apply are TO2_ERROR_PARAMETER."""
    cases = [
        dict(kind=9), dict(kind=Kind.SEQUENCE, lifetime=7),
        dict(kind=Kind.SEQUENCE, key_length=4), dict(kind=Kind.KEYED_BAG, max_entries=3),
        dict(kind=Kind.LOG, max_entries=0), dict(kind=Kind.KEYED_SET, key_length=241),
        dict(kind=Kind.SEQUENCE, entry_length=0), dict(kind=Kind.LOG, entry_length=True),
    ]
    for case in cases:
        kind = case.pop("kind")
        with raises_to2("TO2_ERROR_PARAMETER"):
            store.create_collection("MQS", kind, **case)
    assert store.collections() == []


def test_pid_errors(store):
    """Malformed, zero and unknown PIDs are refused with TO2_ERROR_PID / ZERO_PID."""
    with raises_to2("TO2_ERROR_PID"):
        store.count("not hex")
    with raises_to2("TO2_ERROR_PID"):
        store.count(b"short")
    with raises_to2("TO2_ERROR_PID"):
        store.count(12)
    with raises_to2("TO2_ERROR_ZERO_PID"):
        store.count(bytes(8))
    with raises_to2("TO2_ERROR_PID"):
        store.count(Pid.from_int(999))


def test_long_term_delete_is_deferred_and_reclaimable(store):
    """A deleted long-term collection refuses calls until TO2_reclaimPID brings it back whole."""
    pid = store.create_keyed_bag("MQS", name="Q")
    store.at_new_key_put(pid, b"k", b"v")
    store.delete_collection(pid)
    with raises_to2("TO2_ERROR_PID"):
        store.at_key(pid, b"k")
    assert store.info(pid).deleted and store.info(pid).deleted_at is not None
    assert store.collections() == [] and [c.pid for c in store.collections(deleted=True)] == [pid]
    with raises_to2("TO2_ERROR_LOCATOR_NOT_FOUND"):
        store.lookup("MQS", "Q")  # the name is free while deleted
    store.reclaim_pid(pid)
    assert store.at_key(pid, b"k") == b"v" and store.lookup("MQS", "Q") == pid
    with raises_to2("TO2_ERROR_PARAMETER"):
        store.reclaim_pid(pid)  # not deleted


def test_reclaim_refused_when_the_name_was_reused(store):
    """Reclaiming a collection whose name now names another is TO2_ERROR_LOCATOR_NOT_UNIQUE."""
    old = store.create_sequence("MQS", name="Q")
    store.delete_collection(old)
    new = store.create_sequence("MQS", name="Q")
    with raises_to2("TO2_ERROR_LOCATOR_NOT_UNIQUE"):
        store.reclaim_pid(old)
    assert store.lookup("MQS", "Q") == new


def test_purge_deleted_removes_old_deletions_for_good(store):
    """purge_deleted(0) removes every deleted long-term collection; reclaim then fails."""
    pid = store.create_sequence("MQS")
    store.add(pid, b"x")
    store.delete_collection(pid)
    assert store.purge_deleted(older_than=3600) == 0
    assert store.purge_deleted(older_than=0) == 1
    with raises_to2("TO2_ERROR_PID"):
        store.reclaim_pid(pid)


def test_short_term_and_temporary_deletes_are_immediate(store):
    """Short-term and temporary collections are gone at once when deleted."""
    for lifetime in (Lifetime.SHORT_TERM, Lifetime.TEMPORARY):
        pid = store.create_sequence("MQS", lifetime)
        store.add(pid, b"x")
        store.delete_collection(pid)
        with raises_to2("TO2_ERROR_PID"):
            store.info(pid)


def test_zero_deletion_delay_deletes_long_term_at_once(tmp_path):
    """With deletion_delay=0 a long-term collection is removed by delete_collection."""
    with Tpfcs.open(tmp_path, durable=False, deletion_delay=0) as s:
        s.create_data_store("MQS")
        pid = s.create_sequence("MQS")
        s.delete_collection(pid)
        with raises_to2("TO2_ERROR_PID"):
            s.info(pid)


# --- lifetimes across reopen ------------------------------------------------------------


def test_long_and_short_term_survive_reopen_temporary_does_not(tmp_path):
    """After close and reopen, persistent collections keep PIDs and contents; temporary vanish."""
    with Tpfcs.open(tmp_path, durable=False) as s:
        s.create_data_store("MQS")
        long_ = s.create_keyed_bag("MQS", name="LONG")
        short = s.create_sequence("MQS", Lifetime.SHORT_TERM)
        temp = s.create_keyed_set("MQS", Lifetime.TEMPORARY, name="TEMP")
        s.at_new_key_put(long_, b"k", b"long")
        s.add(short, b"short")
        s.at_new_key_put(temp, b"k", b"temp")
        assert s.count(temp) == 1
    with Tpfcs.open(tmp_path, durable=False) as s:
        assert s.at_key(long_, b"k") == b"long" and s.lookup("MQS", "LONG") == long_
        assert s.at_index(short, 1) == b"short"
        with raises_to2("TO2_ERROR_PID"):
            s.info(temp)
        assert "TEMP" not in s.names("MQS")
        assert s.create_sequence("MQS") > temp  # PIDs are never reused


def test_temporary_collections_belong_to_their_store(tmp_path):
    """Closing one store drops its temporary collections, not those of another open store."""
    a = Tpfcs.open(tmp_path, durable=False)
    b = Tpfcs.open(tmp_path, durable=False)
    try:
        a.create_data_store("MQS")
        mine, theirs = a.create_sequence("MQS", Lifetime.TEMPORARY), \
            b.create_sequence("MQS", Lifetime.TEMPORARY)
        assert a.session != b.session
        b.add(mine, b"any store may use it")
        b.close()
        with raises_to2("TO2_ERROR_PID"):
            a.info(theirs)
        assert a.count(mine) == 1
    finally:
        a.close()
        b.close()


def test_closed_store_refuses_calls(tmp_path):
    """Every call on a closed store raises TO2_ERROR_ENV; close is idempotent."""
    s = Tpfcs.open(tmp_path, durable=False)
    s.close()
    s.close()
    assert s.closed and "closed" in repr(s)
    with raises_to2("TO2_ERROR_ENV"):
        s.data_stores()
    with raises_to2("TO2_ERROR_ENV"):
        s.transaction()


def test_open_refuses_bad_sizes(tmp_path):
    """Non-positive sizes are refused before anything is created."""
    for bad in (dict(map_size=0), dict(max_size=-1), dict(max_readers=True)):
        with raises_to2("TO2_ERROR_PARAMETER"):
            Tpfcs.open(tmp_path, **bad)


def test_open_refuses_a_foreign_format(tmp_path):
    """A store written in another format is refused with TO2_ERROR_DB, not misread."""
    with Tpfcs.open(tmp_path, durable=False) as s:
        s._run("test", lambda ops: ops.txn.put(b"format", b"\x09", db=ops.dbs.meta), write=True)
    with raises_to2("TO2_ERROR_DB"):
        Tpfcs.open(tmp_path)


# --- keyed collections -------------------------------------------------------------------


def test_keyed_bag_keeps_duplicates_in_insertion_order(store):
    """A bag holds equal keys in FIFO order, sorted by key; remove_key takes the oldest."""
    pid = store.create_keyed_bag("MQS")
    for key, data in [(b"b", b"1"), (b"a", b"2"), (b"b", b"3"), (b"a", b"4")]:
        store.at_new_key_put(pid, key, data)
    assert [(e.key, e.data) for e in store.cursor(pid)] == [
        (b"a", b"2"), (b"a", b"4"), (b"b", b"1"), (b"b", b"3")]
    assert store.at_key(pid, b"b") == b"1"
    assert [e.data for e in store.elements_at_key(pid, b"a")] == [b"2", b"4"]
    assert store.remove_key(pid, b"b") == b"1"
    assert store.at_key(pid, b"b") == b"3" and store.count(pid) == 3


def test_keyed_set_refuses_a_duplicate_key(store):
    """A set refuses a second element with a key it holds (TO2_ERROR_LOCATOR_NOT_UNIQUE)."""
    pid = store.create_keyed_set("MQS")
    store.at_new_key_put(pid, b"k", b"1")
    with raises_to2("TO2_ERROR_LOCATOR_NOT_UNIQUE"):
        store.at_new_key_put(pid, b"k", b"2")
    assert store.at_key(pid, b"k") == b"1" and store.count(pid) == 1


def test_at_key_put_replaces_or_adds(store):
    """at_key_put replaces the first element with the key, or adds one when there is none."""
    pid = store.create_keyed_bag("MQS")
    first = store.at_new_key_put(pid, b"k", b"old")
    store.at_new_key_put(pid, b"k", b"second")
    assert store.at_key_put(pid, b"k", b"new") == first
    assert [e.data for e in store.elements_at_key(pid, b"k")] == [b"new", b"second"]
    store.at_key_put(pid, b"z", b"added")
    assert store.at_key(pid, b"z") == b"added" and store.count(pid) == 3


def test_keys_are_binary_and_ordered_bytewise(store):
    """Keys are any bytes, NUL and 0xFF included, ordered as unsigned byte strings."""
    pid = store.create_keyed_set("MQS")
    keys = [b"\xff", b"a\x00", b"a", b"\x00", b"\x00\x00", b"a\x00\x01", b"a\x01", b"\x01"]
    for key in keys:
        store.at_new_key_put(pid, key, key)
    assert [e.key for e in store.cursor(pid)] == sorted(keys)
    assert all(store.at_key(pid, k) == k for k in keys)


def test_key_length_errors(store):
    """Empty, over-long, non-bytes or wrong fixed-length keys raise TO2_ERROR_LOCATOR_LGH."""
    free = store.create_keyed_bag("MQS")
    fixed = store.create_keyed_bag("MQS", key_length=4)
    store.at_new_key_put(free, b"x" * 240, b"ok")
    store.at_new_key_put(fixed, b"abcd", b"ok")
    for pid, key in [(free, b""), (free, b"x" * 241), (free, "text"), (fixed, b"abc"),
                     (fixed, b"abcde")]:
        with raises_to2("TO2_ERROR_LOCATOR_LGH"):
            store.at_new_key_put(pid, key, b"no")
    assert store.count(free) == 1 and store.count(fixed) == 1


def test_missing_key_is_not_found_or_empty(store):
    """at_key/remove_key report TO2_ERROR_EMPTY on an empty collection, else LOCATOR_NOT_FOUND."""
    pid = store.create_keyed_bag("MQS")
    with raises_to2("TO2_ERROR_EMPTY"):
        store.remove_key(pid, b"k")
    store.at_new_key_put(pid, b"a", b"")
    with raises_to2("TO2_ERROR_LOCATOR_NOT_FOUND"):
        store.at_key(pid, b"k")
    with raises_to2("TO2_ERROR_LOCATOR_NOT_FOUND"):
        store.remove_key(pid, b"k")
    assert store.elements_at_key(pid, b"k") == []


def test_entry_length_limits_data(store):
    """Data longer than the collection's entry length is TO2_ERROR_DATA_LGH; empty data is fine."""
    pid = store.create_keyed_bag("MQS", entry_length=4)
    store.at_new_key_put(pid, b"k", b"")
    store.at_new_key_put(pid, b"k", b"1234")
    with raises_to2("TO2_ERROR_DATA_LGH"):
        store.at_new_key_put(pid, b"k", b"12345")
    with raises_to2("TO2_ERROR_DATA_LGH"):
        store.at_key_put(pid, b"k", b"12345")
    with raises_to2("TO2_ERROR_PARAMETER"):
        store.at_new_key_put(pid, b"k", "text")
    assert store.count(pid) == 2


# --- sequences and logs -----------------------------------------------------------------


def test_sequence_indexes_count_from_one_and_never_change(store):
    """add returns 1, 2, 3...; removing one leaves the others' indexes and data in place."""
    pid = store.create_sequence("MQS")
    assert [store.add(pid, bytes([i])) for i in range(4)] == [1, 2, 3, 4]
    assert store.remove_index(pid, 2) == b"\x01"
    assert [(e.index, e.data) for e in store.cursor(pid)] == [
        (1, b"\x00"), (3, b"\x02"), (4, b"\x03")]
    store.put_at_index(pid, 3, b"new")
    assert store.at_index(pid, 3) == b"new" and store.add(pid, b"z") == 5
    with raises_to2("TO2_ERROR_LOCATOR_NOT_FOUND"):
        store.at_index(pid, 2)
    with raises_to2("TO2_ERROR_LOCATOR_NOT_FOUND"):
        store.put_at_index(pid, 2, b"x")
    for bad in (0, -1, True, "1"):
        with raises_to2("TO2_ERROR_INDEX"):
            store.at_index(pid, bad)


def test_log_drops_its_oldest_past_max_entries(store):
    """A log with max_entries keeps the newest entries; indexes keep counting up."""
    pid = store.create_log("MQS", max_entries=3)
    for i in range(1, 6):
        assert store.add(pid, b"%d" % i) == i
    assert [(e.index, e.data) for e in store.cursor(pid)] == [(3, b"3"), (4, b"4"), (5, b"5")]
    assert store.count(pid) == 3
    with raises_to2("TO2_ERROR_LOCATOR_NOT_FOUND"):
        store.at_index(pid, 1)


def test_log_refuses_removal_and_update(store):
    """A log is append-only: remove_index, put_at_index and take_first are TO2_ERROR_METHOD."""
    pid = store.create_log("MQS")
    store.add(pid, b"x")
    for call in (lambda: store.remove_index(pid, 1), lambda: store.put_at_index(pid, 1, b"y"),
                 lambda: store.take_first(pid)):
        with raises_to2("TO2_ERROR_METHOD"):
            call()
    assert store.at_index(pid, 1) == b"x"


def test_calls_of_the_wrong_kind_are_method_errors(store):
    """Keyed calls on sequences and index calls on keyed collections raise TO2_ERROR_METHOD."""
    seq, bag = store.create_sequence("MQS"), store.create_keyed_bag("MQS")
    for call in (lambda: store.at_key(seq, b"k"), lambda: store.at_new_key_put(seq, b"k", b""),
                 lambda: store.remove_key(seq, b"k"), lambda: store.add(bag, b""),
                 lambda: store.at_index(bag, 1), lambda: store.remove_index(bag, 1)):
        with raises_to2("TO2_ERROR_METHOD"):
            call()


# --- any kind ---------------------------------------------------------------------------


def test_take_first_removes_in_collection_order(store):
    """take_first returns and removes the first element by key, then None when empty."""
    pid = store.create_keyed_bag("MQS")
    for key in (b"c", b"a", b"b"):
        store.at_new_key_put(pid, key, key.upper())
    taken = [store.take_first(pid) for _ in range(4)]
    assert [e.data if e else None for e in taken] == [b"A", b"B", b"C", None]
    assert store.is_empty(pid)


def test_take_first_with_a_predicate_skips_unmatched(store):
    """take_first(pid, predicate) takes the first element the predicate accepts, only that one."""
    pid = store.create_sequence("MQS")
    for data in (b"red", b"blue", b"red2", b"blue2"):
        store.add(pid, data)
    element = store.take_first(pid, lambda e: e.data.startswith(b"blue"))
    assert element == Element(None, 2, b"blue")
    assert store.take_first(pid, lambda e: e.data == b"green") is None
    assert [e.data for e in store.cursor(pid)] == [b"red", b"red2", b"blue2"]


def test_a_failing_predicate_changes_nothing(store):
    """An exception from the predicate propagates and nothing is removed."""
    pid = store.create_sequence("MQS")
    store.add(pid, b"x")
    with pytest.raises(ZeroDivisionError):
        store.take_first(pid, lambda e: 1 / 0)
    assert store.count(pid) == 1


def test_first_last_count_remove_all(store):
    """first/last peek without removing; remove_all empties and reports how many it removed."""
    pid = store.create_sequence("MQS")
    assert store.first(pid) is None and store.last(pid) is None
    other = store.create_sequence("MQS")  # a neighbour, to prove the scans stop at the PID
    store.add(other, b"other")
    for data in (b"a", b"b", b"c"):
        store.add(pid, data)
    assert store.first(pid).data == b"a" and store.last(pid).data == b"c"
    assert store.last(other).data == b"other"
    assert store.remove_all(pid) == 3 and store.count(pid) == 0 and store.count(other) == 1


def test_elements_are_copies(store):
    """Returned elements are immutable copies, unaffected by later changes."""
    pid = store.create_keyed_bag("MQS")
    store.at_new_key_put(pid, b"k", bytearray(b"abc"))
    element = store.first(pid)
    store.at_key_put(pid, b"k", b"xyz")
    assert element.data == b"abc" and isinstance(element.data, bytes)
    with pytest.raises(AttributeError):
        element.data = b"no"


def test_to2_aliases_are_the_same_calls(store):
    """The to2_* spellings are the methods they are named after."""
    pid = store.to2_create_key_sorted_bag("MQS")
    store.to2_at_new_key_put(pid, b"k", b"1")
    store.to2_at_key_put(pid, b"k", b"2")
    assert store.to2_at_key(pid, b"k") == b"2"
    assert store.to2_remove_key(pid, b"k") == b"2" and store.to2_is_empty(pid)
    seq = store.to2_create_sequence("MQS")
    assert store.to2_add(seq, b"a") == 1 and store.to2_at(seq, 1) == b"a"
    store.to2_at_put(seq, 1, b"b")
    assert [e.data for e in store.to2_create_cursor(seq)] == [b"b"]
    store.to2_delete_collection(seq)
    store.to2_reclaim_pid(seq)
    assert store.to2_create_log("MQS") and store.to2_create_key_sorted_set("MQS")
    assert Tpfcs.to2_remove_key is Tpfcs.remove_key


def test_error_carries_code_name_call_and_pid(store):
    """A TpfcsError names the TO2 call, the PID, the TO2_ERROR mnemonic and its number."""
    pid = store.create_keyed_bag("MQS")
    store.at_new_key_put(pid, b"a", b"")
    with pytest.raises(TpfEmuError) as excinfo:
        store.remove_key(pid, b"zz")
    error = excinfo.value
    assert isinstance(error, TpfcsError)
    assert (error.code_name, error.call, error.pid) == (
        "TO2_ERROR_LOCATOR_NOT_FOUND", "TO2_removeKey", str(pid))
    assert ERROR_CODES[error.code] == error.code_name
    assert str(error).startswith(f"TO2_removeKey on PID {pid}: TO2_ERROR_LOCATOR_NOT_FOUND (")


def test_error_codes_are_unique_and_named_to2():
    """Every TO2 error number has one TO2_ERROR_ mnemonic."""
    assert len(set(ERROR_CODES.values())) == len(ERROR_CODES) >= 19
    assert all(name.startswith("TO2_ERROR_") for name in ERROR_CODES.values())
