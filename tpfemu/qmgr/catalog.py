"""The queue manager's object catalog: DEFINE, ALTER, DELETE and DISPLAY of definitions.

The console (``ZMQSC DEF QL-APP.IN MAXDEPTH-100``) drives this Python API::

    cat = Catalog(qmgr_name="TPF1")
    cat.define("MQP")                            # also DEAD.LETTER.QUEUE, SPECIAL.RECOVERY.QUEUE
    cat.define("QL", "APP.IN", maxdepth=100, trigger="YES", process="APP.PROC")
    cat.alter("QL", "APP.IN", put="DISABLED")
    cat.list("QL", "APP.*")                      # -> [LocalQueueDef(...)]

Rules (TPF, seed 004 and ``tpf-facts.md`` §2):

- ``DEF MQP`` comes first: every other DEFINE/ALTER/DELETE before it is refused. It creates
  ``DEAD.LETTER.QUEUE`` and ``SPECIAL.RECOVERY.QUEUE`` (local, processor-unique, defaults),
  which cannot be deleted while the profile exists; the profile can be deleted only when no
  other object exists, and takes those two queues with it.
- QL, QA and QR share one namespace; processes and channels (CHL) have their own. Names
  are stored as given (the console upper-cases unquoted names).
- Every command is checked completely before anything changes: a refused command raises
  :class:`~tpfemu.errors.DefinitionError` (naming the MQSC keyword and what it accepts) and
  changes nothing. Addressing an object that does not exist raises
  :class:`~tpfemu.errors.UnknownObjectName` (MQRC 2085).
- ``DEFINE ... REPLACE`` of an existing object is like IBM's: attributes not given take their
  defaults (not the old values), the type cannot change, and attributes that ALTER cannot
  change (COMMON) must keep their values. Listeners see it as an ``"alter"``, because the
  live object (and its messages) is kept.
- A QL's MAXMSGL may not exceed the profile's when it is given (or defaulted) on DEFINE or
  ALTER. Lowering the profile's MAXMSGL later is allowed and leaves queues as they are: the
  lower of the two limits applies at MQPUT, as in IBM MQ (2030 vs 2031).
- A channel's BATCHSZ defaults to the profile's, and its CPU to the catalog's processor.

Runtime tables kept beside the definitions (not part of :meth:`snapshot`, not persisted as
definitions): ``xmitq_routes`` (transmission-queue swings made by ``ZMQSC SWQ``, see
:mod:`tpfemu.qmgr.swq`; name resolution follows them) and ``channel_requests`` (the state
operators asked for with ``ZMQSC START/STOP/RESET/RESOLVE CHL``, for the channel agent).

Hooks for the queue manager, which owns the live queues:

- ``in_use(type_name, name) -> str | None`` is consulted before a DELETE (for every object
  deleted) and before a change of a QL's USAGE; a string is the reason to refuse, raised as
  DefinitionError (an operator command is refused, not an MQI call). The hook may instead
  raise an MQMIError of its own (e.g. ObjectInUse); it propagates and nothing changes.
- ``subscribe(listener)``: ``listener(event, old, new)`` with event ``"define"``
  (old None), ``"alter"`` or ``"delete"`` (new None) is called after each change is made.
  Listeners must not fail (refusals belong in ``in_use``): if one raises anyway, the change
  stands, the remaining listeners still run, and the caller gets InternalError.

Threads: changes, the ``in_use`` hook and listeners run under one re-entrant lock, so events
arrive in the order of the changes; hooks and listeners may read the catalog but must not
change it, nor wait for a thread that does. ``get``/``find_*``/``profile`` take no lock:
definitions are immutable and each change replaces one dictionary entry atomically.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tpfemu.errors import (
    MQCC_FAILED,
    DefinitionError,
    InternalError,
    UnknownObjectName,
)
from tpfemu.mq import cmqc
from tpfemu.qmgr.objects import (
    AUTO_QUEUES,
    DEFINITION_TYPES,
    ChannelDef,
    LocalQueueDef,
    ObjectDef,
    ProcessDef,
    ProfileDef,
    QueueDef,
    check_name,
)

MQRC_UNKNOWN_OBJECT_NAME = cmqc.MQRC_UNKNOWN_OBJECT_NAME  # defined once, in tpfemu.mq.cmqc

QUEUE_TYPES = ("QL", "QA", "QR")
ALL_QUEUES = "Q"  # list("Q", ...) lists every queue type
Listener = Callable[[str, ObjectDef | None, ObjectDef | None], None]
InUse = Callable[[str, str], str | None]


@dataclass(frozen=True)
class ChannelRequest:
    """What operators last asked of a channel (``catalog.channel_requests[name]``).

    Recorded by ``ZMQSC START/STOP/RESET/RESOLVE CHL`` for the channel agent to act on.
    """

    state: str = ""  # "RUNNING" after START, "STOPPED" after STOP, "" if neither was asked
    mode: str = ""  # STOP: QUIESCE (finish the batch) or FORCE
    seqnum: int | None = None  # RESET: the message sequence number to use next
    resolve: str = ""  # RESOLVE: COMMIT or BACKOUT the in-doubt batch
    time_us: int = 0  # when the last request was made (microseconds since the epoch)


def _definition_class(type_name: str) -> type[ObjectDef]:
    cls = DEFINITION_TYPES.get(type_name.upper()) if isinstance(type_name, str) else None
    if cls is None:
        raise DefinitionError(
            f"{type_name!r} is not an object type",
            keyword="TYPE",
            accepted=", ".join(DEFINITION_TYPES),
        )
    return cls


def matches(name: str, pattern: str) -> bool:
    """True if ``name`` matches a name or generic name (``APP.*``; ``*`` or ``ALL`` = all)."""
    if pattern in ("*", "ALL"):
        return True
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern


class Generation:
    """One generation of the catalog's contents. A decision cached against it (an MQI
    handle's put or get plan) holds it, and is good while :attr:`current` is True: the
    next change (:meth:`Catalog.new_generation`) makes it False."""

    __slots__ = ("current", "memo")

    def __init__(self) -> None:
        self.current = True
        #: values derived from this generation's contents, kept while it is current
        self.memo: dict[str, Any] = {}


class Catalog:
    """The definitions of one queue manager: profile, queues and processes.

    :param qmgr_name: the queue manager's name (also the profile's).
    :param in_use: the queue manager's veto on DELETE and on USAGE changes (see module doc).
    :param cpu: the processor ID this catalog's queue manager runs on (a channel's default CPU).
    """

    def __init__(
        self, qmgr_name: str = "TPF1", *, in_use: InUse | None = None, cpu: str = "B"
    ) -> None:
        self.qmgr_name = check_name(qmgr_name, "QMGR")
        self.cpu = cpu
        self._in_use = in_use
        self._lock = threading.RLock()
        self._profile: ProfileDef | None = None
        self._queues: dict[str, QueueDef] = {}
        self._processes: dict[str, ProcessDef] = {}
        self._channels: dict[str, ChannelDef] = {}
        #: Transmission-queue swings (``ZMQSC SWQ``): original XMITQ name -> the one new
        #: puts go to instead. Changed only by :mod:`tpfemu.qmgr.swq`, under :attr:`lock`.
        self.xmitq_routes: dict[str, str] = {}
        #: What operators asked of each channel (START/STOP/RESET/RESOLVE): channel name ->
        #: a record the channel agent acts on. Dropped when the channel is deleted.
        self.channel_requests: dict[str, ChannelRequest] = {}
        self._listeners: list[Listener] = []
        #: Replaced by every change, before listeners run (see :meth:`new_generation`).
        self.generation = Generation()

    def new_generation(self) -> None:
        """Retire the current generation: decisions cached against it (the MQI's put and
        get plans) must be made again. Called on every change of the catalog, and by
        anything else that must take the MQI off its fast paths (a stop, a swing)."""
        self.generation.current = False
        self.generation = Generation()

    # ---------------------------------------------------------------- reading

    @property
    def lock(self) -> threading.RLock:
        """The re-entrant lock every change takes (for multi-step changes made elsewhere)."""
        return self._lock

    @property
    def profile(self) -> ProfileDef | None:
        """The profile (``DEF MQP``), or None before it is defined."""
        return self._profile

    def get(self, type_name: str, name: str | None = None) -> ObjectDef:
        """The definition of that type and name; UnknownObjectName (2085) if there is none."""
        cls = _definition_class(type_name)
        found: ObjectDef | None
        if cls is ProfileDef:
            found = self._profile if name in (None, "", self.qmgr_name) else None
        else:
            found = self._space(cls).get(name or "")
        if found is None or type(found) is not cls:
            raise self._unknown("DISPLAY", cls, name)
        return found

    def find_queue(self, name: str) -> QueueDef | None:
        """The QL, QA or QR definition named ``name``, or None."""
        return self._queues.get(name)

    def find_process(self, name: str) -> ProcessDef | None:
        """The process definition named ``name``, or None."""
        return self._processes.get(name)

    def find_channel(self, name: str) -> ChannelDef | None:
        """The channel definition named ``name``, or None."""
        return self._channels.get(name)

    def list(self, type_name: str, pattern: str = "*") -> list[ObjectDef]:
        """The definitions of a type whose names match ``pattern``, sorted by name.

        ``pattern`` is a name or a generic name: a trailing ``*`` (``APP.*``), and ``*`` or
        ``ALL`` for all. ``type_name`` ``"Q"`` lists QL, QA and QR together.
        """
        if not isinstance(pattern, str) or "*" in pattern[:-1] or not pattern:
            raise DefinitionError(
                f"{pattern!r} is not a name or generic name",
                keyword=str(type_name).upper(),
                accepted="a name, or a generic name ending in * (* alone for all)",
            )
        with self._lock:  # iterating while another thread defines would fail
            if isinstance(type_name, str) and type_name.upper() == ALL_QUEUES:
                pool: list[ObjectDef] = list(self._queues.values())
            else:
                cls = _definition_class(type_name)
                if cls is ProfileDef:
                    return [self._profile] if self._profile is not None else []
                pool = [d for d in self._space(cls).values() if type(d) is cls]
        return sorted((d for d in pool if matches(d.name, pattern)), key=lambda d: d.name)

    def snapshot(self) -> builtins.list[ObjectDef]:
        """Every definition: the profile first, then queues, processes and channels by name."""
        with self._lock:
            head: list[ObjectDef] = [self._profile] if self._profile is not None else []
            queues = sorted(self._queues.values(), key=lambda d: d.name)
            procs = sorted(self._processes.values(), key=lambda d: d.name)
            chls = sorted(self._channels.values(), key=lambda d: d.name)
            return head + queues + procs + chls

    # ---------------------------------------------------------------- hooks

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event, old, new)`` after every change; returns an unsubscriber."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    # ---------------------------------------------------------------- changing

    def define(
        self, type_name: str, name: str | None = None, *, replace: bool = False, **attrs: Any
    ) -> ObjectDef:
        """DEFINE an object (``replace=True``: DEFINE ... REPLACE); returns the definition."""
        cls = _definition_class(type_name)
        with self._lock:
            if cls is ProfileDef:
                return self._define_profile(name, attrs, replace)
            profile = self._require_profile("DEFINE", cls)
            check_name(name, cls.type_name, cls.name_max)
            assert name is not None
            space = self._space(cls)
            existing = space.get(name)
            if existing is not None and type(existing) is not cls:
                raise DefinitionError(
                    f"DEFINE {cls.type_name} {name!r}: a {existing.type_name} of that name "
                    "exists (QL, QA and QR names share one namespace)",
                    keyword=cls.type_name,
                    accepted="a name no other queue has",
                )
            if existing is not None and not replace:
                raise DefinitionError(
                    f"DEFINE {cls.type_name} {name!r}: the object exists; "
                    "use REPLACE to redefine it",
                    keyword=cls.type_name,
                    accepted="a new name, or REPLACE",
                )
            defaults = self._defaults(cls, profile)
            new = cls.build(name, attrs, defaults=defaults, previous=existing)
            self._check_maxmsgl(new, profile)
            if existing is not None:
                self._check_usage_change(existing, new)
            space[name] = new
            self._emit("alter" if existing is not None else "define", existing, new)
            return new

    def define_absent(self, type_name: str, name: str, **attrs: Any) -> ObjectDef:
        """DEFINE ``name`` unless an object of that name exists; returns the definition in
        force. Under the catalog's lock: when it returns, the object's listeners have run
        (the queue manager has made the queue), whichever thread defined it. A ``find_*``
        already shows a definition whose listeners are still running, so looking first
        and defining when absent lets a second thread use a queue not made yet (2085)."""
        cls = _definition_class(type_name)
        with self._lock:
            existing = self._space(cls).get(name)
            if existing is not None:
                return existing
            return self.define(type_name, name, **attrs)

    def alter(self, type_name: str, name: str | None = None, **attrs: Any) -> ObjectDef:
        """ALTER an object: only the given attributes change; returns the new definition."""
        cls = _definition_class(type_name)
        with self._lock:
            if cls is ProfileDef:
                old_profile = self._require_profile("ALTER", cls)
                new: ObjectDef = ProfileDef.build(
                    self.qmgr_name, attrs, base=old_profile, previous=old_profile
                )
                self._profile = new  # type: ignore[assignment]
                self._emit("alter", old_profile, new)
                return new
            profile = self._require_profile("ALTER", cls)
            old = self._existing("ALTER", cls, name)
            new = cls.build(old.name, attrs, base=old, previous=old)
            if "maxmsgl" in {key.lower() for key in attrs}:
                self._check_maxmsgl(new, profile)
            self._check_usage_change(old, new)
            self._space(cls)[old.name] = new
            self._emit("alter", old, new)
            return new

    def delete(
        self,
        type_name: str,
        name: str | None = None,
        *,
        prepare: Callable[[ObjectDef], None] | None = None,
    ) -> ObjectDef:
        """DELETE an object; returns the definition it had.

        :param prepare: called with the definition, under the lock, once every rule but
            the ``in_use`` veto has passed and just before that veto is asked (DELETE QL
            PURGE empties the queue there). It may raise to refuse: nothing is deleted.
        """
        cls = _definition_class(type_name)
        with self._lock:
            if cls is ProfileDef:
                return self._delete_profile()
            self._require_profile("DELETE", cls)
            old = self._existing("DELETE", cls, name)
            if old.name in AUTO_QUEUES:
                raise DefinitionError(
                    f"DELETE {old.label}: the profile's own queue cannot be deleted "
                    "while the MQP exists",
                    keyword=cls.type_name,
                )
            if prepare is not None:
                prepare(old)
            self._check_free("DELETE", old)
            del self._space(cls)[old.name]
            if cls is ChannelDef:
                self.channel_requests.pop(old.name, None)
            self._emit("delete", old, None)
            return old

    def restore(self, definitions: Iterable[ObjectDef | Mapping[str, Any]]) -> None:
        """Load stored definitions (objects or ``to_dict`` output) into an empty catalog.

        Everything is checked first (one profile named like the queue manager, no name
        clashes); the profile's two queues are created with defaults if missing. Listeners
        see a ``"define"`` for each object, the profile first.
        """
        with self._lock:
            if self._profile is not None or self._queues or self._processes:
                raise DefinitionError("restore needs an empty catalog")
            objects = [
                d if isinstance(d, ObjectDef) else ObjectDef.from_dict(d) for d in definitions
            ]
            profiles = [d for d in objects if isinstance(d, ProfileDef)]
            if not objects:
                return
            if len(profiles) != 1 or profiles[0].name != self.qmgr_name:
                raise DefinitionError(
                    f"restore needs exactly one MQP named {self.qmgr_name!r}, "
                    f"got {[p.name for p in profiles]}",
                    keyword="MQP",
                )
            queues: dict[str, QueueDef] = {}
            processes: dict[str, ProcessDef] = {}
            channels: dict[str, ChannelDef] = {}
            for obj in objects:
                if obj is profiles[0]:
                    continue
                space: dict[str, Any] = queues
                if isinstance(obj, ProcessDef):
                    space = processes
                elif isinstance(obj, ChannelDef):
                    space = channels
                if obj.name in space:
                    raise DefinitionError(
                        f"restore: {obj.label} is defined twice", keyword=obj.type_name
                    )
                space[obj.name] = obj
            for auto in AUTO_QUEUES:
                if not isinstance(queues.get(auto, LocalQueueDef(name=auto)), LocalQueueDef):
                    raise DefinitionError(f"restore: {auto} must be a QL", keyword="QL")
                queues.setdefault(auto, self._auto_queue(auto, profiles[0]))
            self._profile = profiles[0]
            self._queues.update(sorted(queues.items()))
            self._processes.update(sorted(processes.items()))
            self._channels.update(sorted(channels.items()))
            self._emit_all(
                "define",
                [
                    self._profile,
                    *self._queues.values(),
                    *self._processes.values(),
                    *self._channels.values(),
                ],
            )

    def adopt(self, definitions: Iterable[ObjectDef | Mapping[str, Any]],
              still_current: Callable[[], bool] | None = None,
              ) -> builtins.list[str] | None:  # fmt: skip
        """Make the catalog equal ``definitions``: the stored set, changed by another
        processor of the complex (definitions are common to the complex, seed 004).

        Objects that differ are replaced (listeners see ``"alter"``), new ones defined,
        missing ones deleted, in the order restore uses. An object this processor cannot
        let go of now (``in_use``: open handles, messages on its memory queue) is kept;
        the returned lines say which, for the console.

        ``still_current`` is asked under the catalog's lock, where no change of this
        catalog is half made (every change tells its listeners, which store it, before
        the lock is let go): if it answers False, the set may lack a change made here
        since it was read, and nothing is adopted (returns None).
        """
        objects = [d if isinstance(d, ObjectDef) else ObjectDef.from_dict(d) for d in definitions]
        notes: list[str] = []
        with self._lock:
            if still_current is not None and not still_current():
                return None
            profile = next((d for d in objects if isinstance(d, ProfileDef)), None)
            if self._profile is None:
                if profile is not None:
                    self.restore(objects)
                return notes
            wanted: dict[tuple[str, str], ObjectDef] = {
                (d.type_name, d.name): d for d in objects if not isinstance(d, ProfileDef)
            }
            if profile is not None and profile != self._profile:
                old_profile, self._profile = self._profile, profile
                self._emit("alter", old_profile, profile)
            for obj in objects:
                if isinstance(obj, ProfileDef):
                    continue
                space = self._space(type(obj))
                current = space.get(obj.name)
                if current == obj:
                    continue
                if current is not None and type(current) is not type(obj):
                    reason = self._busy(current)
                    if reason is not None:
                        notes.append(f"{current.label} kept ({reason}): another processor "
                                     f"made it a {obj.type_name}")  # fmt: skip
                        continue
                    del space[current.name]
                    self._emit("delete", current, None)
                    current = None
                space[obj.name] = obj
                self._emit("alter" if current is not None else "define", current, obj)
            for current in [*self._queues.values(), *self._processes.values(),
                            *self._channels.values()]:  # fmt: skip
                if (current.type_name, current.name) in wanted or current.name in AUTO_QUEUES:
                    continue
                reason = self._busy(current)
                if reason is not None:
                    notes.append(f"{current.label} kept ({reason}): another processor "
                                 "deleted it")  # fmt: skip
                    continue
                del self._space(type(current))[current.name]
                self._emit("delete", current, None)
            if profile is None and not wanted:
                notes.append("MQP kept: another processor deleted it; delete it here too")
        return notes

    # ---------------------------------------------------------------- internals

    def _space(self, cls: type[ObjectDef]) -> dict[str, Any]:
        if cls is ProcessDef:
            return self._processes
        if cls is ChannelDef:
            return self._channels
        return self._queues

    def _defaults(self, cls: type[ObjectDef], profile: ProfileDef) -> dict[str, Any]:
        """Defaults that come from the profile or the processor rather than the specs."""
        if cls is LocalQueueDef:
            return {"maxmsgl": profile.maxmsgl}
        if cls is ChannelDef:
            return {"batchsz": profile.batchsz, "cpu": self.cpu}
        return {}

    def _unknown(self, verb: str, cls: type[ObjectDef], name: str | None) -> UnknownObjectName:
        obj = self.qmgr_name if cls is ProfileDef else str(name)
        return UnknownObjectName(
            MQCC_FAILED, MQRC_UNKNOWN_OBJECT_NAME, call=f"{verb} {cls.type_name}", obj=obj
        )

    def _existing(self, verb: str, cls: type[ObjectDef], name: str | None) -> ObjectDef:
        found = self._space(cls).get(name or "")
        if found is None or type(found) is not cls:
            raise self._unknown(verb, cls, name)
        return found

    def _require_profile(self, verb: str, cls: type[ObjectDef]) -> ProfileDef:
        if self._profile is None:
            if cls is ProfileDef:
                raise self._unknown(verb, cls, None)
            raise DefinitionError(
                f"{verb} {cls.type_name}: no MQ profile is defined; define the MQP first "
                "(ZMQSC DEF MQP)",
                keyword="MQP",
            )
        return self._profile

    @staticmethod
    def _auto_queue(name: str, profile: ProfileDef) -> LocalQueueDef:
        descr = "dead-letter queue" if name == AUTO_QUEUES[0] else "special recovery queue"
        return LocalQueueDef(name=name, maxmsgl=profile.maxmsgl, descr=descr)

    def _define_profile(
        self, name: str | None, attrs: Mapping[str, Any], replace: bool
    ) -> ProfileDef:
        if name not in (None, "", self.qmgr_name):
            raise DefinitionError(
                f"DEFINE MQP {name!r}: the profile is named like the queue manager",
                keyword="MQP",
                accepted=repr(self.qmgr_name),
            )
        old = self._profile
        if old is not None and not replace:
            raise DefinitionError(
                "DEFINE MQP: the profile exists; use REPLACE or ALTER MQP",
                keyword="MQP",
                accepted="REPLACE when the profile exists",
            )
        new = ProfileDef.build(self.qmgr_name, attrs, previous=old)
        self._profile = new
        if old is not None:
            self._emit("alter", old, new)
            return new
        autos = [self._auto_queue(auto, new) for auto in AUTO_QUEUES]
        self._queues.update((q.name, q) for q in autos)
        self._emit_all("define", [new, *autos])
        return new

    def _delete_profile(self) -> ProfileDef:
        profile = self._require_profile("DELETE", ProfileDef)
        others = [n for n in self._queues if n not in AUTO_QUEUES] + list(self._processes)
        others += list(self._channels)
        if others:
            shown = ", ".join(sorted(others)[:5]) + (", ..." if len(others) > 5 else "")
            raise DefinitionError(
                f"DELETE MQP: {len(others)} other object(s) are defined ({shown}); "
                "delete them first",
                keyword="MQP",
            )
        autos = [self._queues[n] for n in AUTO_QUEUES if n in self._queues]
        for queue in autos:
            self._check_free("DELETE MQP", queue)
        self._check_free("DELETE", profile)
        for queue in autos:
            del self._queues[queue.name]
        self._profile = None
        for queue in autos:
            self._emit("delete", queue, None)
        self._emit("delete", profile, None)
        return profile

    @staticmethod
    def _check_maxmsgl(new: ObjectDef, profile: ProfileDef) -> None:
        if isinstance(new, LocalQueueDef) and new.maxmsgl > profile.maxmsgl:
            raise DefinitionError(
                f"{new.label}: MAXMSGL {new.maxmsgl} is above the profile's {profile.maxmsgl}",
                keyword="MAXMSGL",
                accepted=f"0 to {profile.maxmsgl} (the MQP's MAXMSGL)",
            )

    def _check_usage_change(self, old: ObjectDef, new: ObjectDef) -> None:
        if isinstance(old, LocalQueueDef) and isinstance(new, LocalQueueDef):
            if old.usage != new.usage:
                self._check_free(f"change USAGE of {old.label}", old, keyword="USAGE")

    def _busy(self, obj: ObjectDef) -> str | None:
        return self._in_use(obj.type_name, obj.name) if self._in_use is not None else None

    def _check_free(self, what: str, obj: ObjectDef, *, keyword: str = "") -> None:
        if self._in_use is None:
            return
        reason = self._in_use(obj.type_name, obj.name)
        if reason:
            label = what if obj.label in what else f"{what} {obj.label}"
            raise DefinitionError(f"{label} refused: {reason}", keyword=keyword)

    def _emit(self, event: str, old: ObjectDef | None, new: ObjectDef | None) -> None:
        self.new_generation()  # cached decisions (the MQI's put and get plans) are stale now
        first: BaseException | None = None
        for listener in list(self._listeners):
            try:
                listener(event, old, new)
            except Exception as exc:  # noqa: BLE001 - reported below, after every listener
                first = first or exc
        if first is not None:
            obj = new if new is not None else old
            assert obj is not None
            raise InternalError(
                f"a catalog listener failed on {event} of {obj.label}; the change was made: "
                f"{first!r}"
            ) from first

    def _emit_all(self, event: str, objects: Iterable[ObjectDef]) -> None:
        failure: InternalError | None = None
        for obj in objects:
            try:
                self._emit(event, None, obj)
            except InternalError as exc:
                failure = failure or exc
        if failure is not None:
            raise failure
