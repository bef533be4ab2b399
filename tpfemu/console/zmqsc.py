"""ZMQSC: the TPF MQ operator commands, carried out on the queue manager.

``system.console("ZMQSC DEF QL-APP.IN MAXDEPTH-100")`` reaches :func:`zmqsc` with the
text after ``ZMQSC``. The line is read by :mod:`tpfemu.console.parser`; this module maps
each verb onto the object catalog (:mod:`tpfemu.qmgr.catalog`) and the live queues, and
answers with console messages (:mod:`tpfemu.console.messages`).

=========  ===========================================  ======================================
Verb       Objects                                      Does
=========  ===========================================  ======================================
DEFINE     MQP QL QA QR PROC CHL                        define (REPLACE: redefine)
ALTER      MQP QL QA QR PROC CHL                        change the keywords given
DELETE     MQP QL QA QR PROC CHL                        delete (QL: PURGE its messages)
DISPLAY    MQP QL QA QR Q PROC CHL QMGR                 show; a name or generic name (APP.*)
CLEAR      QL                                           remove the queue's messages
START      QMGR CHL                                     QMGR: cancel a stop; CHL: start it
STOP       QMGR CHL                                     QMGR: end the session; CHL: stop it
RESET      CHL (SDR, RCVR)                              the next sequence number SEQNUM
RESOLVE    CHL (SDR)                                    settle the in-doubt batch: ACTION
SWQ        QL-from QL-to / QL-from                      swing a transmission queue / end it
=========  ===========================================  ======================================

Keywords are the catalog's attribute names in upper case (the attribute specs say what
each accepts; the catalog validates, and its refusal becomes an ``E`` message naming the
keyword and what it accepts). Besides them: ``REPLACE`` on DEFINE; ``PURGE``/``NOPURGE``
on DELETE QL; ``TRIGGER``/``NOTRIGGER`` on a QL (as in MQSC; ``TRIGGER-YES``/``TRIGGER-NO``
too); naming a TRIGTYPE other than NONE turns triggering on, and TRIGTYPE-NONE off, unless
TRIGGER or NOTRIGGER is given (TPF's DEF QL has no separate switch). A DEF CHL without
CPU is for this processor.

A refused command changes nothing: everything is checked before the one catalog call
(or, for SWQ, before the route and the move) that makes the change. The command
reference is ``docs/console.md``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tpfemu import errors
from tpfemu.console import display
from tpfemu.console import messages as m
from tpfemu.console.parser import Command, ParseError, Token, parse
from tpfemu.qmgr import swq
from tpfemu.qmgr.catalog import ChannelRequest
from tpfemu.qmgr.objects import DEFINITION_TYPES, AttrSpec, ObjectDef

if TYPE_CHECKING:
    from tpfemu.console.host import ChannelPort, ConsoleHost

__all__ = ["zmqsc"]

# Operands of the channel verbs (checked by the same specs as definitions' attributes).
_CHANNEL_OPERANDS: dict[str, dict[str, AttrSpec]] = {
    "START": {},
    "STOP": {"mode": AttrSpec("MODE", "enum", default="QUIESCE", values=("QUIESCE", "FORCE")),
             # (a SVRCONN channel's: STATUS-INACTIVE ends its conversations and leaves it
             # taking clients; CONNAME ends only those from one client address)
             "status": AttrSpec("STATUS", "enum", default="STOPPED",
                                values=("STOPPED", "INACTIVE")),
             "conname": AttrSpec("CONNAME", "text", default="", max_len=48)},
    "RESET": {"seqnum": AttrSpec("SEQNUM", "int", default=1, low=1, high=999_999_999)},
    "RESOLVE": {"action": AttrSpec("ACTION", "enum", default="", values=("COMMIT", "BACKOUT"),
                                   required=True)},
}
# The channel types each channel verb applies to (IBM: RESET is not for server-connection
# channels, RESOLVE only for the sending end).
_CHANNEL_TYPES = {
    "START": ("SDR", "RCVR", "SVRCONN"),
    "STOP": ("SDR", "RCVR", "SVRCONN"),
    "RESET": ("SDR", "RCVR"),
    "RESOLVE": ("SDR",),
}
#: Switches (words without a value) a verb, or a verb and object type, accepts; the
#: console's help and completion read them from here.
SWITCHES: dict[Any, tuple[str, ...]] = {
    "DEFINE": ("REPLACE",),
    ("DEFINE", "QL"): ("TRIGGER", "NOTRIGGER"),
    ("ALTER", "QL"): ("TRIGGER", "NOTRIGGER"),
    # DELETE QL PURGE removes the queue's committed messages with it (TPF's purge
    # parameter, MQSC's PURGE); NOPURGE, the default, refuses a queue holding messages.
    ("DELETE", "QL"): ("PURGE", "NOPURGE"),
}
# Verbs that change something: refused while the queue manager is stopped (TPF: object
# commands only in NORM state).
_CHANGING = ("DEFINE", "ALTER", "DELETE", "CLEAR", "SWQ", "RESET", "RESOLVE")


class _Reject(Exception):
    """A refused command: ``lines`` is the response (E messages)."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        super().__init__(lines[0] if lines else "")


def zmqsc(system: ConsoleHost, rest: str) -> str:
    """Run one ZMQSC command (the text after ``ZMQSC``); return the response lines.

    Never raises: a bad command gets E messages, and so does a defect (``MQSC0099E``).
    """
    cpu = system.cpu
    try:
        command = parse(rest)
        lines = _Run(system, command).execute()
    except ParseError as exc:
        lines = [exc.line(cpu)]
        if "(" in rest:  # runmqsc's KEYWORD(value): say the ZMQSC form
            from tpfemu.console.mqsc import hint_line

            lines += filter(None, [hint_line(cpu, rest)])
    except _Reject as exc:
        lines = exc.lines
    except Exception as exc:  # noqa: BLE001 - the console must answer, whatever happened
        lines = [m.INTERNAL.line(cpu, detail=repr(exc))]
    return "\n".join(lines)


def _now_us() -> int:
    return time.time_ns() // 1000


def _detail(exc: errors.DefinitionError, prefixes: tuple[str, ...] = ()) -> str:
    """The catalog's reason without the "(KEYWORD accepts ...)" tail (said separately)
    and without naming the object again (the message does)."""
    text = str(exc)
    tail = f" ({exc.keyword} accepts {exc.accepted})"
    if exc.keyword and exc.accepted and text.endswith(tail):
        text = text[: -len(tail)]
    for prefix in prefixes:
        for joint in (": ", " refused: "):
            if text.startswith(prefix + joint):
                return text[len(prefix) + len(joint):]
    return text


class _Run:
    """One command being carried out."""

    def __init__(self, system: ConsoleHost, command: Command) -> None:
        self.system = system
        self.cmd = command
        self.cpu = system.cpu
        self.qmgr = system.qmgr
        self.catalog = system.qmgr.catalog

    # -- dispatch ------------------------------------------------------------------------

    def execute(self) -> list[str]:
        cmd = self.cmd
        changing = cmd.verb in _CHANGING or (cmd.obj == "CHL" and cmd.verb in ("START", "STOP"))
        if changing and not self.qmgr.running:
            raise _Reject(m.QMGR_DOWN.line(self.cpu, name=self.qmgr.name))
        handler: Callable[[], list[str]] = getattr(self, "_" + cmd.verb.lower())
        return handler()

    # -- helpers -------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The object's name as messages show it (the queue manager's for MQP)."""
        if self.cmd.obj in ("MQP", "QMGR"):
            return self.cmd.name or self.qmgr.name
        return self.cmd.name or ""

    def reject(self, msg: m.Msg, **fields: Any) -> _Reject:
        return _Reject(msg.line(self.cpu, **fields))

    def no_operands(self) -> None:
        """Refuse any operand (verbs that take none)."""
        if self.cmd.operands:
            token = self.cmd.operands[0]
            raise self.reject(m.UNKNOWN_KEYWORD, keyword=token.text, verb=self.cmd.verb,
                              obj=self.cmd.obj, valid="NONE")

    def catalog_call(self, fn: Callable[[], Any], verb: str | None = None) -> Any:
        """Call the catalog, turning its refusals into E messages."""
        verb = verb or self.cmd.verb
        obj, name = self.cmd.obj, self.name
        try:
            return fn()
        except errors.DefinitionError as exc:
            label = f"{obj} {name!r}"
            prefixes = (f"{verb} {label}", label, f"{verb} {obj}", "MQP", f"{verb} MQP")
            accepts = f". {exc.keyword} ACCEPTS {exc.accepted}" if exc.keyword and \
                exc.accepted else ""
            raise self.reject(m.REFUSED, verb=verb, obj=obj, name=name,
                              detail=_detail(exc, prefixes), accepts=accepts) from exc
        except errors.UnknownObjectName as exc:
            raise self.reject(m.NOT_FOUND, obj=obj, name=name, hint=self.not_found_hint()) \
                from exc
        except errors.InternalError as exc:
            raise _Reject(m.DONE_WITH_ERROR.line(self.cpu, verb=verb, obj=obj, name=name,
                                                 detail=str(exc))) from exc
        except errors.MQMIError as exc:
            raise self.reject(m.NOT_DONE, verb=verb, obj=obj, name=name, detail=str(exc)) \
                from exc

    def not_found_hint(self) -> str:
        obj, name = self.cmd.obj, self.name
        if obj == "MQP":
            return " - DEFINE IT FIRST: ZMQSC DEF MQP"
        if obj in ("QL", "QA", "QR"):
            other = self.catalog.find_queue(name)
            if other is not None:
                return f" - {name} IS A {other.type_name}"
        return ""

    def attributes(self, cls: type[ObjectDef], *, define: bool) -> tuple[dict[str, str], bool]:
        """The command's keywords as catalog attributes, and whether REPLACE was given.

        :raises _Reject: an unknown keyword (listing the valid ones), one given twice, a
            keyword without value, a contradiction.
        """
        cmd = self.cmd
        by_keyword = {spec.keyword: attr for attr, spec in cls.ATTRS.items()}
        verb = "DEFINE" if define else "ALTER"
        switches = list(SWITCHES.get(verb, ()) + SWITCHES.get((verb, cls.type_name), ()))
        valid = ", ".join(sorted(by_keyword) + [s for s in switches if s not in by_keyword])
        attrs: dict[str, str] = {}
        replace = False
        trigger_switch: Token | None = None
        for token in cmd.operands:
            if token.is_switch and token.key in switches:
                if token.key == "REPLACE":
                    if replace:
                        raise self.reject(m.DUPLICATE, keyword="REPLACE")
                    replace = True
                    continue
                if trigger_switch is not None:
                    if trigger_switch.key == token.key:
                        raise self.reject(m.DUPLICATE, keyword=token.key)
                    raise self.reject(m.CONFLICT, keyword=token.text, other=trigger_switch.text)
                if "trigger" in attrs:
                    raise self.reject(m.CONFLICT, keyword=token.text, other="TRIGGER-"
                                      + attrs["trigger"])
                trigger_switch = token
                continue
            attr = by_keyword.get(token.key)
            if attr is None:
                raise self.reject(m.UNKNOWN_KEYWORD, keyword=token.key, verb=cmd.verb,
                                  obj=cmd.obj, valid=valid)
            if token.is_switch:
                raise self.reject(m.VALUE_NEEDED, keyword=token.key,
                                  accepted=cls.ATTRS[attr].accepted)
            if attr in attrs:
                raise self.reject(m.DUPLICATE, keyword=token.key)
            if attr == "trigger" and trigger_switch is not None:
                raise self.reject(m.CONFLICT, keyword=token.text, other=trigger_switch.text)
            attrs[attr] = token.value  # type: ignore[assignment]
        if trigger_switch is not None:
            attrs["trigger"] = "YES" if trigger_switch.key == "TRIGGER" else "NO"
        elif "trigtype" in attrs and "trigger" not in attrs:
            # TPF's DEF QL has no trigger switch: naming a type turns triggering on.
            attrs["trigger"] = "NO" if attrs["trigtype"].upper() == "NONE" else "YES"
        return attrs, replace

    # -- DEFINE / ALTER / DELETE ---------------------------------------------------------------

    def _define(self) -> list[str]:
        cmd = self.cmd
        cls = DEFINITION_TYPES[cmd.obj]
        attrs, replace = self.attributes(cls, define=True)
        if cmd.obj == "CHL" and "cpu" not in attrs:
            attrs["cpu"] = self.cpu  # TPF: a channel is defined for the local processor
        if cmd.obj == "MQP":
            existed = self.catalog.profile is not None
        else:
            existed = self.exists(cmd.obj, self.name)
        if existed and cmd.obj == "QL" and replace:
            self.check_usage_swing(attrs.get("usage", "NORMAL"))
        self.catalog_call(lambda: self.catalog.define(cmd.obj, cmd.name, replace=replace,
                                                      **attrs))
        if existed:
            return [m.REPLACED.line(self.cpu, obj=cmd.obj, name=self.name)]
        if cmd.obj == "MQP":
            return [m.PROFILE_DEFINED.line(self.cpu, name=self.name)]
        return [m.DEFINED.line(self.cpu, obj=cmd.obj, name=self.name)]

    def exists(self, obj: str, name: str) -> bool:
        if obj == "PROC":
            return self.catalog.find_process(name) is not None
        if obj == "CHL":
            return self.catalog.find_channel(name) is not None
        found = self.catalog.find_queue(name)
        return found is not None and found.type_name == obj

    def check_usage_swing(self, usage: str) -> None:
        """Refuse a USAGE change of a queue that takes part in a swing."""
        current = self.catalog.find_queue(self.name)
        if current is None or getattr(current, "usage", None) == str(usage).upper():
            return
        reason = swq.involvement(self.catalog, self.name)
        if reason:
            raise self.reject(m.IN_SWING, verb=self.cmd.verb, obj=self.cmd.obj,
                              name=self.name, detail=f"USAGE cannot change while {reason}")

    def _alter(self) -> list[str]:
        cmd = self.cmd
        cls = DEFINITION_TYPES[cmd.obj]
        attrs, _ = self.attributes(cls, define=False)
        if not attrs:
            valid = ", ".join(sorted(spec.keyword for spec in cls.ATTRS.values()))
            raise self.reject(m.NOTHING, verb=cmd.verb, obj=cmd.obj, name=self.name,
                              valid=valid)
        if cmd.obj == "QL" and "usage" in attrs:
            self.check_usage_swing(attrs["usage"])
        self.catalog_call(lambda: self.catalog.alter(cmd.obj, cmd.name, **attrs))
        return [m.ALTERED.line(self.cpu, obj=cmd.obj, name=self.name)]

    def purge_switch(self) -> bool:
        """DELETE QL's operands: PURGE (True) or NOPURGE / nothing (False).

        :raises _Reject: another operand, one given twice, or both.
        """
        switches = SWITCHES[("DELETE", "QL")]
        chosen: Token | None = None
        for token in self.cmd.operands:
            if not token.is_switch or token.key not in switches:
                raise self.reject(m.UNKNOWN_KEYWORD, keyword=token.text, verb="DELETE",
                                  obj="QL", valid=", ".join(switches))
            if chosen is not None:
                if chosen.key == token.key:
                    raise self.reject(m.DUPLICATE, keyword=token.key)
                raise self.reject(m.CONFLICT, keyword=token.text, other=chosen.text)
            chosen = token
        return chosen is not None and chosen.key == "PURGE"

    def _delete(self) -> list[str]:
        cmd = self.cmd
        purge = False
        if cmd.obj == "QL":
            purge = self.purge_switch()
        else:
            self.no_operands()
        if cmd.obj == "CHL":
            port = self.channel_port(self.catalog.find_channel(self.name))
            if port is not None and port.is_running(self.name):
                raise self.reject(m.CHL_REFUSED, verb="DELETE", name=self.name,
                                  detail="IT IS RUNNING; STOP IT FIRST (ZMQSC STOP CHL)")
        if cmd.obj == "QL" and self.exists("QL", self.name):
            reason = swq.involvement(self.catalog, self.name)
            if reason:
                raise self.reject(m.IN_SWING, verb=cmd.verb, obj=cmd.obj, name=self.name,
                                  detail=f"{reason}; end the swing first (ZMQSC SWQ QL-...)")
        if cmd.obj == "QL":
            removed = self.catalog_call(lambda: self.qmgr.delete_queue(self.name, purge=purge))
            if purge:
                return [m.DELETED_PURGED.line(self.cpu, name=self.name, count=removed)]
        else:
            self.catalog_call(lambda: self.catalog.delete(cmd.obj, cmd.name))
        return [m.DELETED.line(self.cpu, obj=cmd.obj, name=self.name)]

    # -- DISPLAY ----------------------------------------------------------------------------

    def _display(self) -> list[str]:
        cmd = self.cmd
        self.no_operands()
        if cmd.obj == "QMGR":
            return self.display_qmgr()
        if cmd.obj == "TRIGMON":
            monitors = self.trigger_monitors()
            if not monitors:
                return [m.TRIGMON_NONE.line(self.cpu)]
            return [m.TRIGMON_LIST.line(self.cpu, name=mon.initq, count=mon.started)
                    for mon in monitors]
        if cmd.obj == "MQP":
            profile = self.catalog.profile
            if profile is None or cmd.name not in (None, "*", "ALL", self.qmgr.name):
                raise self.reject(m.NOT_FOUND, obj="MQP", name=self.name,
                                  hint=self.not_found_hint())
            return display.render(self.cpu, "MQP", profile.name,
                                  display.definition_rows(profile))
        pattern = cmd.name if cmd.name is not None else "*"
        generic = pattern.endswith("*") or pattern == "ALL"
        found = self.catalog_call(lambda: self.catalog.list(cmd.obj, pattern))
        if not found:
            if generic:
                return [m.NONE_MATCH.line(self.cpu, obj=cmd.obj, pattern=pattern)]
            raise self.reject(m.NOT_FOUND, obj=cmd.obj, name=pattern,
                              hint=self.not_found_hint())
        lines: list[str] = []
        for definition in found:
            lines += display.render(self.cpu, definition.type_name, definition.name,
                                    self.rows(definition))
        if generic:
            lines.append(m.DISPLAY_COUNT.line(self.cpu, count=len(found), obj=cmd.obj))
        return lines

    def rows(self, definition: ObjectDef) -> list[display.Row]:
        """Live state first (what an operator looks for), then every attribute."""
        live: list[display.Row] = []
        if definition.type_name == "QL":
            live = display.queue_rows(self.qmgr.queues.get(definition.name),
                                      dict(self.catalog.xmitq_routes))
        elif definition.type_name == "CHL":
            port = self.channel_port(definition)
            live = display.channel_rows(self.catalog.channel_requests.get(definition.name),
                                        port.rows(definition.name) if port else None)
        return live + display.definition_rows(definition)

    def display_qmgr(self) -> list[str]:
        qmgr, catalog = self.qmgr, self.catalog
        if not qmgr.running:
            status = "STOPPED"
        elif self.system.stop_requested:
            status = "STOP REQUESTED"
        else:
            status = "ACTIVE"
        definitions = catalog.snapshot()
        count = {t: sum(1 for d in definitions if d.type_name == t)
                 for t in ("QL", "QA", "QR", "PROC", "CHL")}
        rows: list[display.Row] = [
            ("CPU", self.cpu),
            ("STATUS", status),
            ("PROFILE", "DEFINED" if catalog.profile is not None else "NOT DEFINED"),
            ("CONNS", str(len(qmgr.connections))),
            ("QL", str(count["QL"])), ("QA", str(count["QA"])), ("QR", str(count["QR"])),
            ("PROC", str(count["PROC"])), ("CHL", str(count["CHL"])),
            ("SWQ", str(len(catalog.xmitq_routes))),
        ]
        if catalog.profile is not None:
            rows += display.definition_rows(catalog.profile)
        return display.render(self.cpu, "QMGR", qmgr.name, rows)

    # -- CLEAR ----------------------------------------------------------------------------------

    def _clear(self) -> list[str]:
        from tpfemu.qmgr.manager import ClearRefused

        self.no_operands()
        name = self.name
        self.catalog_call(lambda: self.catalog.get("QL", name))
        try:
            removed = self.qmgr.clear_queue(name)  # refused while the queue is in use
        except ClearRefused as exc:
            raise self.reject(m.CLEAR_REFUSED, name=name, reason=exc.reason_name,
                              detail=exc.detail) from exc
        left = self.qmgr.local_queue(name).core.depth
        if left:
            return [m.CLEARED_PART.line(self.cpu, name=name, count=removed, left=left)]
        return [m.CLEARED.line(self.cpu, name=name, count=removed)]

    # -- START / STOP ---------------------------------------------------------------------------

    # -- trigger monitors -------------------------------------------------------------------

    def trigger_monitors(self) -> list[Any]:
        from tpfemu.qmgr.trigmon import TriggerMonitor

        return [s for s in self.system.services if isinstance(s, TriggerMonitor)]

    def trigmon(self, verb: str) -> list[str]:
        """START/STOP TRIGMON-initq: the built-in trigger monitor of an initiation queue."""
        self.no_operands()
        name = self.name
        running = {mon.initq: mon for mon in self.trigger_monitors()}
        if verb == "START":
            if name in running:
                raise self.reject(m.TRIGMON_REFUSED, verb=verb, name=name,
                                  detail="A TRIGGER MONITOR ALREADY SERVES IT")
            try:
                self.system.start_trigger_monitor(name)
            except errors.MQMIError as exc:
                raise self.reject(m.TRIGMON_REFUSED, verb=verb, name=name,
                                  detail=f"THE QUEUE CANNOT BE OPENED: {exc.reason_name}") \
                    from None
            return [m.TRIGMON_STARTED.line(self.cpu, name=name)]
        monitor = running.get(name)
        if monitor is None:
            raise self.reject(m.TRIGMON_REFUSED, verb=verb, name=name,
                              detail="NO TRIGGER MONITOR SERVES IT")
        monitor.stop()
        self.system.services.remove(monitor)
        return [m.TRIGMON_STOPPED.line(self.cpu, name=name, count=monitor.started)]

    def _start(self) -> list[str]:
        if self.cmd.obj == "CHL":
            return self.channel_request()
        if self.cmd.obj == "TRIGMON":
            return self.trigmon("START")
        self.no_operands()
        if not self.qmgr.running:
            raise self.reject(m.QMGR_DOWN, name=self.qmgr.name)
        note = ""
        if self.system.stop_requested:
            self.system.stop_requested = False
            note = " - THE STOP REQUEST IS CANCELLED"
        return [m.QMGR_ACTIVE.line(self.cpu, name=self.qmgr.name, cpu=self.cpu, note=note)]

    def _stop(self) -> list[str]:
        if self.cmd.obj == "CHL":
            return self.channel_request()
        if self.cmd.obj == "TRIGMON":
            return self.trigmon("STOP")
        self.no_operands()
        self.system.stop_requested = True
        return [m.QMGR_STOPPING.line(self.cpu, name=self.qmgr.name)]

    # -- channels -------------------------------------------------------------------------------

    def _reset(self) -> list[str]:
        return self.channel_request()

    def _resolve(self) -> list[str]:
        return self.channel_request()

    def channel_request(self) -> list[str]:
        """START/STOP/RESET/RESOLVE CHL: validate, record for the channel agent, say so."""
        verb, name = self.cmd.verb, self.name
        specs = _CHANNEL_OPERANDS[verb]
        by_keyword = {spec.keyword: attr for attr, spec in specs.items()}
        given: dict[str, Any] = {}
        for token in self.cmd.operands:
            attr = by_keyword.get(token.key)
            if attr is None:
                raise self.reject(m.UNKNOWN_KEYWORD, keyword=token.key, verb=verb, obj="CHL",
                                  valid=", ".join(sorted(by_keyword)) or "NONE")
            if token.is_switch:
                raise self.reject(m.VALUE_NEEDED, keyword=token.key,
                                  accepted=specs[attr].accepted)
            if attr in given:
                raise self.reject(m.DUPLICATE, keyword=token.key)
            given[attr] = token.value
        values: dict[str, Any] = {}
        for attr, spec in specs.items():
            value = given.get(attr, spec.default)
            values[attr] = self.catalog_call(functools.partial(spec.check, value, f"CHL {name!r}"))
        channel = self.catalog_call(lambda: self.catalog.get("CHL", name))
        if channel.chltype not in _CHANNEL_TYPES[verb]:
            raise self.reject(m.CHL_WRONG_TYPE, verb=verb, name=name, chltype=channel.chltype,
                              types=" AND ".join(_CHANNEL_TYPES[verb]) + " CHANNELS")
        if channel.cpu not in (self.cpu, "ALL"):
            raise self.reject(m.CHL_REFUSED, verb=verb, name=name,
                              detail=f"IT IS DEFINED FOR CPU {channel.cpu}; "
                                     f"ENTER THE COMMAND ON CPU {channel.cpu}")
        if verb == "STOP":
            self.stop_operands(channel, given, values)
        if verb == "START" and channel.chltype == "SDR":
            xq = self.catalog.find_queue(channel.xmitq)
            if xq is None or xq.type_name != "QL" or getattr(xq, "usage", "") != "XMITQ":
                what = "IS NOT DEFINED" if xq is None else "IS NOT A QL WITH USAGE-XMITQ"
                raise self.reject(m.CHL_REFUSED, verb=verb, name=name,
                                  detail=f"ITS XMITQ {channel.xmitq} {what}")
        port = self.channel_port(channel)
        if port is None:
            detail = self.record(verb, name, values)
            return [m.CHL_RECORDED.line(self.cpu, name=name, verb=verb, detail=detail)]
        try:
            result = self.act(port, verb, name, values)
        except ValueError as exc:
            raise self.reject(m.CHL_REFUSED, verb=verb, name=name, detail=str(exc)) from exc
        detail = self.record(verb, name, values)
        return [m.CHL_DONE.line(self.cpu, name=name, verb=verb, detail=detail, result=result)]

    def stop_operands(self, channel: Any, given: dict[str, Any], values: dict[str, Any]) -> None:
        """STOP CHL's STATUS and CONNAME (IBM's rules): for a server-connection channel
        only here; with CONNAME, STATUS is INACTIVE (given STOPPED, refused)."""
        name = channel.name
        if channel.chltype != "SVRCONN" and ("status" in given or "conname" in given):
            raise self.reject(m.CHL_REFUSED, verb="STOP", name=name,
                              detail="STATUS AND CONNAME ARE TAKEN FOR SVRCONN CHANNELS ONLY")
        if values["conname"]:
            if "status" in given and values["status"] == "STOPPED":
                raise self.reject(m.CHL_REFUSED, verb="STOP", name=name,
                                  detail="WITH CONNAME, STATUS MUST BE INACTIVE: A CHANNEL "
                                         "IS NOT STOPPED FOR ONE CLIENT")
            values["status"] = "INACTIVE"

    def channel_port(self, channel: Any) -> ChannelPort | None:
        """The processor's channel agents, which serve every channel type (None: no
        agents run here, or there is no such channel)."""
        port = getattr(self.system, "channels", None)
        return None if port is None or channel is None else port

    @staticmethod
    def act(port: ChannelPort, verb: str, name: str, values: dict[str, Any]) -> str:
        """Carry out a channel request; :raises ValueError: refused."""
        if verb == "START":
            return port.start(name)
        if verb == "STOP":
            return port.stop_channel(name, values["mode"], values["status"], values["conname"])
        if verb == "RESET":
            return port.reset(name, values["seqnum"])
        return port.resolve(name, values["action"])

    def record(self, verb: str, name: str, values: dict[str, Any]) -> str:
        """Record the request in ``catalog.channel_requests``; return what to echo."""
        with self.catalog.lock:
            old = self.catalog.channel_requests.get(name) or ChannelRequest()
            now = _now_us()
            if verb == "START":
                new = ChannelRequest("RUNNING", "", old.seqnum, old.resolve, now)
                detail = ""
            elif verb == "STOP":
                new = ChannelRequest(values["status"], values["mode"], old.seqnum, old.resolve,
                                     now)
                detail = f" (MODE-{values['mode']}"
                if values["status"] != "STOPPED":
                    detail += f" STATUS-{values['status']}"
                if values["conname"]:
                    detail += f" CONNAME-{values['conname']}"
                detail += ")"
            elif verb == "RESET":
                new = ChannelRequest(old.state, old.mode, values["seqnum"], old.resolve, now)
                detail = f" (SEQNUM-{values['seqnum']})"
            else:
                new = ChannelRequest(old.state, old.mode, old.seqnum, values["action"], now)
                detail = f" (ACTION-{values['action']})"
            self.catalog.channel_requests[name] = new
        return detail

    # -- SWQ --------------------------------------------------------------------------------------

    def _swq(self) -> list[str]:
        source = self.name
        operands = list(self.cmd.operands)
        if not operands:  # SWQ QL-A: end A's swing
            try:
                target = swq.unswing(self.qmgr, source)
            except swq.SwingError as exc:
                raise self.reject(m.SWQ_REFUSED, source=source, detail=str(exc)) from exc
            return [m.SWQ_ENDED.line(self.cpu, source=source, target=target)]
        first = operands[0]
        if len(operands) > 1 or first.key != "QL" or first.is_switch:
            token = operands[1] if len(operands) > 1 and first.key == "QL" else first
            raise self.reject(m.UNKNOWN_KEYWORD, keyword=token.text, verb="SWQ", obj="QL",
                              valid="QL-<TARGET TRANSMISSION QUEUE>")
        target = first.value or ""
        try:
            result = swq.swing(self.qmgr, source, target)
        except swq.SwingError as exc:
            raise self.reject(m.SWQ_REFUSED, source=source, detail=str(exc)) from exc
        except errors.MQMIError as exc:
            raise self.reject(m.SWQ_REFUSED, source=source, detail=str(exc)) from exc
        if result.left or result.reason:
            return [m.SWUNG_PART.line(self.cpu, source=source, target=target,
                                      count=result.moved, left=result.left,
                                      reason=result.reason)]
        return [m.SWUNG.line(self.cpu, source=source, target=target, count=result.moved)]
