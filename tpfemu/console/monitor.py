"""The queue depth monitor: QDEPTHHI console warnings (seed 004, "Monitoring Queue Depth").

TPF watches its processor-unique queues: "When the queue depth on a transmission queue
exceeds the value specified by the administrator on the QDEPTHHI parameter using the
ZMQSC DEF QL command, a warning message is sent to the operator console. [...] The
warning message is sent to the console every xx seconds until the queue goes below the
QDEPTHHI value (where xx is the interval that is determined by the administrator via
the QDT parameter on the ZMQSC DEF MQP command)."

Rules here:

- Watched: local queues with COMMON-NO (processor-unique; QDEPTHHI is not valid with
  COMMON-YES), QDEPTHHI > 0 and MAXDEPTH > 0 (0 means unlimited: no percentage of it).
  As the issue asks, every processor-unique queue is watched, not only transmission queues.
- The limit is QDEPTHHI percent of MAXDEPTH; a queue is *above* when its depth (CURDEPTH:
  committed or not) is greater than the limit.
- Going above writes ``MQSC0070W`` at once; it is written again every QDT seconds (the
  profile's) while the queue stays above. Falling back to the limit or below writes
  ``MQSC0071I`` once. A queue altered or deleted starts afresh.
- The queue manager's event bus (the journal) gets ``depth-high`` and ``depth-ok`` events.

:class:`DepthMonitor` is a thread the System starts (``system.depth_monitor``);
:meth:`DepthMonitor.check` does one pass and can be called directly, with ``now`` from an
injectable clock, which is how the tests drive it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tpfemu.console import messages as m

if TYPE_CHECKING:
    from tpfemu.console.host import ConsoleHost

__all__ = ["DepthMonitor"]


@dataclass
class _Watch:
    """What the monitor remembers about one queue that is above its limit."""

    definition: Any  # the definition it was judged against (an ALTER starts afresh)
    warned_at: float  # clock time of the last warning


class DepthMonitor:
    """Watches queue depths against QDEPTHHI and warns on the system console.

    :param system: the host (a System) whose queue manager is watched and whose console is written.
    :param clock: seconds, monotonic (``time.monotonic`` unless a test gives its own).
    :param interval: seconds between passes of the thread.
    """

    def __init__(self, system: ConsoleHost, *, clock: Callable[[], float] = time.monotonic,
                 interval: float = 1.0) -> None:
        self.system = system
        self.clock = clock
        self.interval = interval
        self._above: dict[str, _Watch] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- life cycle ------------------------------------------------------------------------

    def start(self) -> DepthMonitor:
        """Start checking every ``interval`` seconds on a daemon thread."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._run, name=f"{self.system.qmgr.name}-depth", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread and wait for it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.check()

    # -- one pass ----------------------------------------------------------------------------

    def check(self, now: float | None = None) -> list[str]:
        """Look at every watched queue once; write and return the console lines made.

        Never raises: a failure is itself reported on the console (``MQSC0072E``).
        """
        try:
            with self._lock:
                return self._check(self.clock() if now is None else now)
        except Exception as exc:  # noqa: BLE001 - a monitor that dies warns nobody
            line = m.MONITOR_FAILED.line(self.system.cpu, detail=repr(exc))
            self.system.say(line)
            return [line]

    def _check(self, now: float) -> list[str]:
        qmgr = self.system.qmgr
        profile = qmgr.catalog.profile
        cpu = self.system.cpu
        lines: list[str] = []
        queues = dict(qmgr.queues)
        for name in list(self._above):
            if name not in queues:  # deleted while above: nothing more to say
                del self._above[name]
        if profile is None:
            return lines
        for name, queue in queues.items():
            d = queue.definition
            watch = self._above.get(name)
            if watch is not None and watch.definition is not d:
                # Altered: judge it afresh (a new limit, or no longer watched).
                del self._above[name]
                watch = None
            if d.common != "NO" or d.qdepthhi <= 0 or d.maxdepth <= 0 or queue.deleted:
                continue
            try:
                depth = queue.core.depth
            except Exception:  # noqa: BLE001 - deleted between the listing and now
                continue
            fields = {"name": name, "depth": depth, "percent": d.qdepthhi,
                      "maxdepth": d.maxdepth, "limit": d.maxdepth * d.qdepthhi // 100}
            if depth * 100 > d.maxdepth * d.qdepthhi:
                if watch is None or now - watch.warned_at >= profile.qdt:
                    lines.append(m.DEPTH_HIGH.line(cpu, **fields))
                    self._above[name] = _Watch(d, now)
                    self._event(qmgr, "depth-high", name, depth, d)
            elif watch is not None:
                lines.append(m.DEPTH_OK.line(cpu, **fields))
                del self._above[name]
                self._event(qmgr, "depth-ok", name, depth, d)
        for line in lines:
            self.system.say(line)
        return lines

    @staticmethod
    def _event(qmgr: Any, kind: str, name: str, depth: int, d: Any) -> None:
        events = getattr(qmgr, "events", None)
        if events is not None and events.active:
            events.emit(kind, name, time.time_ns() // 1000, depth=depth,
                        qdepthhi=d.qdepthhi, maxdepth=d.maxdepth)
