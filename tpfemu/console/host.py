"""What the console needs from the processor it runs on: the host interface.

The console (ZMQSC, ZINET, the depth monitor) works on a :class:`ConsoleHost`, not on the
whole :class:`~tpfemu.system.System`; the System satisfies it. The ZINET command reaches
the Internet daemon through :class:`InternetDaemonPort` (the console does not import the
daemon: both sit on the same layer, DESIGN.md §1).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from tpfemu.qmgr.manager import QueueManager

__all__ = ["BridgeOperatorPort", "BridgePort", "ChannelPort", "ConsoleHost",
           "InternetDaemonPort", "ServerDefinition", "ServerStatus"]


class ServerDefinition(Protocol):
    """One ZINET server definition (read-only; ALTER builds a new one)."""

    @property
    def name(self) -> str: ...

    @property
    def protocol(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def pgm(self) -> str: ...

    @property
    def ip(self) -> str: ...

    @property
    def port(self) -> int: ...

    @property
    def procid(self) -> str: ...

    @property
    def act(self) -> str: ...

    @property
    def state(self) -> str: ...

    @property
    def maxproc(self) -> int: ...

    @property
    def timeout(self) -> int: ...

    @property
    def aorl(self) -> int | None: ...

    def to_json(self) -> dict[str, Any]:
        """The definition as field -> value."""


class ServerStatus(Protocol):
    """A started server, as ZINET DISPLAY shows it."""

    @property
    def address(self) -> tuple[str, int]: ...

    @property
    def accepted(self) -> int: ...

    @property
    def entries(self) -> int: ...

    @property
    def refused(self) -> int: ...

    @property
    def errors(self) -> int: ...

    @property
    def active(self) -> int:
        """Entries currently serving connections of this server."""


class InternetDaemonPort(Protocol):
    """The Internet daemon of one processor, as the ZINET command drives it."""

    @property
    def lock(self) -> AbstractContextManager[Any]: ...

    @property
    def default_aorl(self) -> int: ...

    @property
    def default_maxproc(self) -> int: ...

    @property
    def definitions(self) -> Mapping[str, ServerDefinition]:
        """Server name -> definition."""

    @property
    def servers(self) -> Mapping[str, ServerStatus]:
        """Server name -> started server."""

    def check_field(self, field: str, value: object) -> Any:
        """The value of one definition field, checked; :raises ValueError: it breaks a rule."""

    def new_definition(self, fields: Mapping[str, Any]) -> ServerDefinition:
        """A definition from field -> value; :raises ValueError: the fields conflict."""

    def define(self, definition: Any) -> None:
        """Add or replace a definition and save it; :raises OSError: not saved."""

    def delete(self, name: str) -> None:
        """Remove an inactive server's definition; :raises OSError: not saved."""

    def start(self, name: str) -> ServerStatus:
        """Start a defined server; :raises OSError: it cannot listen."""

    def stop_server(self, name: str) -> None:
        """Stop a started server."""

    def prune(self) -> None:
        """Forget servers whose listener failed."""


class BridgeOperatorPort(Protocol):
    """The ROUTC bridge's operator facade (tpfemu.bridge.operator.BridgeOperator), as the
    ZBRDG command drives it: ValueError for a bad value, KeyError for an unknown terminal,
    OSError when the table cannot be saved."""

    def terminals(self) -> list[dict[str, Any]]:
        """Every terminal: lniata, application, mq, kind, inputs, outputs, routes, reply,
        logged, wgta."""

    def terminal(self, lniata: str) -> dict[str, Any]:
        """One terminal, as a row of :meth:`terminals`."""

    def define(self, lniata: str, application: str | None = None, mq: bool | None = None,
               reply_to_q: str | None = None, reply_to_qmgr: str | None = None) -> None:
        """Define a terminal, optionally with a route to it."""

    def alter(self, lniata: str, application: str | None = None, mq: bool | None = None,
              reply_to_q: str | None = None, reply_to_qmgr: str | None = None) -> None:
        """Change a defined terminal (application "" = none)."""

    def delete(self, lniata: str) -> None:
        """Delete a terminal and its routes."""

    def pool(self) -> dict[str, Any]:
        """The default allocation: first, count, application, allocated."""

    def set_pool(self, first: str | None = None, count: int | None = None,
                 application: str | None = None) -> None:
        """Change the default allocation."""

    def log(self, lniata: str) -> list[str]:
        """A terminal's output log, oldest first."""

    def clear_log(self, lniata: str) -> int:
        """Empty a terminal's log; how many messages it held."""


class BridgePort(Protocol):
    """The ROUTC bridge of one processor, as the console sees it."""

    @property
    def operator(self) -> BridgeOperatorPort: ...


class ChannelPort(Protocol):
    """The message channels of one processor (``system.channels``), as ZMQSC drives them.
    Each request returns the result to echo; :raises ValueError: refused (the text says
    why)."""

    def start(self, name: str) -> str:
        """START CHL."""

    def stop_channel(self, name: str, mode: str, status: str = "STOPPED",
                     conname: str = "") -> str:
        """STOP CHL MODE-QUIESCE|FORCE [STATUS-STOPPED|INACTIVE] [CONNAME-address]."""

    def reset(self, name: str, seqnum: int) -> str:
        """RESET CHL SEQNUM-n."""

    def resolve(self, name: str, action: str) -> str:
        """RESOLVE CHL ACTION-COMMIT|BACKOUT."""

    def is_running(self, name: str) -> bool:
        """The channel has a live agent."""

    def rows(self, name: str) -> list[tuple[str, str]]:
        """DISP CHL's live rows (STATUS first)."""


class ConsoleHost(Protocol):
    """The processor a console command runs on (a :class:`~tpfemu.system.System`).

    :ivar stop_requested: set by ZMQSC STOP QMGR (the CLI ends the session), cleared by START.
    :ivar services: the processor's started services; ZMQSC START/STOP TRIGMON looks up and
        removes trigger monitors there.
    """

    cpu: str
    running: bool
    stop_requested: bool
    qmgr: QueueManager
    services: list[Any]

    def say(self, line: str) -> None:
        """Write one line to the system console."""

    def start_trigger_monitor(self, initq: str) -> object:
        """Start a trigger monitor for ``initq``; :raises MQMIError: it cannot be opened."""

    def internet_daemon(self) -> InternetDaemonPort:
        """The processor's Internet daemon (created on first use)."""

    @property
    def bridge(self) -> BridgePort | None:
        """The processor's ROUTC bridge (None before the system has started)."""
