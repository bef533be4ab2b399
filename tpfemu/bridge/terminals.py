"""The bridge's terminals: the LNIATA table, the WGTA, saved replies and terminal logs.

What the operator maintains (``ZBRDG``, docs/bridge.md), persisted in ``<home>/bridge.json``
(written whole, atomically: temporary file, fsync, ``os.replace``), as ZINET keeps its
definitions:

- **WGTA entries** (:class:`~tpfemu.bridge.layouts.WgtaEntry`, stored as their 16 bytes):
  the terminals that exist, each with the application COA4 routes it to and the MQ mark.
- **Routes**: CUIW's table, (ReplyToQ, ReplyToQMgr) -> LNIATA; ReplyToQ ``*`` matches any
  queue of that queue manager.
- **The pool**: the default allocation when no route matches: ``count`` terminals from
  ``first`` up (default FE0000, 256 of them, no application); each (ReplyToQ,
  ReplyToQMgr) pair keeps the terminal it was first given (the allocations are stored too).

What lives only while the system runs: the reply each MQ terminal owes (a
:class:`ReplyContext`, saved when a message is bridged to it; requests are nonpersistent
and do not survive a restart either) and each terminal's output log (ROUTC to an ordinary
terminal), the newest :data:`LOG_SIZE` messages.

Thread-safe: one lock guards the tables; saving happens under it.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from tpfemu.bridge.layouts import LayoutError, Lniata, WgtaEntry, program_name

__all__ = ["FILE_NAME", "LOG_SIZE", "ReplyContext", "TerminalOutput", "Terminals"]

FILE_NAME = "bridge.json"
LOG_SIZE = 1000
DEFAULT_POOL_FIRST = Lniata(b"\xfe\x00\x00")
DEFAULT_POOL_COUNT = 256
ANY_QUEUE = "*"


class ReplyContext(NamedTuple):
    """What an MQ terminal's reply needs from the request it answers."""

    reply_to_q: str
    reply_to_qmgr: str
    msg_id: bytes
    correl_id: bytes
    report: int
    persistence: int
    priority: int
    format: bytes
    ccsid: int
    encoding: int
    channel: str = ""
    #: The request's Expiry as it arrived (tenths of a second, MQEI_UNLIMITED = -1) and
    #: when it arrived (``time.monotonic()``).
    expiry: int = -1
    received: float = 0.0

    def remaining_expiry(self) -> int:
        """The request's Expiry left now (tenths, at least 1), or MQEI_UNLIMITED (-1)."""
        if self.expiry < 0:
            return self.expiry
        spent = math.ceil((time.monotonic() - self.received) * 10)
        return max(1, self.expiry - spent)


@dataclass(frozen=True, slots=True)
class TerminalOutput:
    """One message ROUTC sent to an ordinary terminal."""

    time: float
    text: bytes
    ecb_id: int
    program: str | None


@dataclass(frozen=True, slots=True)
class Pool:
    """The default allocation: ``count`` LNIATAs from ``first``, routed to ``application``."""

    first: Lniata = DEFAULT_POOL_FIRST
    count: int = DEFAULT_POOL_COUNT
    application: str | None = None

    def lniata(self, index: int) -> Lniata:
        return Lniata((int.from_bytes(self.first, "big") + index).to_bytes(3, "big"))

    def check(self) -> Pool:
        """Self, if the pool fits the LNIATA space. :raises LayoutError: it does not."""
        if not 0 <= self.count <= 65536:
            raise LayoutError(f"pool COUNT {self.count} is not 0 to 65536")
        if int.from_bytes(self.first, "big") + self.count > 1 << 24:
            raise LayoutError(f"pool of {self.count} from {self.first} passes FFFFFF")
        if self.application is not None:
            program_name(self.application)
        return self


class Terminals:
    """The LNIATA table, the WGTA and the terminal logs of one system."""

    def __init__(self, home: Path | None = None) -> None:
        self.path = None if home is None else Path(home) / FILE_NAME
        self.lock = threading.RLock()
        self.wgta: dict[Lniata, WgtaEntry] = {}
        self.routes: dict[tuple[str, str], Lniata] = {}
        self.pool = Pool()
        self.allocated: dict[tuple[str, str], Lniata] = {}
        self.replies: dict[Lniata, ReplyContext] = {}
        #: [inputs, outputs] per terminal; kept apart from the WGTA entries (which hold
        #: what the operator and CUIW set) so that counting does not rebuild an entry.
        self.counts: dict[Lniata, list[int]] = {}
        self.logs: dict[Lniata, deque[TerminalOutput]] = {}
        if self.path is not None and self.path.exists():
            self._load(self.path)

    # -- persistence ----------------------------------------------------------------------

    def _load(self, path: Path) -> None:
        """Read the stored tables. :raises LayoutError: the file is not ours (names it)."""
        try:
            data = json.loads(path.read_text())
            self.wgta = {entry.lniata: entry for entry in
                         (WgtaEntry.unpack(bytes.fromhex(raw)) for raw in data["wgta"])}
            self.routes = {(r["rq"], r["rqm"]): Lniata.parse(r["lniata"])
                           for r in data["routes"]}
            pool = data["pool"]
            self.pool = Pool(Lniata.parse(pool["first"]), int(pool["count"]),
                             pool["application"]).check()
            self.allocated = {(a["rq"], a["rqm"]): Lniata.parse(a["lniata"])
                              for a in data["allocated"]}
            self.counts = {k: [e.inputs, e.outputs] for k, e in self.wgta.items()}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise LayoutError(f"{path} is not a readable bridge table: {exc}") from None

    def _save(self) -> None:
        """Write the tables (under the lock). :raises OSError: not written."""
        if self.path is None:
            return
        data: dict[str, Any] = {
            "version": 1,
            "wgta": [self.entry(k).pack().hex().upper() for k in sorted(self.wgta)],
            "routes": [{"rq": q, "rqm": m, "lniata": str(v)}
                       for (q, m), v in sorted(self.routes.items())],
            "pool": {"first": str(self.pool.first), "count": self.pool.count,
                     "application": self.pool.application},
            "allocated": [{"rq": q, "rqm": m, "lniata": str(v)}
                          for (q, m), v in sorted(self.allocated.items())],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=FILE_NAME + ".", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w") as file:
                json.dump(data, file, indent=1)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def save(self) -> None:
        """Write the tables now, counts included (the bridge does at stop; changes are
        saved as they are made, counts alone are not). :raises OSError: not written."""
        with self.lock:
            self._save()

    def _change(self, apply: Any) -> None:
        """Apply a change to the tables and save it; on a failed save, undo it."""
        with self.lock:
            saved = (dict(self.wgta), dict(self.routes), self.pool, dict(self.allocated))
            apply()
            try:
                self._save()
            except BaseException:
                self.wgta, self.routes, self.pool, self.allocated = saved
                raise

    def entry(self, lniata: Lniata) -> WgtaEntry:
        """The WGTA entry of ``lniata`` with its current counts. :raises KeyError: none."""
        with self.lock:
            entry = self.wgta[lniata]
            counts = self.counts.get(lniata)
            return replace(entry, inputs=counts[0], outputs=counts[1]) if counts else entry

    # -- operator changes -------------------------------------------------------------------

    def define(self, lniata: Lniata, application: str | None = None,
               mq: bool | None = None) -> WgtaEntry:
        """Define (or redefine) a terminal; an existing one keeps what is not given."""
        if application is not None:
            program_name(application)
        with self.lock:
            old = self.wgta.get(lniata)
            entry = replace(old, operator=True) if old else WgtaEntry(lniata, operator=True)
            if application is not None:
                entry = replace(entry, application=application)
            if mq is not None:
                entry = replace(entry, mq=mq)
            self._change(lambda: self.wgta.__setitem__(lniata, entry))
            if not entry.mq:
                self.replies.pop(lniata, None)
            return entry

    def clear_application(self, lniata: Lniata) -> WgtaEntry:
        """Route the terminal to no application. :raises KeyError: not defined."""
        with self.lock:
            entry = replace(self.wgta[lniata], application=None)
            self._change(lambda: self.wgta.__setitem__(lniata, entry))
            return entry

    def delete(self, lniata: Lniata) -> None:
        """Forget a terminal, its routes and allocations. :raises KeyError: not defined."""
        with self.lock:
            if lniata not in self.wgta:
                raise KeyError(lniata)

            def apply() -> None:
                del self.wgta[lniata]
                self.routes = {k: v for k, v in self.routes.items() if v != lniata}
                self.allocated = {k: v for k, v in self.allocated.items() if v != lniata}

            self._change(apply)
            self.replies.pop(lniata, None)
            self.logs.pop(lniata, None)
            self.counts.pop(lniata, None)

    def add_route(self, reply_to_q: str, reply_to_qmgr: str, lniata: Lniata) -> None:
        """Have CUIW give ``lniata`` to messages with this ReplyToQ (``*``: any) and
        ReplyToQMgr. :raises KeyError: the terminal is not defined."""
        with self.lock:
            if lniata not in self.wgta:
                raise KeyError(lniata)
            self._change(lambda: self.routes.__setitem__((reply_to_q, reply_to_qmgr), lniata))

    def remove_routes(self, lniata: Lniata) -> int:
        """Remove every route to ``lniata``; return how many there were."""
        with self.lock:
            gone = [k for k, v in self.routes.items() if v == lniata]
            if gone:
                self._change(lambda: [self.routes.pop(k) for k in gone])
            return len(gone)

    def set_pool(self, pool: Pool) -> None:
        """Replace the default allocation (earlier allocations are forgotten)."""
        pool.check()

        def apply() -> None:
            self.allocated = {}
            self.pool = pool

        self._change(apply)

    # -- CUIW and the bridge ----------------------------------------------------------------

    def assign(self, reply_to_q: str, reply_to_qmgr: str) -> Lniata | None:
        """The default CUIW's answer: the route for (ReplyToQ, ReplyToQMgr), else for
        (``*``, ReplyToQMgr), else this pair's pool terminal (allocated on first use);
        None when the pool is used up."""
        key = (reply_to_q, reply_to_qmgr)
        with self.lock:
            found = self.routes.get(key) or self.routes.get((ANY_QUEUE, reply_to_qmgr)) \
                or self.allocated.get(key)
            if found is not None:
                return found
            taken = set(self.allocated.values())
            for index in range(self.pool.count):
                candidate = self.pool.lniata(index)
                if candidate not in taken and not (candidate in self.wgta
                                                   and self.wgta[candidate].operator):
                    break
            else:
                return None

            def apply() -> None:
                self.allocated[key] = candidate
                old = self.wgta.get(candidate)
                self.wgta[candidate] = old if old else WgtaEntry(
                    candidate, self.pool.application, pool=True)

            self._change(apply)
            return candidate

    def mark_mq(self, lniata: Lniata, reply: ReplyContext,
                application: str | None) -> WgtaEntry:
        """Mark ``lniata`` an MQ terminal owing ``reply`` (creating its entry if CUIW
        named an undefined terminal); ``application`` (from CUIW) replaces its route."""
        with self.lock:
            entry = self.wgta.get(lniata)
            if entry is None or not entry.mq or (
                    application is not None and application != entry.application):
                base = entry if entry is not None else WgtaEntry(lniata)
                marked = replace(base, mq=True, application=application or base.application)
                self._change(lambda: self.wgta.__setitem__(lniata, marked))  # saved
                entry = marked
            counts = self.counts.get(lniata)
            if counts is None:
                counts = self.counts[lniata] = [0, 0]
            counts[0] += 1
            self.replies[lniata] = reply
            return entry

    def count_output(self, lniata: Lniata) -> None:
        """Count one ROUTC output to ``lniata``."""
        with self.lock:
            if lniata in self.wgta:
                counts = self.counts.get(lniata)
                if counts is None:
                    counts = self.counts[lniata] = [0, 0]
                counts[1] += 1

    def log_output(self, lniata: Lniata, text: bytes, ecb_id: int, program: str | None) -> None:
        """Append one message to ``lniata``'s terminal log."""
        with self.lock:
            log = self.logs.get(lniata)
            if log is None:
                log = self.logs[lniata] = deque(maxlen=LOG_SIZE)
            log.append(TerminalOutput(time.time(), text, ecb_id, program))
        self.count_output(lniata)

    def output(self, lniata: Lniata) -> list[TerminalOutput]:
        """The messages ROUTC sent to terminal ``lniata``, oldest first."""
        with self.lock:
            return list(self.logs.get(lniata, ()))

    def clear_log(self, lniata: Lniata) -> int:
        """Empty ``lniata``'s terminal log; return how many messages it held."""
        with self.lock:
            log = self.logs.pop(lniata, None)
            return len(log) if log else 0
