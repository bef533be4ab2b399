"""The queue manager: objects, live queues, connections, units of work, expiry and reports.

One :class:`QueueManager` per TPF processor (the System of issue 6 owns it). It keeps the
object catalog, a :class:`~tpfemu.qmgr.localq.LocalQueue` per local queue, and the
connections applications make (:mod:`tpfemu.qmgr.connection`); the MQI calls themselves
live on the connection. Here are the services every connection shares:

- :meth:`finish` commits or backs out a unit of work on every queue it touched.
- :meth:`collect_expired` turns messages the core discarded as expired into expiration
  reports (MQRO_EXPIRATION, _WITH_DATA, _WITH_FULL_DATA) sent to the message's
  ReplyToQ/ReplyToQMgr with Feedback MQFB_EXPIRATION, never inside a unit of work (seed
  001, note 4). A report that cannot be delivered goes to the dead-letter queue with an
  MQDLH; if that fails too, it is dropped and said on the console.
- An expiry scan every EXPRYINT seconds (0 = off) and on demand (:meth:`scan_expired`).

Threads: any number of connections on any threads. Object changes and MQOPEN/MQCLOSE take
the manager's lock; puts and gets take only the core's per-queue lock.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecb.resources import watch_scopes
from tpfemu import errors
from tpfemu._lowlevel import NEVER
from tpfemu.mq import cmqc
from tpfemu.qmgr import context, registry, reports
from tpfemu.qmgr.catalog import Catalog
from tpfemu.qmgr.events import EventBus
from tpfemu.qmgr.localq import LocalQueue
from tpfemu.qmgr.objects import LocalQueueDef, ObjectDef
from tpfemu.qmgr.ports import EntryPort, ServiceRegistry
from tpfemu.qmgr.units import UnitOfWork

if TYPE_CHECKING:
    from tpfemu.qmgr.persistence import QueuePersistence
    from tpfemu.store.definitions import DefinitionStore

__all__ = ["ClearRefused", "QueueManager", "now_us"]

DLQ_NAME = "DEAD.LETTER.QUEUE"
_REPORT_EXPIRATION = (
    cmqc.MQRO_EXPIRATION | cmqc.MQRO_EXPIRATION_WITH_DATA | cmqc.MQRO_EXPIRATION_WITH_FULL_DATA
)


class ClearRefused(errors.MQMIError):
    """CLEAR QL refused: the queue is in use. ``detail`` says how, in words."""

    detail: str = ""


def now_us() -> int:
    """The wall clock in microseconds (the clock of expiry deadlines and put times)."""
    return time.time_ns() // 1000


class QueueManager:
    """One queue manager, running in this process once started.

    :param name: the queue manager name (1-48 characters), what MQCONN names.
    :param cpu: the TPF processor ID it runs on (shown in console messages).
    :param console: where console messages go (a callable taking one line).
    :param entries: starts trigger programs as entries (None: no dispatcher, so a trigger
        that would start one says so on the console).
    :param services: where background services (the SWQ forwarder) are registered to
        stop with the processor (None: nothing runs in the background).
    """

    def __init__(
        self, name: str = "TPF1", *, cpu: str = "B", console: Callable[[str], None] | None = None,
        home: str | Path | None = None, checkpoint_interval: float = 5.0,
        entries: EntryPort | None = None, services: ServiceRegistry | None = None,
    ) -> None:
        self.name = name
        #: The system's home: object definitions and persistent messages are kept there
        #: (None: everything in memory, gone at stop).
        self.home = Path(home) if home is not None else None
        self.checkpoint_interval = checkpoint_interval
        #: The recovery log and checkpoints of the memory queues (while running with a home).
        self.persistence: QueuePersistence | None = None
        self.definitions: DefinitionStore | None = None
        self._adopting: int | None = None  # the thread adopting stored definitions
        #: The complex's store of processor-shared queues (while running with a home).
        self.shared: Any = None
        self._defs_lock = threading.Lock()
        self.cpu = cpu
        self.console = console or (lambda line: None)
        self.events = EventBus(name, self.console)
        self.catalog = Catalog(name, in_use=self._in_use, cpu=cpu)
        self.queues: dict[str, LocalQueue] = {}
        self.lock = threading.RLock()
        self.msgid_prefix = (b"AMQ " + name.encode("ascii")[:12]).ljust(16)
        self._correl_ids = itertools.count(1)
        self._msg_ids = itertools.count(1)
        self.open_refs: dict[tuple[str, str], int] = {}  # objects held by open handles
        self.connections: set = set()
        self.running = False
        self._scan_stop = threading.Event()
        self._scanner: threading.Thread | None = None
        self._unwatch_scopes: Callable[[], None] = lambda: None
        self.catalog.subscribe(self._on_catalog)
        from tpfemu.qmgr.triggers import Triggers

        self.triggers = Triggers(self)
        #: The ports to the processor running this queue manager (tpfemu.qmgr.ports).
        self.entries = entries
        self.services = services

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> QueueManager:
        """Start: MQCONN can find it; the expiry scan runs if EXPRYINT is set.

        With a home, the stored object definitions are restored first, then the persistent
        messages of the memory queues (checkpoint + recovery log), and checkpoints start.
        """
        if self.home is not None:
            self._open_home(self.home)
        registry.register(self)
        self.running = True
        # A commit scope opening anywhere retires the catalog generation, and with it
        # every plan: a put or get in the scope must join it (tpfemu.qmgr.plans).
        self._unwatch_scopes = watch_scopes(lambda: self.catalog.new_generation())
        self._scan_stop.clear()
        self._scanner = threading.Thread(
            target=self._scan_loop, name=f"{self.name}-expiry", daemon=True
        )
        self._scanner.start()
        return self

    def stop(self) -> None:
        """Stop: connections are ended (their units of work backed out), waiters woken
        with MQRC_Q_MGR_STOPPING, and MQCONN no longer finds it."""
        if not self.running:
            return
        self.running = False
        self.catalog.new_generation()  # no MQI fast path may pass a stopped queue manager
        self._unwatch_scopes()
        registry.unregister(self)
        self._scan_stop.set()
        for conn in list(self.connections):
            conn.end(commit=False)
        for q in list(self.queues.values()):
            q.stopping = True
            q.wake()
        if self._scanner is not None:
            self._scanner.join(5)
        self._close_home()

    def _open_home(self, home: Path) -> None:
        from tpfemu.qmgr.persistence import QueuePersistence
        from tpfemu.store.definitions import DefinitionStore
        from tpfemu.store.shared import SharedQueueStore

        home.mkdir(parents=True, exist_ok=True)
        self.shared = SharedQueueStore.open(home, self.cpu)
        try:
            definitions = DefinitionStore(home)
        except BaseException:
            self._close_shared()
            raise
        try:
            stored = definitions.load()
            if stored and not self.catalog.snapshot():
                self.catalog.restore(stored)
            elif not stored and self.catalog.snapshot():
                definitions.replace_all([d.to_dict() for d in self.catalog.snapshot()], self.cpu)
            persistence = QueuePersistence(home, self.cpu, console=self.console,
                                           checkpoint_interval=self.checkpoint_interval)
        except BaseException:
            definitions.close()
            self._close_shared()
            raise
        try:
            restored = persistence.restore(self.queues)
            persistence.start(lambda: self.queues)
            in_doubt = self.shared.recover_in_doubt(
                sink=lambda item: self._in_doubt_to_srq(item, persistence))
        except BaseException:
            persistence.stop()
            definitions.close()
            self._close_shared()
            raise
        if in_doubt:
            self.console(f"MQSC0094W {self.cpu} {len(in_doubt)} in-doubt message"
                         f"{'s' if len(in_doubt) != 1 else ''} of shared queues moved to "
                         "SPECIAL.RECOVERY.QUEUE")  # fmt: skip
        if restored:
            self.console(f"MQSC0091I {self.cpu} {restored} persistent message"
                         f"{'s' if restored != 1 else ''} restored")  # fmt: skip
        self.definitions = definitions
        self._unsubscribe_definitions = self.catalog.subscribe(self._store_definition)
        self.persistence = persistence
        # Definitions are common to the complex: follow what other processors change.
        self._defs_version = definitions.version()
        self._defs_stop = threading.Event()
        self._defs_thread = threading.Thread(target=self._follow_definitions,
                                             name=f"{self.name}-definitions", daemon=True)
        self._defs_thread.start()

    def _follow_definitions(self, interval: float = 0.25) -> None:
        """Poll the stored definitions; adopt what another processor changed."""
        while not self._defs_stop.wait(interval):
            try:
                self.sync_definitions()
            except Exception as exc:  # keep following (a failed version is not retried)
                self.console(f"MQSC0092E {self.cpu} stored definitions not adopted: {exc}")

    def sync_definitions(self) -> bool:
        """Adopt the stored definitions now if another processor changed them; True if
        they were adopted. (The follower thread does this every quarter second; a set
        read while this processor changed a definition is left for the next poll.)"""
        store = self.definitions
        if store is None:
            return False
        with self._defs_lock:
            version = store.version()
            if version == self._defs_version:
                return False
            stored = store.load()
            self._adopting = threading.get_ident()
            try:
                # A change made here meanwhile is in the catalog but not in `stored`:
                # adopting that set would undo it. The next poll reads it back.
                notes = self.catalog.adopt(stored, lambda: store.version() == version)
            finally:
                self._adopting = None
            if notes is None:
                return False
            self._defs_version = version
        for note in notes:
            self.console(f"MQSC0093W {self.cpu} {note}")
        return True

    def _close_home(self) -> None:
        if self.definitions is not None:
            self._defs_stop.set()
            self._defs_thread.join(5)
        persistence, self.persistence = self.persistence, None
        definitions, self.definitions = self.definitions, None
        if definitions is not None:
            self._unsubscribe_definitions()
            definitions.close()
        try:
            if persistence is not None:
                persistence.stop()
        finally:
            self._close_shared()

    def _close_shared(self) -> None:
        shared, self.shared = self.shared, None
        if shared is not None:
            shared.close()

    def _in_doubt_to_srq(self, item: Any, persistence: QueuePersistence) -> None:
        """Put one in-doubt message of a shared queue on SPECIAL.RECOVERY.QUEUE (seed 004:
        the operator decides what to do with it), whole, with its descriptor."""
        srq = self.queues.get("SPECIAL.RECOVERY.QUEUE")
        if srq is None:
            raise errors.error_for(cmqc.MQRC_UNKNOWN_OBJECT_NAME, call="restart",
                                   obj="SPECIAL.RECOVERY.QUEUE")  # fmt: skip
        d = item.message.descriptor
        persistence.put_restored(srq, item.message.data, d)

    def _store_definition(self, event: str, old: ObjectDef | None,
                          new: ObjectDef | None) -> None:  # fmt: skip
        store = self.definitions
        if store is None or self._adopting == threading.get_ident():
            return  # (a change adopted from the store is not written back)
        if new is not None:
            store.save(new.to_dict(), self.cpu)
        elif old is not None:
            store.remove(old.type_name, old.name)

    def __enter__(self) -> QueueManager:
        return self if self.running else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def connect(self, appl_name: str = "", user: str = "") -> Any:
        """A new connection (MQCONN). :raises MQMIError: 2059 if not running."""
        from tpfemu.qmgr.connection import Connection

        if not self.running:
            raise errors.error_for(cmqc.MQRC_Q_MGR_NOT_AVAILABLE, call="MQCONN", obj=self.name)
        conn = Connection(self, appl_name, user)
        with self.lock:
            self.connections.add(conn)
        return conn

    # -- the catalog drives the live queues ---------------------------------------------

    def _on_catalog(self, event: str, old: ObjectDef | None, new: ObjectDef | None) -> None:
        defn = new if new is not None else old
        if defn is None:
            return
        if not isinstance(defn, LocalQueueDef):
            if event == "alter":
                # An alias or remote definition may now inhibit gets or puts: waiters on
                # the queues behind it must look again.
                for queue in list(self.queues.values()):
                    queue.wake()
            self._emit(event, getattr(defn, "name", ""), type=defn.type_name)
            return
        if event == "define":
            queue = self.queues[defn.name] = LocalQueue(defn, self.msgid_prefix, self.shared)
            self.triggers.on_define(queue)
        elif event == "alter":
            self.queues[defn.name].redefine(defn)
            if isinstance(old, LocalQueueDef):
                self.triggers.on_alter(old, defn)
        elif event == "delete":
            queue = self.queues.pop(defn.name)
            queue.drop()
            if queue.shared and self._adopting != threading.get_ident():
                self.shared.delete_queue(defn.name)  # for the whole complex
        self._emit(event, defn.name, type=defn.type_name)

    def _in_use(self, type_name: str, name: str) -> str | None:
        """Why an object cannot be deleted now (IBM: not while an application has it, or
        a queue that resolves to it, open), or None."""
        refs = self.open_refs.get((type_name, name), 0)
        if refs:
            return f"open by {refs} handle{'s' if refs != 1 else ''}"
        queue = self.queues.get(name) if type_name == "QL" else None
        return queue.in_use() if queue is not None else None

    def clear_queue(self, name: str) -> int:
        """CLEAR QL: remove every message of the local queue ``name``; returns how many.

        Refused, changing nothing, while the queue is in use as IBM refuses CLEAR QLOCAL:
        while a handle has it open (directly or through a name that resolves to it; a
        browse lock belongs to such a handle) or while a unit of work holds a put or a
        get of it (see :meth:`LocalQueue.clear_refusal`). The check and the removal are
        made under the queue manager's lock, which MQOPEN also takes, so no handle can
        open in between, and without an open handle no unit of work can start on it.

        :raises MQMIError: 2085 (no such queue).
        :raises ClearRefused: 2042 (MQRC_OBJECT_IN_USE) when a handle has it open, else
            2055 (MQRC_Q_NOT_EMPTY) when units of work hold messages; its ``detail`` says
            why in words.
        """
        with self.lock:
            queue = self.local_queue(name)
            reason = queue.clear_refusal()
            if reason is not None:
                in_use = bool(queue.input_count + queue.output_count + queue.other_count)
                code = cmqc.MQRC_OBJECT_IN_USE if in_use else cmqc.MQRC_Q_NOT_EMPTY
                raise ClearRefused(errors.MQCC_FAILED, code, call="CLEAR", obj=name,
                                   detail=reason)
            plog = self.persistence
            return plog.log_purge(queue) if plog is not None else queue.core.purge()

    def delete_queue(self, name: str, *, purge: bool = False) -> int:
        """DELETE QL: delete the local queue ``name``; returns how many messages PURGE removed.

        Without ``purge`` the queue must be empty and not open (the catalog's ``in_use``
        veto), as IBM's DELETE QLOCAL NOPURGE. With ``purge`` (TPF's ZMQSC DEL QL with
        the purge parameter, IBM's DELETE QLOCAL PURGE) its committed messages are
        removed first; the delete is still refused, changing nothing, while the queue is
        in use by CLEAR's rule (:meth:`LocalQueue.clear_refusal`: open with any options,
        directly or through a name that resolves to it, or a unit of work holds a put or
        get of it). Every other rule of DELETE is checked before anything is removed, and
        the purge and the delete happen under the catalog's lock and this queue manager's
        lock (which MQOPEN takes), so no handle can open in between.

        :raises MQMIError: 2085 (no such queue).
        :raises DefinitionError: the delete is refused (nothing changed).
        """
        removed = 0

        def empty(_old: ObjectDef) -> None:
            nonlocal removed
            queue = self.local_queue(name)
            reason = queue.clear_refusal()
            if reason is not None:
                raise errors.DefinitionError(f"DELETE QL {name!r}: {reason}", keyword="PURGE")
            plog = self.persistence
            removed = plog.log_purge(queue) if plog is not None else queue.core.purge()

        with self.catalog.lock, self.lock:  # the order swq and the forwarder take them in
            self.catalog.delete("QL", name, prepare=empty if purge else None)
        return removed

    def ref(self, names: list[tuple[str, str]], delta: int) -> None:
        """Count (type, name) objects an open handle holds (under self.lock)."""
        for key in names:
            count = self.open_refs.get(key, 0) + delta
            if count:
                self.open_refs[key] = count
            else:
                self.open_refs.pop(key, None)

    def local_queue(self, name: str) -> LocalQueue:
        """The live local queue ``name``. :raises MQMIError: 2085 if there is none."""
        queue = self.queues.get(name)
        if queue is None:
            raise errors.error_for(cmqc.MQRC_UNKNOWN_OBJECT_NAME, obj=name)
        return queue

    def _emit(self, kind: str, queue: str, **fields: Any) -> None:
        """Emit event ``kind`` about ``queue`` now (nothing when nobody listens). The
        ``fields`` dict made for this call goes to the subscribers as it is."""
        events = self.events
        if events.active:
            events.deliver(kind, queue, time.time_ns() // 1000, fields)  # now_us(), inline

    # -- units of work --------------------------------------------------------------------

    def new_correl_id(self) -> bytes:
        """A CorrelId for MQPMO_NEW_CORREL_ID: unique in this queue manager's run."""
        return b"AMQ CORREL " + self.name.encode("ascii")[:5].ljust(5) + (
            next(self._correl_ids).to_bytes(8, "big")
        )

    def new_msg_id(self) -> bytes:
        """A MsgId made here rather than by the core (the MQXQH of a remote put needs it
        before the put): the queue manager's prefix and a counter with its top bit set,
        a range the core's own counter never reaches."""
        return self.msgid_prefix + ((1 << 63) | next(self._msg_ids)).to_bytes(8, "big")

    def private_uow(self) -> int:
        """A fresh core unit-of-work id (MQGMO_SYNCPOINT_IF_PERSISTENT decides later)."""
        from tpfemu.qmgr.units import new_uow_id

        return new_uow_id()

    def finish(self, uow: UnitOfWork, commit: bool) -> None:
        """Commit or back out ``uow`` on every queue it touched, then wake getters.

        With persistent messages in it, the Commit (or Backout) goes to the recovery log
        first, and a commit is applied to the queues only once it is durable.

        :raises MQMIError: warning MQRC_BACKED_OUT (2003) when the log could not take the
            commit and the unit of work was backed out instead (IBM's MQCMIT reason codes).
        """
        work = [(queue, uow.id) for queue in uow.queues.values()] + uow.extra
        plog = self.persistence
        logged: list[int] = []
        failure: errors.MQMIError | None = None
        if plog is not None:
            logged = sorted({uow_id for _, uow_id in work if plog.logged(uow_id)})
            if logged:
                records = [plog.end_record(i, commit) for i in logged]
                if commit:  # (written by this thread when the log is idle)
                    try:
                        plog.log.commit(records)
                    except errors.MQMIError as exc:  # StorageFull: doomed, backed out
                        failure, commit = exc, False
                else:  # not waited for: restart backs out unended work anyway
                    plog.log.append(records)
        kind = "commit" if commit else "backout"
        for queue, uow_id in work:
            if queue.deleted:
                continue
            if plog is not None and uow_id in logged:
                n = plog.apply_end(queue, uow_id, commit)
            else:
                n = queue.core.commit(uow_id) if commit else queue.core.backout(uow_id)
            if n:
                queue.wake()
                self._emit(kind, queue.name, uow=uow_id, count=n)
        if plog is not None:
            for uow_id in logged:
                plog.applied(uow_id)
        uow.queues.clear()
        uow.extra.clear()
        uow.count = 0
        if uow.triggers:
            self.triggers.on_finish(uow, commit)
        if failure is not None:  # IBM's MQCMIT: warning MQRC_BACKED_OUT, work undone
            backed_out = errors.error_for(cmqc.MQRC_BACKED_OUT, call="MQCMIT",
                                          comp=cmqc.MQCC_WARNING)
            raise backed_out from failure

    # -- expiry ---------------------------------------------------------------------------

    def collect_expired(self, queue: LocalQueue) -> int:
        """Report the messages the core discarded from ``queue`` as expired; return how many."""
        count = 0
        while (msg := queue.core.take_expired()) is not None:
            count += 1
            d = msg.descriptor
            if d.persistent and self.persistence is not None:
                self.persistence.log_discard(queue, d.seq)
            record = context.decode(msg.data[: d.ctx_len])
            data = msg.data[d.ctx_len :]
            self._emit(
                "expire", queue.name, msg_id=d.msg_id, correl_id=d.correl_id,
                priority=d.priority, persistent=d.persistent, length=d.length - d.ctx_len,
                group_id=record["GroupId"], expires_us=d.expiry, data=data,
            )
            if record["Report"] & _REPORT_EXPIRATION:
                self._expiration_report(data, d, record)
        return count

    def _expiration_report(self, data: bytes, d: Any, rec: dict) -> None:
        made = reports.make(reports.EXPIRATION, rec, data, msg_id=d.msg_id,
                            correl_id=d.correl_id, priority=d.priority,
                            persistent=d.persistent, deadline=d.expiry, qmgr_name=self.name)
        if made is not None:
            self.send_report(made, reports.EXPIRATION, d.msg_id)

    def send_report(self, report: reports.Report, kind: reports.Kind, original: bytes,
                    put: Callable[[], object] | None = None,
                    put_dead_letter: Callable[[bytes, dict[str, Any]], object] | None = None,
                    ) -> None:
        """Put ``report`` (of the message whose MsgId is ``original``): by ``put``, else
        outside any unit of work; dead-lettered if it cannot be put (by
        ``put_dead_letter``, see :meth:`dead_letter`)."""
        try:
            if put is not None:
                put()
            else:
                self.put_internal(report.reply_q, report.reply_qmgr, report.data,
                                  report.fields, msg_id=report.msg_id,
                                  correl_id=report.correl_id, priority=report.priority,
                                  persistent=report.persistent)
        except errors.MQMIError as exc:
            self.dead_letter(report.data, report.fields, exc.reason, report.reply_q,
                             report.reply_qmgr, correl_id=report.correl_id,
                             priority=report.priority, put=put_dead_letter)
            return
        self._emit("report", report.reply_q, feedback=report.fields["Feedback"], msg_id=original)

    def scan_expired(self, queue: str | None = None) -> int:
        """Discard (and report) expired messages on one queue or all: the EXPRYINT scan,
        also available on demand. Returns how many were discarded."""
        names = [queue] if queue else list(self.queues)
        total = 0
        for name in names:
            q = self.queues.get(name)
            if q is None or q.deleted:
                continue
            q.core.discard_expired()
            total += self.collect_expired(q)  # also any left pending by earlier gets
        return total

    def _scan_loop(self) -> None:
        while not self._scan_stop.is_set():
            profile = self.catalog.profile
            interval = profile.expryint if profile is not None else 0
            if self._scan_stop.wait(interval if interval else 1.0):
                return
            if interval:
                try:
                    self.scan_expired()
                except Exception as exc:  # the scan must never die
                    self.console(f"MQSC0900E {self.cpu} expiry scan failed: {exc!r}")

    # -- messages the queue manager itself sends -----------------------------------------

    def put_internal(
        self, qname: str, qmgr_name: str, data: bytes, fields: dict[str, Any], *,
        msg_id: bytes = b"", correl_id: bytes = b"", priority: int = 0,
        persistent: bool = False, expiry: int = NEVER,
    ) -> None:
        """Put a message the queue manager makes (a report, a trigger message, a dead
        letter), outside any unit of work and ignoring PUT inhibit only for the DLQ."""
        from tpfemu.qmgr.resolve import resolve

        resolved = resolve(self.catalog, self.name, qname, qmgr_name)
        if resolved.put_inhibited:
            raise errors.error_for(cmqc.MQRC_PUT_INHIBITED, call="MQPUT", obj=qname)
        queue = self.local_queue(resolved.local.name)
        if resolved.remote:  # for another queue manager: behind an MQXQH (issue 25)
            msg_id = msg_id or self.new_msg_id()
            data = self._xmit_header(resolved.remote_q, resolved.remote_qmgr, fields, msg_id,
                                     correl_id, priority, persistent, expiry) + data
            fields = dict(fields, **context.XMIT_MD_FIELDS)
        values = context.values_of(None, fields)
        record = context.encode(values)
        args = dict(priority=priority, persistent=persistent, expiry=expiry,
                    msg_id=msg_id or None, correl_id=correl_id or None, ctx_len=len(record))
        plog = self.persistence
        # A message the queue manager puts is a put like any other for triggering (seed
        # 000, condition 1), e.g. on a triggered dead-letter or reply queue; not while a
        # trigger is being delivered (a trigger message, or its dead letter), which could
        # otherwise trigger itself without end.
        trigger = queue.definition.trigger == "YES" and not self.triggers.delivering()
        with queue.trigger_lock if trigger else contextlib.nullcontext():
            if persistent and plog is not None and not queue.shared:
                # a persistent report or dead letter is logged like any persistent put
                new_id = plog.put_logged(queue, record + data, args)
            else:
                new_id, _seq = queue.core.put_message(record + data, **args)
            if trigger:
                self.triggers.after_put(queue, priority, self._internal_md(
                    new_id, correl_id, priority, persistent, expiry, values), None)
        if trigger:
            self.triggers.retry_pending(queue)
        queue.wake()
        self._emit("put", queue.name, internal=True, length=len(data), msg_id=new_id,
                   correl_id=correl_id or bytes(24), priority=priority,
                   persistent=persistent, expires_us=expiry, uow=0, data=data,
                   **context.journal_fields(values))

    @staticmethod
    def _internal_md(msg_id: bytes, correl_id: bytes, priority: int, persistent: bool,
                     expiry: int, values: tuple[Any, ...]) -> Any:
        """The MQMD of a message the queue manager just put (for CUIR, as an MQPUT's)."""
        from tpfemu.qmgr.mqput import _md_of

        now = now_us()
        left = cmqc.MQEI_UNLIMITED if expiry == NEVER else max(1, (expiry - now) // 100_000)
        return _md_of(msg_id, correl_id or bytes(24), priority, persistent, left, values, now)

    def _xmit_header(self, remote_q: str, remote_qmgr: str, fields: dict[str, Any],
                     msg_id: bytes, correl_id: bytes, priority: int, persistent: bool,
                     expiry: int) -> bytes:
        """The MQXQH of a message the queue manager sends to another queue manager (a
        report), its MQMD made of ``fields`` and the message's own values."""
        from tpfemu.mq.headers import XQH
        from tpfemu.mq.structs import MD
        from tpfemu.qmgr.mqmd import date_time

        now = now_us()
        left = cmqc.MQEI_UNLIMITED if expiry == NEVER else max(1, (expiry - now) // 100_000)
        date, clock = date_time(now)
        inner = MD(**fields)
        inner.set(MsgId=msg_id, CorrelId=correl_id or bytes(24), Priority=priority,
                  Persistence=int(persistent), Expiry=left, PutDate=date, PutTime=clock,
                  PutApplType=cmqc.MQAT_QMGR)
        return XQH(RemoteQName=remote_q.encode(), RemoteQMgrName=remote_qmgr.encode(),
                   MsgDesc=inner).pack()

    def dead_letter(self, data: bytes, fields: dict[str, Any], reason: int, dest_q: str,
                    dest_qmgr: str, *, correl_id: bytes = b"", priority: int = 0,
                    put: Callable[[bytes, dict[str, Any]], object] | None = None) -> bool:
        """Put a message that cannot be delivered on the dead-letter queue, prefixed by an
        MQDLH naming the reason and the destination: by ``put`` (given the dead letter's
        data and MQMD fields; a report made in a unit of work puts it there), else outside
        any unit of work. Returns False if that failed too."""
        from tpfemu.qmgr.mqmd import dead_letter_fields, dead_letter_header

        dlh = dead_letter_header(  # IBM: the queue manager is the putter
            reason, dest_q, dest_qmgr or self.name, fmt=fields.get("Format", cmqc.MQFMT_NONE),
            encoding=fields.get("Encoding", cmqc.MQENC_NATIVE),
            ccsid=fields.get("CodedCharSetId", cmqc.MQCCSI_Q_MGR),
            appl_type=cmqc.MQAT_QMGR, appl_name=self.name)
        dl_fields = dead_letter_fields(fields)
        try:
            if put is not None:
                put(dlh.pack() + data, dl_fields)
            else:
                self.put_internal(DLQ_NAME, "", dlh.pack() + data, dl_fields,
                                  correl_id=correl_id, priority=priority)
            return True
        except errors.MQMIError as exc:
            self.console(
                f"MQSC0901W {self.cpu} undeliverable message for {dest_q} dropped: "
                f"{errors.reason_name(reason)}; dead-letter queue: {exc.reason_name}"
            )
            return False
