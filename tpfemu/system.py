"""The System: one TPF processor running its queue manager, programs and console.

::

    with tpfemu.System.start(name="TPF1", cpu="B") as system:
        system.console("ZMQSC DEF MQP")
        system.console("ZMQSC DEF QL-APP.IN")
        system.programs.load("QZZ1", qzz1)
        qm = tpfemu.mqi.connect("TPF1")

``System.start`` boots the ECB dispatcher (I-streams), the program table, the queue
manager (registered so ``mqi.connect(name)`` finds it), the console sink and the
Internet daemon. ``console(text)`` runs one operator command (ZMQSC, ZINET) and returns
its response; the interactive console and the ``tpfemu`` CLI call the same function.
``stop()`` quiesces the entries and stops the queue manager.

``home=None`` keeps everything in memory; persistence (issue 7) will keep LMDB files in
the home.

Failures are never silent. Every console line the system writes (not command responses)
is kept in ``System.log``; those of severity ``E`` — program failures (system-error dumps
``CPSE0001E``), triggers that could not start a program, failed scans — are also listed
in ``System.errors`` (:class:`Failure`: identifier, text, how many times). Without a
``console=`` sink the lines go to the ``logging`` logger ``tpfemu.console``
(:data:`LOGGER_NAME`; ``E`` as ERROR, ``W`` as WARNING, else INFO), so that with no logging
set up the errors and warnings reach standard error. A dump that repeats (the same
program, error code and error text) is shown once in full, then counted: a one-line note
at the 2nd, 4th, 8th ... occurrence and a summary when the system stops.

With a home, the event journal (docs/journal.md) records every queue-manager event in
``HOME/journal``; ``journal="events"`` (the default), ``"payload"`` (with message data)
or ``"off"``. Without a home there is nowhere to write, so there is no journal (a
:class:`tpfemu.journal.Journal` can still be started on any directory by hand).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ecb import Dispatcher, Programs
from tpfemu import errors
from tpfemu.cprog.programs import SharedPrograms
from tpfemu.qmgr.manager import QueueManager
from tpfemu.qmgr.ports import Service

if TYPE_CHECKING:
    from tpfemu.bridge import Bridge
    from tpfemu.channels.manager import ChannelManager
    from tpfemu.channels.ports import FastDelivery
    from tpfemu.console.monitor import DepthMonitor
    from tpfemu.inetd.daemon import InternetDaemon
    from tpfemu.journal.writer import Journal

__all__ = ["Failure", "LOGGER_NAME", "System"]

#: The logger the system's console lines go to when no ``console=`` sink is given.
LOGGER_NAME = "tpfemu.console"
_logger = logging.getLogger(LOGGER_NAME)
_SEVERITY = re.compile(r"^[A-Z]{4}\d{4}([IWE])\b")
_LEVELS = {"E": logging.ERROR, "W": logging.WARNING}
# A dump's header without what changes from one occurrence to the next (time, I-stream, ECB).
_DUMP_HEAD = re.compile(r"^(CPSE\d{4}[IWE]) \S+ IS-\d+ (.*?) ECB-\d+ (PGM-\S+)")
# A system error's dump header: its code and name, the ECB and its program.
_SERRC_HEAD = re.compile(r"^CPSE\d{4}E \S+ IS-\d+ SYSTEM ERROR (SE-\S+ \S+) ECB-(\d+) PGM-(\S+)")


@dataclass
class Failure:
    """One kind of failure the system reported on its console (an ``E`` line).

    :ivar message_id: the identifier (``CPSE0001E``, ``MQSC0912E``...).
    :ivar text: the first occurrence's first line.
    :ivar count: how many times it occurred (a repeating dump counts here).
    """

    message_id: str
    text: str
    count: int = 1
    first: float = 0.0
    last: float = 0.0


def _failure_key(text: str) -> str:
    """What makes two console lines the same failure: a dump's program, error code and
    error text; any other line's whole first line."""
    lines = text.split("\n")
    head = _DUMP_HEAD.match(lines[0])
    if head is None:
        return lines[0]
    error = " ".join(lines[1].split()) if len(lines) > 1 else ""
    return " ".join(head.groups()) + " " + error

_CPU_IDS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: Event journal levels (tpfemu.journal.schema.LEVELS, named here so that a system
#: without a journal does not import pyarrow).
JOURNAL_LEVELS = ("off", "events", "payload")


class _Entries:
    """The queue manager's entry port (tpfemu.qmgr.ports.EntryPort): the dispatcher and
    program table of this processor."""

    def __init__(self, programs: Programs, dispatcher: Dispatcher) -> None:
        self._programs = programs
        self._dispatcher = dispatcher

    def is_loaded(self, program: str) -> bool:
        return self._programs.get(program) is not None

    def create_entry(self, program: str, data: bytes, *, origin: tuple[str, str]) -> None:
        self._dispatcher.creec(program, data, b"", origin=origin)


class _Services:
    """The queue manager's service registry (tpfemu.qmgr.ports.ServiceRegistry): the
    services this processor stops when it stops."""

    def __init__(self, services: list) -> None:
        self._services = services

    def running(self) -> list:
        return list(self._services)

    def register(self, service: Service) -> None:
        self._services.append(service)


class System:
    """One TPF processor. Build it with :meth:`start`."""

    def __init__(self, name: str = "TPF1", home: str | Path | None = None, cpu: str = "B",
                 *, istreams: int = 2, console: Callable[[str], None] | None = None,
                 journal: str = "events", checkpoint_interval: float = 5.0) -> None:
        if len(cpu) != 1 or cpu.upper() not in _CPU_IDS:
            raise ValueError(f"cpu must be one processor ID letter A-Z, not {cpu!r}")
        if journal not in JOURNAL_LEVELS:
            raise ValueError(f"journal level must be one of {', '.join(JOURNAL_LEVELS)}, "
                             f"not {journal!r}")
        self.journal_level = journal
        #: The running event journal (:class:`tpfemu.journal.Journal`), or None when the
        #: level is ``off`` or there is no home.
        self.journal: Journal | None = None
        self.name = name
        self.cpu = cpu.upper()
        self.home = Path(home) if home is not None else None
        #: Console lines written by the system (depth warnings, dumps, trigger errors),
        #: newest last; also passed to ``console`` if given.
        self.log: deque[str] = deque(maxlen=10_000)
        self._echo = console
        self._log_lock = threading.Lock()
        self._failures: dict[str, Failure] = {}
        self._dump_counts: dict[str, int] = {}
        self.programs = SharedPrograms()  # Python callables and C programs (load_shared)
        self.dispatcher = Dispatcher(self.programs, istreams=istreams, console=self.say)
        self.services: list = []  # started services (Internet daemon, monitors) to stop
        # With a home, definitions and persistent messages survive a restart (issue 7).
        # The queue manager reaches the dispatcher and the services only through its ports.
        self.qmgr = QueueManager(name, cpu=self.cpu, console=self.say, home=self.home,
                                 checkpoint_interval=checkpoint_interval,
                                 entries=_Entries(self.programs, self.dispatcher),
                                 services=_Services(self.services))
        self.running = False
        self.stop_requested = False  # ZMQSC STOP QMGR asks the CLI to end the session
        self.depth_monitor: DepthMonitor | None = None
        #: The Internet daemon (ZINET), once :meth:`internet_daemon` created it.
        self.inetd: InternetDaemon | None = None
        self._inetd_lock = threading.Lock()
        #: The ROUTC bridge (:class:`tpfemu.bridge.Bridge`), from :meth:`start` on: the
        #: fast receiver's delivery port (``system.bridge.deliver(channel, md, data)``),
        #: ROUTC's router and the LNIATA table (docs/bridge.md).
        self.bridge: Bridge | None = None
        #: The message channels (issue 25): agents, status, CMQL; made by :meth:`start`.
        self.channels: ChannelManager | None = None
        #: The ROUTC bridge entry point a FAST receiver hands nonpersistent messages to
        #: (tpfemu.channels.ports.FastDelivery): the system's bridge from :meth:`start`
        #: on; None: they go to the dead-letter queue (a bridge that is not there).
        self.fast_delivery: FastDelivery | None = None

    # -- life cycle -----------------------------------------------------------------------

    @classmethod
    def start(cls, name: str = "TPF1", home: str | Path | None = None, cpu: str = "B",
              **kwargs) -> System:
        """Boot a processor: dispatcher, queue manager, console. Returns it running."""
        system = cls(name, home, cpu, **kwargs)
        system.dispatcher.start()
        try:
            system.qmgr.start()
        except errors.TpfEmuError:
            system.dispatcher.stop(1)
            raise
        if system.home is not None and system.journal_level != "off":
            from tpfemu.journal.writer import Journal

            try:
                system.journal = Journal(system.qmgr, system.home / "journal",
                                         level=system.journal_level, cpu=system.cpu,
                                         console=system.say).start()
            except BaseException:
                system.qmgr.stop()
                system.dispatcher.stop(1)
                raise
        system.running = True
        from tpfemu.bridge import Bridge

        try:
            system.bridge = Bridge(system.qmgr, system.programs, system.dispatcher,
                                   system.say, system.home).start()
            system.fast_delivery = system.bridge  # fast receivers hand it their messages
        except BaseException:
            system.stop(1)
            raise
        from tpfemu.console.monitor import DepthMonitor

        system.depth_monitor = DepthMonitor(system).start()  # QDEPTHHI console warnings
        system.services.append(system.depth_monitor)
        from tpfemu.channels.manager import ChannelManager

        system.channels = ChannelManager(system).install()  # START CHL; CMQL for ZINET
        if system.home is not None:  # servers defined ACT-AUTO in this home start now
            from tpfemu.console.zinet import start_auto

            for line in filter(None, start_auto(system).splitlines()):
                system.say(line)
        return system

    def stop(self, timeout: float = 5.0) -> None:
        """Quiesce: services stop, entries finish (or are reported), the queue manager
        stops (open units of work are backed out)."""
        if not self.running:
            return
        self.running = False
        for service in reversed(self.services):
            try:
                service.stop()
            except Exception as exc:  # stopping must go on
                self.say(f"SYST0002E {self.cpu} stopping {service!r} failed: {exc!r}")
        self.services.clear()
        self.dispatcher.stop(timeout)
        self._repeat_summary()
        if self.bridge is not None:  # after the entries: they may still ROUTC
            self.bridge.stop()
        self.qmgr.stop()
        if self.journal is not None:  # last: it records the backouts of the stop too
            self.journal.stop()

    def __enter__(self) -> System:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start_trigger_monitor(self, initq: str, **kwargs) -> object:
        """Start a trigger monitor serving initiation queue ``initq`` (IBM's runmqtrm: it
        runs only where it is started). It stops with the system.

        :raises MQMIError: the initiation queue cannot be opened.
        """
        from tpfemu.qmgr.trigmon import TriggerMonitor

        monitor = TriggerMonitor(self.qmgr, initq, **kwargs).start()
        self.services.append(monitor)
        return monitor

    def internet_daemon(self) -> InternetDaemon:
        """The Internet daemon of this processor (ZINET), created on first use; it loads
        the server definitions kept in the home."""
        with self._inetd_lock:
            if self.inetd is None:
                from tpfemu.inetd.daemon import InternetDaemon

                self.inetd = InternetDaemon(self)
            return self.inetd

    # -- console -------------------------------------------------------------------------

    @property
    def errors(self) -> list[Failure]:
        """The failures reported so far (``E`` console lines, dumps of failed entries),
        first seen first; a repeating one is listed once with its count."""
        with self._log_lock:
            return [Failure(f.message_id, f.text, f.count, f.first, f.last)
                    for f in self._failures.values()]

    def say(self, line: str) -> None:
        """Write one line (or a dump) to the system console: kept in :attr:`log`, an
        ``E`` line listed in :attr:`errors`, then shown (``console=`` sink or logging);
        a repeating dump is shown once, then counted."""
        shown: str | None = line
        match = _SEVERITY.match(line)
        severity = match.group(1) if match else "I"
        with self._log_lock:
            if severity == "E":
                self._count_failure(line)
            if _DUMP_HEAD.match(line):
                key = _failure_key(line)
                seen = self._dump_counts[key] = self._dump_counts.get(key, 0) + 1
                if seen > 1:
                    shown = self._repeat_note(key, seen)
            if shown is not None:
                self.log.append(shown)
        if shown is not None:
            self._show(shown, severity)
        if severity == "E" and self.journal is not None:
            self._journal_failure(line)

    def _journal_failure(self, line: str) -> None:
        """A system error's dump (a failed program run) becomes a ``program-failed``
        event of the journal: the dispatcher reports failures only to the console."""
        head = _SERRC_HEAD.match(line)
        if head is None or self.journal is None:
            return
        lines = line.split("\n")
        error = lines[1].strip().removeprefix("ERROR").strip() if len(lines) > 1 else ""
        program = None if head.group(3) == "----" else head.group(3)
        try:
            self.journal.record_failure(program, int(head.group(2)), head.group(1), error)
        except Exception:  # noqa: BLE001 - the journal must never fail a console line
            pass

    def _count_failure(self, line: str) -> None:
        key = _failure_key(line)
        now = time.time()
        failure = self._failures.get(key)
        if failure is None:
            self._failures[key] = Failure(line[:9], line.split("\n", 1)[0], 1, now, now)
        else:
            failure.count += 1
            failure.last = now

    def _repeat_note(self, key: str, seen: int) -> str | None:
        """The one-line note for the ``seen``-th occurrence of a dump (None: counted only)."""
        if seen & (seen - 1):  # not a power of two
            return None
        return f"SYST0010W {self.cpu} DUMP REPEATED {seen} TIMES (SHOWN ONCE): {key}"

    def _show(self, text: str, severity: str) -> None:
        if self._echo is not None:
            self._echo(text)
        else:
            _logger.log(_LEVELS.get(severity, logging.INFO), "%s", text)

    def _repeat_summary(self) -> None:
        """At stop: how often each repeated dump occurred in all."""
        with self._log_lock:
            repeated = [(key, n) for key, n in self._dump_counts.items() if n > 1]
        for key, count in repeated:
            line = f"SYST0011W {self.cpu} DUMP OCCURRED {count} TIMES IN ALL: {key}"
            with self._log_lock:
                self.log.append(line)
            self._show(line, "W")

    def console(self, text: str) -> str:
        """Run one operator command (``ZMQSC ...``, ``ZINET ...``); return its response.

        A rejected command changes nothing and its response says why (an ``E`` message);
        this method does not raise for bad commands.
        """
        from tpfemu.console import execute

        return execute(self, text)
