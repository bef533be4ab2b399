"""Triggering: IBM's trigger conditions (seed 000), TPF's trigger types and CUIR (seed 004).

A queue with TRIGGER on is served in one of two ways:

**With an initiation queue (INITQ set)** — IBM's model. When the conditions of seed 000
hold, an MQTM trigger message (Format MQTRIG, non-persistent, unlimited expiry, priority
the initiation queue's DEFPRTY) is put on the initiation queue. A trigger monitor
(:class:`~tpfemu.qmgr.trigmon.TriggerMonitor`, started for a named initiation queue) gets
it and activates the process's program as a new entry with the MQTMC2 on data level 0, or
the user exit CUIR (MQMD + MQTM on D0) when the trigger message names no process.

**Without an initiation queue** — TPF's model (seed 004). FIRST is *armed* when an
application's MQGET finds the queue empty (and when triggering is first switched on for
an empty queue); the next qualifying message activates the process's program (MQTMC2 on
D0) — or CUIR (MQMD of the message + MQTM on D0) when the queue names no process — as a
new entry, and disarms. EVERY creates a new entry for every qualifying message. DEPTH
follows IBM's rule (the TRIGDPTH-th qualifying message).

The conditions checked, by seed 000's numbers: 2 the priority threshold (TRIGMPRI; in
MSGDLVSQ FIFO every message counts at DEFPRTY, note 14); 3 the previous count of
qualifying messages (FIRST zero, EVERY any, DEPTH TRIGDPTH-1), uncommitted messages
counted on processor-unique queues and committed only on processor-shared ones; 4 no
application has the queue open for input (FIRST, DEPTH); 5 gets not inhibited; 6 a
defined process (or a transmission queue); 7 a usable initiation queue; 8 a trigger
monitor has it open for input; 9 TRIGGER on; 10 type not NONE. After a DEPTH trigger,
TRIGGER is switched off until re-enabled. The additional trigger points of 11-13 are the
other ``on_*`` hooks. A trigger caused by a put in a unit of work is delivered when the
unit of work ends: on commit, or on backout too for FIRST and DEPTH.

Puts to a trigger-enabled queue are serialized with their evaluation (one lock per
queue), so "the previous count" is exact however many threads put at once.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, NamedTuple

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.mq.headers import TM, TMC2
from tpfemu.mq.structs import MD
from tpfemu.qmgr.objects import LocalQueueDef, ProcessDef

if TYPE_CHECKING:
    from tpfemu.qmgr.localq import LocalQueue
    from tpfemu.qmgr.manager import QueueManager

__all__ = ["Triggers", "CUIR"]

CUIR = "CUIR"  # TPF's MQSeries queue trigger user exit

_APPL_TYPES = {"TPF": cmqc.MQAT_TPF, "CICS": cmqc.MQAT_CICS, "UNIX": cmqc.MQAT_UNIX,
               "DEFAULT": cmqc.MQAT_DEFAULT}


class _Held(NamedTuple):
    """A trigger generated in a unit of work: its MQTM, initiation queue (blank: the TPF
    model) and trigger type as they were at the trigger event."""

    tm: TM
    initq: str
    trigtype: str


def _appl_type(value: Any) -> int:
    if isinstance(value, int):
        return value
    return _APPL_TYPES.get(str(value).upper(), cmqc.MQAT_UNKNOWN)


class Triggers:
    """The triggering service of one queue manager."""

    def __init__(self, qmgr: QueueManager) -> None:
        self.qmgr = qmgr
        # .delivering: this thread puts a trigger message on its initiation queue now;
        # .second: it dead-letters a trigger message now
        self._local = threading.local()

    def delivering(self) -> bool:
        """True while this thread puts a trigger message on its initiation queue: that
        put evaluates no trigger conditions of its own (deviations.md)."""
        return getattr(self._local, "delivering", False)

    # -- helpers -----------------------------------------------------------------------

    def _count(self, queue: LocalQueue) -> int:
        """Qualifying messages on the queue now (condition 2, note 14, note 3a/b)."""
        d = queue.definition
        committed_only = d.common == "YES"
        # Messages got in a unit of work not yet ended are on their way out (note 12b).
        if d.msgdlvsq == "FIFO":  # note 14: every message counts at the default priority
            if d.trigmpri > d.defprty:
                return 0
            return queue.core.depth_at_least(0, committed_only, without_gets=True)
        return queue.core.depth_at_least(d.trigmpri, committed_only, without_gets=True)

    def _qualifies(self, d: LocalQueueDef, priority: int) -> bool:
        effective = d.defprty if d.msgdlvsq == "FIFO" else priority
        return effective >= d.trigmpri

    def _process(self, d: LocalQueueDef) -> ProcessDef | None:
        return self.qmgr.catalog.find_process(d.process) if d.process else None

    def _static_ok(self, queue: LocalQueue, *, check_input: bool = True,
                   check_get: bool = True, check_monitor: bool = True) -> bool:
        """Conditions 4-10 (each may be left out, as the additional trigger points say)."""
        d = queue.definition
        if d.trigger != "YES" or d.trigtype == "NONE":  # 9, 10
            return False
        if check_input and d.trigtype in ("FIRST", "DEPTH") and queue.input_count:  # 4
            return False
        if check_get and d.get == "DISABLED":  # 5
            return False
        if d.initq:
            if d.process:  # 6
                if self._process(d) is None:
                    return False
            elif d.usage != "XMITQ":
                return False
            initq = self.qmgr.queues.get(d.initq)  # 7
            if initq is None or initq.deleted:
                return False
            idef = initq.definition
            if idef.get == "DISABLED" or idef.put == "DISABLED" or idef.usage != "NORMAL":
                return False
            if check_monitor and not initq.input_count:  # 8
                return False
        elif d.process and self._process(d) is None:  # TPF: a named process must exist
            return False
        return True

    def _note(self, queue: LocalQueue) -> None:
        state = queue.trigger_state
        state["fired"] = state.get("fired", 0) + 1
        from tpfemu.qmgr.manager import now_us

        state["last"] = now_us()

    # -- trigger point 1: a message is put ------------------------------------------------

    def after_put(self, queue: LocalQueue, priority: int, md: MD, uow: Any) -> None:
        """Conditions 1-10 and 11 for a message just put (the caller holds
        queue.trigger_lock across the put and this call)."""
        d = queue.definition
        if d.trigger != "YES" or d.trigtype == "NONE" or not self._qualifies(d, priority):
            return
        if d.common == "YES" and uow is not None:
            # Processor-shared: only committed messages count; judge it at commit.
            uow.triggers.append(("shared", queue, md, None))
            return
        count = self._count(queue)
        previous = count - 1
        fire = False
        if not d.initq:
            fire = self._tpf_fire(queue, previous)
        elif self._static_ok(queue):
            if d.trigtype == "EVERY":
                fire = True
            elif d.trigtype == "FIRST":
                fire = previous == 0 or self._interval_elapsed(queue)  # 3, or 11
            elif d.trigtype == "DEPTH":  # 3, or 11: TriggerDepth or more already there
                fire = previous >= d.trigdpth - 1
        if not fire:
            return
        if uow is not None:
            # Generated now, with the attribute values in force now (TRIGINT counts from
            # here), and available when the unit of work ends (IBM, "Properties of trigger
            # messages"). A trigger message counts toward MAXUMSGS (IBM, MaxUncommittedMsgs).
            from tpfemu.qmgr.manager import now_us

            queue.trigger_state["last"] = now_us()
            held = _Held(self.trigger_message(d), d.initq, d.trigtype)
            if d.trigtype == "DEPTH":  # off as soon as the trigger is generated (IBM)
                self._switch_off(d.name)
            uow.triggers.append(("fire", queue, md, held))
            if held.initq:
                uow.count += 1
        else:
            self._fire(queue, md)

    def _tpf_fire(self, queue: LocalQueue, previous: int) -> bool:
        d = queue.definition
        if not self._static_ok(queue, check_input=d.trigtype == "DEPTH"):
            return False
        state = queue.trigger_state
        if d.trigtype == "EVERY":
            return True
        if d.trigtype == "FIRST":
            armed = state.get("armed", previous == 0)
            if armed:
                state["armed"] = False
            return armed
        return previous == d.trigdpth - 1  # DEPTH

    def _interval_elapsed(self, queue: LocalQueue) -> bool:
        """Condition 11 for FIRST: the queue was not empty but TRIGINT has passed since the
        last trigger message for it."""
        from tpfemu.qmgr.manager import now_us

        profile = self.qmgr.catalog.profile
        last = queue.trigger_state.get("last")
        if profile is None:
            return False
        if last is None:  # no trigger message was ever written for this queue
            return True
        return now_us() - last >= profile.trigint * 1000

    # -- delivering a trigger ---------------------------------------------------------------

    def _fire(self, queue: LocalQueue, md: MD | None, held: _Held | None = None) -> None:
        """Make the trigger: a trigger message on the initiation queue, or (TPF, no INITQ)
        a new entry running the process program or CUIR. ``held``: a trigger generated
        earlier in a unit of work, delivered now as it was made then."""
        d = queue.definition
        if held is None:
            held = _Held(self.trigger_message(d), d.initq, d.trigtype)
            if d.trigtype == "DEPTH" and d.trigger == "YES":  # IBM: off after a DEPTH
                self._switch_off(d.name)  # trigger, at once (also for an ALTER or MQSET)
        before = self.delivering()
        self._local.delivering = True
        try:
            self._deliver(queue, md, held)
        finally:
            self._local.delivering = before

    def _deliver(self, queue: LocalQueue, md: MD | None, held: _Held) -> None:
        d = queue.definition
        tm, initq_name = held.tm, held.initq
        self._note(queue)
        self.qmgr._emit("trigger", queue.name, trigtype=held.trigtype, initq=initq_name,
                        process=bytes(tm.ProcessName).strip().decode())
        if initq_name:
            # Put by the queue manager: its origin context is the queue manager's (IBM,
            # PutApplType MQAT_QMGR; PutApplName the queue manager's name), as a report's.
            appl_name = self.qmgr.name.encode("ascii", "replace")[:28].ljust(28)
            md_fields = {"Format": cmqc.MQFMT_TRIGGER, "MsgType": cmqc.MQMT_DATAGRAM,
                         "PutApplType": cmqc.MQAT_QMGR, "PutApplName": appl_name}
            try:
                initq = self.qmgr.queues.get(initq_name)
                priority = initq.definition.defprty if initq is not None else 0
                self.qmgr.put_internal(initq_name, "", tm.pack(), md_fields,
                                       priority=priority, persistent=False)
            except errors.MQMIError as exc:
                self._undelivered(d.name, initq_name, tm, md_fields, exc)
            return
        self.activate(tm, md, queue)

    def _undelivered(self, qname: str, initq_name: str, tm: TM, md_fields: dict[str, Any],
                     exc: errors.MQMIError) -> None:
        """IBM ("When triggering does not work"): a trigger message that cannot be put on
        the initiation queue goes to the dead-letter queue, and that put may trigger the
        dead-letter queue; the trigger message of that second trigger is discarded if it
        would go to the dead-letter queue too."""
        local = self._local
        if getattr(local, "second", False):
            self.qmgr.console(f"MQSC0910W {self.qmgr.cpu} TRIGGER FOR {qname} NOT PUT ON "
                              f"{initq_name}: {exc.reason_name} - DISCARDED")
            return
        self.qmgr.console(f"MQSC0910W {self.qmgr.cpu} TRIGGER FOR {qname} NOT PUT ON "
                          f"{initq_name}: {exc.reason_name} - SENT TO THE DEAD-LETTER QUEUE")
        local.delivering, local.second = False, True  # the dead letter may trigger
        try:
            self.qmgr.dead_letter(tm.pack(), md_fields, exc.reason, initq_name, "")
        finally:
            local.delivering, local.second = True, False

    def _switch_off(self, name: str) -> None:
        try:
            self.qmgr.catalog.alter("QL", name, trigger="NO")
        except errors.TpfEmuError:
            pass  # the queue was deleted meanwhile

    def trigger_message(self, d: LocalQueueDef) -> TM:
        """The MQTM for queue definition ``d`` (seed 000's values for a transmission queue
        with no process)."""
        process = self._process(d)
        tm = TM(QName=d.name.encode(), TriggerData=d.trigdata.encode())
        if process is not None:
            tm.set(ProcessName=process.name.encode(), ApplType=_appl_type(process.appltype),
                   ApplId=process.applid.encode(), EnvData=process.envdata.encode(),
                   UserData=process.userdata.encode())
        else:
            tm.ApplType = cmqc.MQAT_UNKNOWN
        return tm

    def activate(self, tm: TM, md: MD | None, queue: LocalQueue | None = None) -> bool:
        """Start the program a trigger names as a new entry: the process's program with
        the MQTMC2 on D0, or CUIR with MQMD + MQTM on D0. Returns False (and says so on
        the console) when there is no dispatcher or the program is not loaded."""
        entries = self.qmgr.entries
        process_name = bytes(tm.ProcessName).strip()
        program = self._program_of(tm)
        qname = bytes(tm.QName).strip().decode()
        if entries is None:
            self.qmgr.console(f"MQSC0911E {self.qmgr.cpu} TRIGGER FOR {qname}: NO DISPATCHER "
                              "(A QUEUE MANAGER WITHOUT A SYSTEM CANNOT START ENTRIES)")
            return False
        if not entries.is_loaded(program):
            self.qmgr.console(f"MQSC0912E {self.qmgr.cpu} TRIGGER FOR {qname}: PROGRAM "
                              f"{program} IS NOT LOADED - TRIGGER KEPT")
            if queue is not None:
                queue.trigger_state.setdefault("pending", []).append((tm, md))
            return False
        if process_name:
            data = TMC2.from_tm(tm, self.qmgr.name).pack()
        else:
            header = (md if md is not None else MD(Version=2)).copy()
            header.Version = 2
            data = header.pack() + tm.pack()
        entries.create_entry(program, data, origin=("TRIGGER", qname))
        return True

    def retry_pending(self, queue: LocalQueue) -> None:
        """A trigger whose program was not loaded is tried again at the next trigger point."""
        pending = queue.trigger_state.get("pending")
        if not pending:
            return
        entries = self.qmgr.entries
        if entries is None or not entries.is_loaded(self._program_of(pending[0][0])):
            return  # still not loaded: said once already, kept quietly
        del queue.trigger_state["pending"]
        for tm, md in pending:
            self.activate(tm, md, queue)

    @staticmethod
    def _program_of(tm: TM) -> str:
        return bytes(tm.ApplId).strip().decode() if bytes(tm.ProcessName).strip() else CUIR

    # -- the other trigger points (seed 000, 12-13) -----------------------------------------

    def _enough(self, queue: LocalQueue) -> bool:
        d = queue.definition
        need = d.trigdpth if d.trigtype == "DEPTH" else 1
        return self._count(queue) >= need

    def _point(self, queue: LocalQueue, **skip: bool) -> None:
        """A trigger point other than a put: not in a unit of work, one trigger at most."""
        d = queue.definition
        if d.trigger != "YES" or d.trigtype == "NONE":
            return
        with queue.trigger_lock:
            if not d.initq:
                if self._static_ok(queue, **skip) and self._enough(queue):
                    queue.trigger_state["armed"] = False
                    self._fire(queue, None)
                return
            if self._static_ok(queue, **skip) and self._enough(queue):
                self._fire(queue, None)

    def on_empty_get(self, queue: LocalQueue) -> None:
        """TPF FIRST: an MQGET found the queue empty, so the next message triggers."""
        d = queue.definition
        if d.trigger == "YES" and d.trigtype == "FIRST" and not d.initq:
            queue.trigger_state["armed"] = True

    def on_last_input_close(self, queue: LocalQueue) -> None:
        """Point 12: the only application serving the queue closed it (FIRST, DEPTH)."""
        if queue.definition.trigtype in ("FIRST", "DEPTH"):
            self._point(queue, check_get=False)  # conditions 6 through 10

    def on_initq_opened(self, initq: LocalQueue) -> None:
        """A trigger monitor opened an initiation queue for input (no one had it open):
        one trigger for each application queue served by it with messages waiting."""
        for queue in list(self.qmgr.queues.values()):
            if queue.definition.initq == initq.name:
                self._point(queue, check_monitor=False)

    def on_alter(self, old: LocalQueueDef, new: LocalQueueDef) -> None:
        """Points 13: trigger attributes changed, an initiation queue's PUT allowed again,
        an application queue's GET allowed again."""
        queue = self.qmgr.queues.get(new.name)
        if queue is None:
            return
        if new.trigger == "YES" and new.trigtype == "FIRST" and not new.initq and (
            old.trigger != "YES" and queue.core.depth == 0
        ):
            queue.trigger_state["armed"] = True  # TPF FIRST: armed on an empty queue
        depth_matters = new.trigtype == "DEPTH"  # TriggerDepth "if relevant" (point 13)
        changed = (old.trigger != "YES" and new.trigger == "YES") or (
            new.trigger == "YES" and (
                old.trigtype != new.trigtype or old.trigmpri != new.trigmpri
                or (depth_matters and old.trigdpth != new.trigdpth)
            )
        )
        if changed:
            self._point(queue, check_monitor=False)
        if old.get == "DISABLED" and new.get == "ENABLED":
            self._point(queue, check_get=False)
        if old.put == "DISABLED" and new.put == "ENABLED":  # an initiation queue's inhibit
            for app in list(self.qmgr.queues.values()):
                if app.definition.initq == new.name:
                    self._point(app)

    def on_define(self, queue: LocalQueue) -> None:
        """A new queue with TPF FIRST triggering starts armed (it is empty)."""
        d = queue.definition
        if d.trigger == "YES" and d.trigtype == "FIRST" and not d.initq:
            queue.trigger_state["armed"] = True

    def on_finish(self, uow: Any, commit: bool) -> None:
        """Deliver the triggers a unit of work held: on commit; on backout only for FIRST
        and DEPTH (seed 000, after condition 10)."""
        pending, uow.triggers = uow.triggers, []
        shared: dict[str, list] = {}
        for kind, queue, md, held in pending:
            if queue.deleted:
                continue
            if kind == "shared":
                if commit:
                    shared.setdefault(queue.name, []).append((queue, md))
                continue
            # The trigger type in force at the trigger event decides, not today's.
            if commit or held.trigtype in ("FIRST", "DEPTH"):
                self._fire(queue, md, held)
        for entries in shared.values():
            self._committed_shared(entries)

    def _committed_shared(self, entries: list) -> None:
        """Processor-shared queue (committed messages count): the unit of work's
        qualifying messages became visible at once; judge them in put order, each against
        the count before it."""
        queue = entries[0][0]
        d = queue.definition
        with queue.trigger_lock:
            if not self._static_ok(queue):
                return
            previous = self._count(queue) - len(entries)
            for _queue, md in entries:
                if d.trigtype == "EVERY" or (
                    d.trigtype == "FIRST" and previous == 0
                ) or (d.trigtype == "DEPTH" and previous >= d.trigdpth - 1):
                    self._fire(queue, md)
                    if d.trigtype == "DEPTH":
                        return
                previous += 1
