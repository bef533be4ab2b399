"""The object catalog: DEFINE/ALTER/DELETE/DISPLAY rules, hooks, listeners and restore."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from tpfemu.errors import (
    MQCC_FAILED,
    DefinitionError,
    InternalError,
    ObjectInUse,
    UnknownObjectName,
)
from tpfemu.qmgr import (
    DEAD_LETTER_QUEUE,
    SPECIAL_RECOVERY_QUEUE,
    AliasQueueDef,
    Catalog,
    LocalQueueDef,
    ProcessDef,
    ProfileDef,
    RemoteQueueDef,
)

AUTOS = [DEAD_LETTER_QUEUE, SPECIAL_RECOVERY_QUEUE]
Event = tuple[str, str | None, str | None]


class Recorder:
    """A listener that records (event, old name, new name)."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.objects: list[tuple[str, Any, Any]] = []

    def clear(self) -> None:
        self.events.clear()
        self.objects.clear()

    def __call__(self, event: str, old: Any, new: Any) -> None:
        self.events.append((event, old and old.name, new and new.name))
        self.objects.append((event, old, new))


@pytest.fixture
def cat() -> Catalog:
    """A catalog with the profile defined."""
    catalog = Catalog(qmgr_name="TPF1")
    catalog.define("MQP", descr="profile")
    return catalog


@pytest.fixture
def rec(cat: Catalog) -> Recorder:
    recorder = Recorder()
    cat.subscribe(recorder)
    return recorder


def unchanged(cat: Catalog, rec: Recorder, action: Callable[[], Any], error: type) -> Exception:
    """Run a refused action; assert it raised ``error`` and changed and reported nothing."""
    before = [d.to_dict() for d in cat.snapshot()]
    with pytest.raises(error) as info:
        action()
    assert [d.to_dict() for d in cat.snapshot()] == before
    assert rec.events == []
    return info.value


# ------------------------------------------------------------------ the profile


def test_profile_creates_its_two_queues():
    """DEF MQP creates DEAD.LETTER.QUEUE and SPECIAL.RECOVERY.QUEUE as default local queues."""
    cat = Catalog(qmgr_name="TPF1")
    assert cat.profile is None and cat.list("Q") == []
    profile = cat.define("MQP", maxmsgl=1000)
    assert cat.profile is profile and isinstance(profile, ProfileDef)
    assert profile.name == "TPF1" and cat.get("MQP") is profile is cat.get("MQP", "TPF1")
    with pytest.raises(UnknownObjectName):
        cat.get("MQP", "OTHER")
    assert [q.name for q in cat.list("Q")] == AUTOS
    for name in AUTOS:
        queue = cat.get("QL", name)
        assert isinstance(queue, LocalQueueDef)
        assert (queue.common, queue.usage, queue.maxmsgl) == ("NO", "NORMAL", 1000)


def test_profile_defaults():
    """A profile defined without attributes has the documented defaults."""
    profile = Catalog().define("MQP")
    assert (profile.maxmsgl, profile.batchsz, profile.trigint, profile.expryint) == (
        4_194_304, 50, 999_999_999, 0)  # fmt: skip
    assert (profile.qdt, profile.maxumsgs, profile.descr) == (60, 10_000, "")


@pytest.mark.parametrize("type_name", ["QL", "QA", "QR", "PROC"])
def test_nothing_before_the_profile(type_name):
    """DEFINE, ALTER and DELETE of any other object before DEF MQP are refused, saying so."""
    cat = Catalog()
    attrs = {"QA": {"targq": "T"}, "QR": {"rqmname": "QM"}, "PROC": {"applid": "QZZ1"}}
    for action in (
        lambda: cat.define(type_name, "X", **attrs.get(type_name, {})),
        lambda: cat.alter(type_name, "X", descr="d"),
        lambda: cat.delete(type_name, "X"),
    ):
        with pytest.raises(DefinitionError, match="define the MQP first") as info:
            action()
        assert info.value.keyword == "MQP"
    assert cat.snapshot() == []


def test_profile_absent_is_unknown():
    """Before DEF MQP, DISPLAY, ALTER and DELETE of the MQP raise UnknownObjectName."""
    cat = Catalog()
    for action in (lambda: cat.get("MQP"), lambda: cat.alter("MQP", batchsz=5),
                   lambda: cat.delete("MQP")):  # fmt: skip
        with pytest.raises(UnknownObjectName):
            action()
    assert cat.list("MQP") == []


def test_profile_is_named_like_the_queue_manager():
    """DEF MQP accepts the queue manager's name and refuses another."""
    cat = Catalog(qmgr_name="QM.A")
    with pytest.raises(DefinitionError) as info:
        cat.define("MQP", "QM.B")
    assert info.value.keyword == "MQP" and cat.profile is None
    assert cat.define("MQP", "QM.A").name == "QM.A"


def test_profile_defined_twice(cat, rec):
    """A second DEF MQP is refused; with REPLACE it resets unspecified attributes to defaults."""
    error = unchanged(cat, rec, lambda: cat.define("MQP", batchsz=7), DefinitionError)
    assert "REPLACE" in str(error)
    new = cat.define("MQP", replace=True, batchsz=7)
    assert (new.batchsz, new.descr) == (7, "")
    assert rec.events == [("alter", "TPF1", "TPF1")]
    assert [q.name for q in cat.list("Q")] == AUTOS


def test_alter_profile_changes_only_given(cat, rec):
    """ALTER MQP changes the given attributes and keeps the rest."""
    new = cat.alter("MQP", qdt=5, expryint=30)
    assert (new.qdt, new.expryint, new.descr) == (5, 30, "profile")
    assert cat.profile is new and rec.events == [("alter", "TPF1", "TPF1")]


def test_alter_profile_refused_changes_nothing(cat, rec):
    """An ALTER MQP with one bad attribute applies none of them."""
    error = unchanged(cat, rec, lambda: cat.alter("MQP", qdt=5, batchsz=0), DefinitionError)
    assert error.keyword == "BATCHSZ" and cat.profile.qdt == 60


@pytest.mark.parametrize("name", AUTOS)
def test_profile_queues_are_protected(cat, rec, name):
    """The profile's queues cannot be deleted while the MQP exists, but can be altered."""
    unchanged(cat, rec, lambda: cat.delete("QL", name), DefinitionError)
    assert cat.alter("QL", name, maxdepth=5).maxdepth == 5


def test_profile_delete_refused_while_objects_exist(cat, rec):
    """DELETE MQP is refused while any queue or process beyond its own two queues exists."""
    cat.define("PROC", "P", applid="QZZ1")
    cat.define("QL", "Q1")
    rec.clear()
    error = unchanged(cat, rec, lambda: cat.delete("MQP"), DefinitionError)
    assert "P" in str(error) and "Q1" in str(error)
    cat.delete("QL", "Q1")
    rec.clear()
    error = unchanged(cat, rec, lambda: cat.delete("MQP"), DefinitionError)
    assert "1 other object" in str(error)


def test_profile_delete_takes_its_queues(cat, rec):
    """DELETE MQP removes the profile and its two queues; then the MQP-first rule applies."""
    deleted = cat.delete("MQP")
    assert isinstance(deleted, ProfileDef) and cat.profile is None
    assert cat.snapshot() == []
    assert rec.events == [
        ("delete", DEAD_LETTER_QUEUE, None),
        ("delete", SPECIAL_RECOVERY_QUEUE, None),
        ("delete", "TPF1", None),
    ]
    with pytest.raises(DefinitionError, match="MQP first"):
        cat.define("QL", "Q")


def test_define_profile_events():
    """DEF MQP reports the profile first, then its two queues."""
    cat = Catalog()
    rec = Recorder()
    cat.subscribe(rec)
    cat.define("MQP")
    assert rec.events == [("define", None, "TPF1"), ("define", None, DEAD_LETTER_QUEUE),
                          ("define", None, SPECIAL_RECOVERY_QUEUE)]  # fmt: skip


# ------------------------------------------------------------------ define / replace


def test_define_each_type(cat):
    """QL, QA, QR and PROC definitions are stored and returned with their attributes."""
    ql = cat.define("QL", "APP.IN", maxdepth=100, trigger="YES", trigtype="EVERY",
                    process="APP.PROC")  # fmt: skip
    qa = cat.define("QA", "APP.ALIAS", targq="APP.IN")
    qr = cat.define("QR", "APP.REMOTE", rname="R.Q", rqmname="QM2")
    proc = cat.define("PROC", "APP.PROC", applid="QZZ1")
    assert (ql.maxdepth, ql.trigger, ql.trigtype) == (100, "YES", "EVERY")
    assert isinstance(qa, AliasQueueDef) and isinstance(qr, RemoteQueueDef)
    assert isinstance(proc, ProcessDef)
    assert cat.get("QL", "APP.IN") is ql and cat.get("PROC", "APP.PROC") is proc


def test_type_names_are_case_insensitive(cat):
    """Object types are accepted in any case; an unknown type is refused listing the types."""
    assert cat.define("ql", "Q").type_name == "QL"
    with pytest.raises(DefinitionError) as info:
        cat.define("QX", "Q2")
    assert "QL" in info.value.accepted and "PROC" in info.value.accepted


def test_redefine_without_replace_refused(cat, rec):
    """DEFINE of an existing object without REPLACE is refused and changes nothing."""
    cat.define("QL", "Q", maxdepth=5)
    rec.clear()
    error = unchanged(cat, rec, lambda: cat.define("QL", "Q", maxdepth=6), DefinitionError)
    assert "REPLACE" in str(error) and error.keyword == "QL"


def test_replace_resets_unspecified_attributes(cat, rec):
    """DEFINE REPLACE takes the given attributes and defaults for the others."""
    old = cat.define("QL", "Q", maxdepth=5, put="DISABLED")
    new = cat.define("QL", "Q", replace=True, get="DISABLED")
    assert (new.maxdepth, new.put, new.get) == (999_999_999, "ENABLED", "DISABLED")
    assert rec.objects[-1] == ("alter", old, new)


def test_replace_of_new_object_is_a_define(cat, rec):
    """DEFINE REPLACE of an object that does not exist defines it."""
    cat.define("PROC", "P", replace=True, applid="QZZ1")
    assert rec.events == [("define", None, "P")]


def test_replace_cannot_change_common(cat, rec):
    """DEFINE REPLACE must keep COMMON; repeating COMMON YES is accepted."""
    cat.define("QL", "SHARED", common="YES")
    rec.clear()
    error = unchanged(cat, rec, lambda: cat.define("QL", "SHARED", replace=True), DefinitionError)
    assert error.keyword == "COMMON"
    assert cat.define("QL", "SHARED", replace=True, common="YES", maxdepth=3).maxdepth == 3


@pytest.mark.parametrize(
    ("first", "second", "attrs"),
    [("QL", "QA", {"targq": "T"}), ("QA", "QR", {"rqmname": "QM"}), ("QR", "QL", {})],
)
def test_queue_namespace_is_shared(cat, rec, first, second, attrs):
    """A queue name used by one queue type is refused for another, naming the existing type."""
    cat.define(first, "SAME", **{"QA": {"targq": "T"}, "QR": {"rqmname": "QM"}}.get(first, {}))
    rec.clear()
    for replace in (False, True):
        error = unchanged(
            cat,
            rec,
            lambda r=replace: cat.define(second, "SAME", replace=r, **attrs),
            DefinitionError,
        )
        assert f"a {first} of that name exists" in str(error)


def test_processes_have_their_own_namespace(cat):
    """A process may share its name with a queue."""
    cat.define("QL", "APP.X")
    cat.define("PROC", "APP.X", applid="QZZ1")
    assert cat.find_queue("APP.X").type_name == "QL"
    assert cat.find_process("APP.X").type_name == "PROC"


def test_names_are_stored_as_given(cat):
    """Names keep their case: 'app.in' and 'APP.IN' are two queues."""
    cat.define("QL", "app.in")
    cat.define("QL", "APP.IN")
    assert cat.find_queue("app.in").name == "app.in"
    assert {"app.in", "APP.IN"} <= {q.name for q in cat.list("QL")}


@pytest.mark.parametrize("name", ["ALL", "A" * 49, "BAD NAME", "", None])
def test_define_refuses_bad_names(cat, rec, name):
    """DEFINE refuses the reserved ALL, names over 48 characters, bad characters and no name."""
    error = unchanged(cat, rec, lambda: cat.define("QL", name), DefinitionError)
    assert error.keyword == "QL"


def test_define_accepts_48_character_name(cat):
    """A 48-character name is accepted."""
    assert cat.define("QL", "Q" * 48).name == "Q" * 48


def test_local_queue_maxmsgl_follows_profile(cat):
    """A QL's MAXMSGL defaults to the profile's and may not exceed it."""
    cat.alter("MQP", maxmsgl=2000)
    assert cat.define("QL", "Q").maxmsgl == 2000
    assert cat.define("QL", "Q2", maxmsgl=2000).maxmsgl == 2000
    assert cat.define("QL", "Q0", maxmsgl=0).maxmsgl == 0
    with pytest.raises(DefinitionError) as info:
        cat.define("QL", "Q3", maxmsgl=2001)
    assert info.value.keyword == "MAXMSGL" and "2000" in info.value.accepted
    with pytest.raises(DefinitionError):
        cat.alter("QL", "Q", maxmsgl=2001)
    assert cat.get("QL", "Q").maxmsgl == 2000 and cat.find_queue("Q3") is None


def test_lowering_profile_maxmsgl_keeps_queues(cat):
    """Lowering the profile's MAXMSGL leaves queues as they are, and they stay alterable."""
    cat.define("QL", "BIG")
    cat.alter("MQP", maxmsgl=100)
    assert cat.get("QL", "BIG").maxmsgl == 4_194_304
    assert cat.alter("QL", "BIG", put="DISABLED").maxmsgl == 4_194_304


@pytest.mark.parametrize(
    ("attrs", "keyword"),
    [
        ({"common": "YES", "qdepthhi": 50}, "QDEPTHHI"),
        ({"common": "YES", "usage": "XMITQ"}, "USAGE"),
        ({"maxdepth": -1}, "MAXDEPTH"),
        ({"trigtype": "SOMETIMES"}, "TRIGTYPE"),
        ({"trigdpth": 0}, "TRIGDPTH"),
        ({"colour": "red"}, "COLOUR"),
    ],
)
def test_define_refusals_change_nothing(cat, rec, attrs, keyword):
    """A refused DEFINE names the keyword and leaves the catalog and listeners untouched."""
    error = unchanged(cat, rec, lambda: cat.define("QL", "Q", **attrs), DefinitionError)
    assert error.keyword == keyword


def test_unknown_attribute_lists_valid_ones(cat):
    """An attribute the type lacks is refused naming it and listing the type's attributes."""
    with pytest.raises(DefinitionError) as info:
        cat.define("QR", "R", rqmname="QM", get="DISABLED")
    assert info.value.keyword == "GET"
    assert all(k in str(info.value) for k in ("RNAME", "RQMNAME", "XMITQ", "PUT"))


# ------------------------------------------------------------------ alter / delete / get


def test_alter_changes_only_given_attributes(cat, rec):
    """ALTER changes the given attributes, keeps the others and reports old and new."""
    old = cat.define("QL", "APP.IN", maxdepth=100, trigger="YES")
    rec.clear()
    new = cat.alter("QL", "APP.IN", put="DISABLED")
    assert (new.put, new.maxdepth, new.trigger) == ("DISABLED", 100, "YES")
    assert old.put == "ENABLED" and cat.get("QL", "APP.IN") is new
    assert rec.objects == [("alter", old, new)]


def test_alter_refused_changes_nothing(cat, rec):
    """An ALTER with one bad attribute applies none of them."""
    cat.define("QL", "Q")
    rec.clear()
    error = unchanged(cat, rec, lambda: cat.alter("QL", "Q", put="DISABLED", defprty=10),
                      DefinitionError)  # fmt: skip
    assert error.keyword == "DEFPRTY" and cat.get("QL", "Q").put == "ENABLED"


def test_alter_cannot_change_common(cat, rec):
    """ALTER refuses a different COMMON; the same value is a no-op."""
    cat.define("QL", "Q")
    rec.clear()
    error = unchanged(cat, rec, lambda: cat.alter("QL", "Q", common="YES"), DefinitionError)
    assert error.keyword == "COMMON"
    assert cat.alter("QL", "Q", common="NO").common == "NO"


def test_alter_qdepthhi_on_shared_queue_refused(cat, rec):
    """ALTER of QDEPTHHI or USAGE XMITQ on a COMMON YES queue is refused."""
    cat.define("QL", "S", common="YES")
    rec.clear()
    assert unchanged(cat, rec, lambda: cat.alter("QL", "S", qdepthhi=10),
                     DefinitionError).keyword == "QDEPTHHI"  # fmt: skip
    assert unchanged(cat, rec, lambda: cat.alter("QL", "S", usage="XMITQ"),
                     DefinitionError).keyword == "USAGE"  # fmt: skip


@pytest.mark.parametrize("verb", ["alter", "delete"])
def test_alter_or_delete_unknown_object(cat, rec, verb):
    """ALTER or DELETE of an object that does not exist raises UnknownObjectName (2085)."""
    action = getattr(cat, verb)
    error = unchanged(cat, rec, lambda: action("QL", "NOPE"), UnknownObjectName)
    assert (error.comp, error.reason, error.obj) == (MQCC_FAILED, 2085, "NOPE")
    assert "MQRC_UNKNOWN_OBJECT_NAME" in str(error)


def test_get_unknown_and_wrong_type(cat):
    """DISPLAY of a missing name, or of a queue under another queue type, is unknown."""
    cat.define("QA", "ALIAS", targq="T")
    with pytest.raises(UnknownObjectName):
        cat.get("QL", "MISSING")
    with pytest.raises(UnknownObjectName):
        cat.get("QL", "ALIAS")
    with pytest.raises(UnknownObjectName):
        cat.alter("QL", "ALIAS", maxdepth=1)


def test_delete(cat, rec):
    """DELETE removes the object, returns its definition and reports it."""
    queue = cat.define("QL", "Q")
    rec.clear()
    assert cat.delete("QL", "Q") is queue
    assert cat.find_queue("Q") is None and rec.objects == [("delete", queue, None)]
    with pytest.raises(UnknownObjectName):
        cat.get("QL", "Q")


def test_find_queue_and_process(cat):
    """find_queue finds QL, QA and QR (not processes); find_process finds processes."""
    cat.define("QL", "L")
    cat.define("QA", "A", targq="L")
    cat.define("QR", "R", rqmname="QM")
    cat.define("PROC", "P", applid="QZZ1")
    assert [cat.find_queue(n).type_name for n in "LAR"] == ["QL", "QA", "QR"]
    assert cat.find_queue("P") is None and cat.find_queue("X") is None
    assert cat.find_process("P").applid == "QZZ1" and cat.find_process("L") is None


# ------------------------------------------------------------------ listing


@pytest.fixture
def listed(cat: Catalog) -> Catalog:
    for name in ("APP.B", "APP.A", "APPX", "OTHER"):
        cat.define("QL", name)
    cat.define("QA", "APP.ALIAS", targq="APP.A")
    cat.define("PROC", "APP.P", applid="QZZ1")
    return cat


@pytest.mark.parametrize(
    ("type_name", "pattern", "names"),
    [
        ("QL", "APP.*", ["APP.A", "APP.B"]),
        ("QL", "APP*", ["APP.A", "APP.B", "APPX"]),
        ("QL", "*", ["APP.A", "APP.B", "APPX", DEAD_LETTER_QUEUE, "OTHER",
                     SPECIAL_RECOVERY_QUEUE]),
        ("QL", "ALL", ["APP.A", "APP.B", "APPX", DEAD_LETTER_QUEUE, "OTHER",
                       SPECIAL_RECOVERY_QUEUE]),
        ("QL", "APPX", ["APPX"]),
        ("QL", "APP.ALIAS", []),
        ("QL", "NONE*", []),
        ("QA", "*", ["APP.ALIAS"]),
        ("Q", "APP.*", ["APP.A", "APP.ALIAS", "APP.B"]),
        ("PROC", "APP.*", ["APP.P"]),
        ("MQP", "*", ["TPF1"]),
    ],
)  # fmt: skip
def test_generic_listing(listed, type_name, pattern, names):
    """list() matches names and trailing-* generic names within a type, sorted by name."""
    assert [d.name for d in listed.list(type_name, pattern)] == names


@pytest.mark.parametrize("pattern", ["A*B", "**", "", "*.X"])
def test_listing_refuses_inner_asterisk(listed, pattern):
    """A generic name with * anywhere but the end (or an empty pattern) is refused."""
    with pytest.raises(DefinitionError):
        listed.list("QL", pattern)


# ------------------------------------------------------------------ in_use hook


def make_busy(busy: dict[tuple[str, str], str]) -> tuple[Catalog, list[tuple[str, str]]]:
    """A catalog with a profile whose in_use hook answers from ``busy`` and records calls."""
    calls: list[tuple[str, str]] = []

    def in_use(type_name: str, name: str) -> str | None:
        calls.append((type_name, name))
        return busy.get((type_name, name))

    cat = Catalog(in_use=in_use)
    cat.define("MQP")
    return cat, calls


def test_in_use_refuses_delete():
    """DELETE is refused with the hook's reason as a DefinitionError, changing nothing."""
    cat, calls = make_busy({("QL", "Q"): "2 messages on the queue"})
    cat.define("QL", "Q")
    rec = Recorder()
    cat.subscribe(rec)
    error = unchanged(cat, rec, lambda: cat.delete("QL", "Q"), DefinitionError)
    assert "2 messages on the queue" in str(error) and calls[-1] == ("QL", "Q")
    cat.define("QL", "FREE")
    cat.delete("QL", "FREE")
    assert calls[-1] == ("QL", "FREE")


def test_in_use_consulted_for_usage_change_only():
    """The hook is consulted when ALTER or REPLACE changes USAGE, not for other changes."""
    cat, calls = make_busy({("QL", "Q"): "open by 1 handle"})
    cat.define("QL", "Q")
    cat.alter("QL", "Q", maxdepth=3, usage="NORMAL")
    assert calls == []
    rec = Recorder()
    cat.subscribe(rec)
    error = unchanged(cat, rec, lambda: cat.alter("QL", "Q", usage="XMITQ"), DefinitionError)
    assert error.keyword == "USAGE" and "open by 1 handle" in str(error)
    unchanged(cat, rec, lambda: cat.define("QL", "Q", replace=True, usage="XMITQ"),
              DefinitionError)  # fmt: skip
    assert calls == [("QL", "Q"), ("QL", "Q")]


def test_in_use_hook_may_raise_its_own_error():
    """An MQMIError raised by the hook propagates unchanged and nothing is deleted."""

    def in_use(type_name: str, name: str) -> str | None:
        raise ObjectInUse(MQCC_FAILED, 2042, call="DELETE", obj=name)

    cat = Catalog(in_use=in_use)
    cat.define("MQP")
    cat.define("QL", "Q")
    with pytest.raises(ObjectInUse):
        cat.delete("QL", "Q")
    assert cat.find_queue("Q") is not None


def test_in_use_protects_profile_queues_on_profile_delete():
    """DELETE MQP is refused while the hook reports a profile queue in use."""
    cat, calls = make_busy({("QL", DEAD_LETTER_QUEUE): "3 messages on the queue"})
    with pytest.raises(DefinitionError, match="3 messages"):
        cat.delete("MQP")
    assert cat.profile is not None and cat.find_queue(DEAD_LETTER_QUEUE) is not None
    assert ("QL", DEAD_LETTER_QUEUE) in calls


# ------------------------------------------------------------------ listeners


def test_unsubscribe(cat, rec):
    """After unsubscribing, a listener hears nothing more."""
    other = Recorder()
    stop = cat.subscribe(other)
    cat.define("QL", "A")
    stop()
    stop()
    cat.define("QL", "B")
    assert other.events == [("define", None, "A")]
    assert rec.events == [("define", None, "A"), ("define", None, "B")]


def test_failing_listener_keeps_change_and_runs_others(cat, rec):
    """A raising listener: the change stands, later listeners still run, caller gets
    InternalError."""

    def broken(event: str, old: Any, new: Any) -> None:
        raise RuntimeError("boom")

    later = Recorder()
    cat.subscribe(broken)
    cat.subscribe(later)
    with pytest.raises(InternalError, match="the change was made") as info:
        cat.define("QL", "Q")
    assert isinstance(info.value.__cause__, RuntimeError)
    assert cat.find_queue("Q") is not None
    assert rec.events == later.events == [("define", None, "Q")]


def test_listener_sees_the_change_in_the_catalog(cat):
    """A listener reading the catalog sees the state after the change."""
    seen: list[Any] = []
    cat.subscribe(lambda event, old, new: seen.append(cat.find_queue("Q")))
    queue = cat.define("QL", "Q")
    cat.delete("QL", "Q")
    assert seen == [queue, None]


# ------------------------------------------------------------------ threads


def test_concurrent_defines_of_one_name():
    """Of many threads defining one name at once, exactly one succeeds."""
    cat = Catalog()
    cat.define("MQP")
    results: list[str] = []
    barrier = threading.Barrier(8)

    def worker(i: int) -> None:
        barrier.wait()
        try:
            cat.define("QL", "RACE", maxdepth=i)
            results.append("ok")
        except DefinitionError:
            results.append("refused")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["ok"] + ["refused"] * 7


def test_concurrent_changes_report_every_event_in_order():
    """Concurrent defines of distinct names all land, each reported once and in order, while
    a concurrent reader lists safely."""
    cat = Catalog()
    cat.define("MQP")
    rec = Recorder()
    cat.subscribe(rec)

    def worker(i: int) -> None:
        for j in range(25):
            cat.define("QL", f"T{i}.{j}")
            cat.alter("QL", f"T{i}.{j}", maxdepth=j)

    listed: list[int] = []

    def reader() -> None:
        for _ in range(200):
            listed.append(len(cat.list("Q", "T*")))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    threads.append(threading.Thread(target=reader))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(listed) == 200 and listed == sorted(listed)
    assert len(cat.list("QL", "T*")) == 100
    for i in range(4):
        mine = [e for e in rec.events if e[2] and e[2].startswith(f"T{i}.")]
        assert [e[0] for e in mine] == ["define", "alter"] * 25


# ------------------------------------------------------------------ snapshot / restore


def test_snapshot_and_restore_round_trip(cat):
    """restore() of a snapshot's dicts rebuilds an equal catalog, reporting each define."""
    cat.define("QL", "Q", maxdepth=5)
    cat.define("PROC", "P", applid="QZZ1")
    cat.alter("QL", DEAD_LETTER_QUEUE, maxdepth=7)
    data = [d.to_dict() for d in cat.snapshot()]
    assert data[0]["type"] == "MQP"
    other = Catalog()
    rec = Recorder()
    other.subscribe(rec)
    other.restore(data)
    assert other.snapshot() == cat.snapshot()
    assert rec.events[0] == ("define", None, "TPF1")
    assert len(rec.events) == len(data)


def test_restore_creates_missing_profile_queues():
    """restore() adds the profile's queues when the stored set lacks them."""
    cat = Catalog()
    cat.restore([ProfileDef(name="TPF1")])
    assert [q.name for q in cat.list("QL")] == AUTOS


@pytest.mark.parametrize(
    "stored",
    [
        [{"type": "QL", "name": "Q"}],
        [{"type": "MQP", "name": "OTHER"}],
        [{"type": "MQP", "name": "TPF1"}, {"type": "QL", "name": "Q"},
         {"type": "QA", "name": "Q", "targq": "T"}],
        [{"type": "MQP", "name": "TPF1"}, {"type": "QA", "name": DEAD_LETTER_QUEUE,
                                           "targq": "T"}],
    ],
)  # fmt: skip
def test_restore_refuses_inconsistent_sets(stored):
    """restore() refuses sets without the right profile, with clashes or a non-QL DLQ."""
    cat = Catalog()
    with pytest.raises(DefinitionError):
        cat.restore(stored)
    assert cat.snapshot() == [] and cat.profile is None


def test_restore_needs_empty_catalog(cat):
    """restore() into a catalog that holds definitions is refused."""
    with pytest.raises(DefinitionError):
        cat.restore([ProfileDef(name="TPF1")])


def test_delete_prepare_runs_after_the_rules_and_before_the_veto():
    """``prepare`` is not called when another rule refuses (unknown object, the profile's
    own queue); it runs before the in_use veto, and if it raises nothing is deleted."""
    cat, calls = make_busy({})
    cat.define("QL", "Q")
    seen: list[str] = []

    def prepare(old: Any) -> None:
        seen.append(old.name)
        assert calls == []  # the veto is asked after prepare

    with pytest.raises(UnknownObjectName):
        cat.delete("QL", "NOPE", prepare=prepare)
    with pytest.raises(DefinitionError):
        cat.delete("QL", DEAD_LETTER_QUEUE, prepare=prepare)
    assert seen == []

    def refuse(old: Any) -> None:
        raise DefinitionError("busy", keyword="PURGE")

    rec = Recorder()
    cat.subscribe(rec)
    unchanged(cat, rec, lambda: cat.delete("QL", "Q", prepare=refuse), DefinitionError)
    cat.delete("QL", "Q", prepare=prepare)
    assert seen == ["Q"] and calls == [("QL", "Q")] and cat.find_queue("Q") is None
