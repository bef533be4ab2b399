"""Transmission-queue swinging: TPF's ``ZMQSC SWQ`` (seed 004, "Transmission Queues:
Swinging").

When the channel of a transmission queue is stalled, the operator swings the queue to
another one that has a working channel: "all messages that were previously on the
original transmission queue are moved to the new transmission queue, and all new messages
put to the original transmission queue are actually added to the new transmission queue."

:func:`swing` does both, in the order that loses and duplicates nothing while
applications keep putting:

1. **Check everything first** — both queues are local transmission queues (USAGE XMITQ),
   different, the target allows puts and has room for what is on the source (MAXDEPTH).
   A refused swing (:class:`SwingError`) changes nothing.
2. **Route** — ``catalog.xmitq_routes[source] = target``; name resolution
   (:mod:`tpfemu.qmgr.resolve`) follows routes, so every MQOPEN from now on that resolves
   to the source transmission queue puts to the target.
3. **Move** — the source's messages go to the target in delivery order, in batches inside
   a unit of work on both queues: a batch becomes visible on the target before it leaves
   the source, and while it moves the source's copies are held, so no getter sees a
   message twice and none is lost. Each message keeps its descriptor: MsgId, CorrelId,
   priority, persistence, expiry deadline, put time and its context record (the MQMD
   fields and the MQXQH travel in the data). BackoutCount restarts at 0.

Messages that cannot move at once — put inside a unit of work not yet committed, or put
afterwards through a handle opened before the swing (it keeps the queue it resolved) —
are moved by a :class:`Forwarder` (one per queue manager, started by the first swing)
while the swing lasts. :func:`unswing` ends a swing; messages already moved stay where
they are.

Swing chains are followed (A swung to B, then B to C: A's puts go to C, and A's messages
move straight to C). Swinging back — to a queue whose swings lead to the source (B to A
after A to B) — ends the target's swing, so routes never form a loop.

Deviations: TPF's SWQ syntax and messages were not found; the move is in memory (the
recovery log of issue 7 will record it); a moved message does not fire the target's
trigger (the channel agent serves transmission queues directly).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tpfemu import errors
from tpfemu.qmgr.objects import LocalQueueDef
from tpfemu.qmgr.units import new_uow_id

if TYPE_CHECKING:
    from tpfemu.qmgr.catalog import Catalog
    from tpfemu.qmgr.localq import LocalQueue
    from tpfemu.qmgr.manager import QueueManager

__all__ = ["Forwarder", "SwingError", "SwingResult", "involvement", "swing", "unswing"]

BATCH = 500  # messages per unit of work when moving


class SwingError(errors.TpfEmuError, ValueError):
    """A swing was refused; nothing was moved or routed. ``keyword`` names what is wrong."""

    def __init__(self, message: str, keyword: str = "") -> None:
        self.keyword = keyword
        super().__init__(message)


@dataclass(frozen=True)
class SwingResult:
    """What :func:`swing` did: messages moved, messages left on the source and why."""

    source: str
    target: str
    moved: int
    left: int = 0
    reason: str = ""


def _transmission_queue(catalog: Catalog, name: str, role: str) -> LocalQueueDef:
    found = catalog.find_queue(name)
    if found is None:
        raise SwingError(f"{role} queue {name} is not defined", "QL")
    if not isinstance(found, LocalQueueDef):
        raise SwingError(f"{role} queue {name} is a {found.type_name}, not a local queue", "QL")
    if found.usage != "XMITQ":
        raise SwingError(
            f"{role} queue {name} is not a transmission queue (USAGE is {found.usage}, "
            "XMITQ needed)", "USAGE",
        )
    return found


def involvement(catalog: Catalog, name: str) -> str | None:
    """How queue ``name`` takes part in a swing (a reason to refuse DELETE or a USAGE
    change), or None."""
    routes = catalog.xmitq_routes
    if name in routes:
        return f"it is swung to {routes[name]}"
    sources = sorted(src for src, dst in routes.items() if dst == name)
    if sources:
        return f"{', '.join(sources)} {'is' if len(sources) == 1 else 'are'} swung to it"
    return None


def swing(qmgr: QueueManager, source: str, target: str) -> SwingResult:
    """Move every message of transmission queue ``source`` to ``target`` and route new
    puts for ``source`` there (see the module documentation).

    :raises SwingError: the swing is refused; nothing changed.
    """
    catalog = qmgr.catalog
    with catalog.lock:
        _transmission_queue(catalog, source, "source")
        _transmission_queue(catalog, target, "target")
        if source == target:
            raise SwingError(f"source and target are both {source}", "QL")
        routes = catalog.xmitq_routes
        swing_back = source in _chain(catalog, target)  # the target is swung to the source
        final = target if swing_back else _chain(catalog, target)[-1]
        final_def = _transmission_queue(catalog, final, "target")
        via = "" if final == target else f" (where {target} is swung to)"
        if final_def.put == "DISABLED":
            raise SwingError(f"target queue {final}{via} is PUT-DISABLED", "PUT")
        src, dst = qmgr.local_queue(source), qmgr.local_queue(final)
        if final_def.maxdepth:
            room = final_def.maxdepth - dst.core.depth
            if src.core.depth > room:
                raise SwingError(
                    f"target queue {final}{via} has room for {max(room, 0)} message(s) "
                    f"(MAXDEPTH {final_def.maxdepth}); {source} holds {src.core.depth}",
                    "MAXDEPTH",
                )
        if swing_back:
            routes.pop(target, None)  # swinging back ends the target's own swing
        routes[source] = target
        catalog.new_generation()  # cached put plans decide again
        moved, problem = move(qmgr, src, dst)
    left = _depth(src)
    ensure_forwarder(qmgr)
    return SwingResult(source, target, moved, left, problem or _why_left(left))


def unswing(qmgr: QueueManager, source: str) -> str:
    """End the swing of ``source``; return the queue it was swung to.

    :raises SwingError: ``source`` is not swung.
    """
    catalog = qmgr.catalog
    with catalog.lock:
        target = catalog.xmitq_routes.pop(source, None)
        if target is None:
            raise SwingError(f"{source} is not swung", "QL")
        catalog.new_generation()
    return target


def _depth(queue: LocalQueue) -> int:
    try:
        return queue.core.depth
    except errors.TpfEmuError:
        return 0


def _why_left(left: int) -> str:
    if not left:
        return ""
    return "held by units of work; moved when committed while the swing lasts"


def move(qmgr: QueueManager, src: LocalQueue, dst: LocalQueue, limit: int | None = None
         ) -> tuple[int, str]:
    """Move available messages from ``src`` to ``dst`` in order, keeping descriptors.

    Each batch is got from ``src`` and put on ``dst`` inside one unit of work on each,
    committed on ``dst`` first. If a put fails (the target filled up), the batch is
    backed out on both queues and the move stops.

    :param limit: move at most this many (default: what ``src`` holds now, plus one
        batch for messages put meanwhile, so a busy producer cannot keep it going).
    :returns: (messages moved, why it stopped early or "").
    """
    budget = limit if limit is not None else _depth(src) + BATCH
    moved = 0
    while moved < budget:
        uow = new_uow_id()
        count = 0
        try:
            while count < min(BATCH, budget - moved):
                try:
                    msg = src.core.get_message(uow=uow)
                except errors.NoMessageAvailable:
                    break
                d = msg.descriptor
                count += 1
                dst.core.put_message(
                    msg.data, priority=d.priority, persistent=d.persistent, expiry=d.expiry,
                    msg_id=d.msg_id, correl_id=d.correl_id, uow=uow, ctx_len=d.ctx_len,
                    put_time=d.put_time,
                )
        except errors.MQMIError as exc:
            dst.core.backout(uow)
            src.core.backout(uow)
            src.wake()
            return moved, f"{dst.name}: {exc.reason_name}"
        if count:
            dst.core.commit(uow)
            src.core.commit(uow)
            dst.wake()
            moved += count
        if count < BATCH:
            break
    if src.expiring:
        qmgr.collect_expired(src)  # messages the gets found expired: their reports
    return moved, ""


def forward(qmgr: QueueManager) -> int:
    """Move what has arrived on swung queues since (see :class:`Forwarder`); return how
    many messages moved. Routes whose queues are gone are dropped."""
    catalog = qmgr.catalog
    total = 0
    with catalog.lock:
        for source, target in list(catalog.xmitq_routes.items()):
            src, dst = qmgr.queues.get(source), qmgr.queues.get(_final(catalog, target))
            if src is None or dst is None or src.deleted or dst.deleted:
                catalog.xmitq_routes.pop(source, None)
                continue
            if _depth(src):
                total += move(qmgr, src, dst)[0]
    return total


def _chain(catalog: Catalog, name: str) -> list[str]:
    """``name`` and the queues its swings lead to, in order (as resolution follows them)."""
    chain = [name]
    while (nxt := catalog.xmitq_routes.get(chain[-1])) is not None and nxt not in chain:
        if not isinstance(catalog.find_queue(nxt), LocalQueueDef):
            break
        chain.append(nxt)
    return chain


def _final(catalog: Catalog, name: str) -> str:
    return _chain(catalog, name)[-1]


class Forwarder:
    """Keeps swung queues empty: every ``interval`` seconds, moves what has arrived on a
    swung transmission queue (late commits, puts through handles opened before the swing)
    to where it is swung. Registered in the System's services, so it stops with it."""

    def __init__(self, qmgr: QueueManager, interval: float = 0.05) -> None:
        self.qmgr = qmgr
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"{qmgr.name}-swq", daemon=True
        )

    def start(self) -> Forwarder:
        """Start the thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread and wait for it."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            if not self.qmgr.running:
                continue
            try:
                forward(self.qmgr)
            except Exception as exc:  # noqa: BLE001 - the forwarder must not die
                self.qmgr.console(f"MQSC0930E {self.qmgr.cpu} SWQ FORWARDING FAILED: {exc!r}")


_forwarders_lock = threading.Lock()


def ensure_forwarder(qmgr: QueueManager) -> Forwarder | None:
    """Start the queue manager's forwarder if it has none (only when it has a service
    registry, which the forwarder joins; a bare queue manager calls :func:`forward`
    itself)."""
    registry = qmgr.services
    if registry is None:
        return None
    with _forwarders_lock:
        for service in registry.running():
            if isinstance(service, Forwarder) and service.qmgr is qmgr:
                return service
        forwarder = Forwarder(qmgr).start()
        registry.register(forwarder)
        return forwarder
