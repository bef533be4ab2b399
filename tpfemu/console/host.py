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

__all__ = ["ChannelPort", "ConsoleHost", "InternetDaemonPort", "ServerDefinition",
           "ServerStatus"]


class ServerDefinition(Protocol):
    """One ZINET server definition (read-only; ALTER builds a new one)."""

    name: str
    protocol: str
    model: str
    pgm: str
    ip: str
    port: int
    procid: str
    act: str
    state: str
    maxproc: int
    timeout: int
    aorl: int | None

    def to_json(self) -> dict[str, Any]:
        """The definition as field -> value."""


class ServerStatus(Protocol):
    """A started server, as ZINET DISPLAY shows it."""

    address: tuple[str, int]
    accepted: int
    entries: int
    refused: int
    errors: int

    @property
    def active(self) -> int:
        """Entries currently serving connections of this server."""


class InternetDaemonPort(Protocol):
    """The Internet daemon of one processor, as the ZINET command drives it."""

    lock: AbstractContextManager[Any]
    default_aorl: int
    default_maxproc: int

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


class ChannelPort(Protocol):
    """The message channels of one processor (``system.channels``), as ZMQSC drives them.
    Each request returns the result to echo; :raises ValueError: refused (the text says
    why)."""

    def start(self, name: str) -> str:
        """START CHL."""

    def stop_channel(self, name: str, mode: str) -> str:
        """STOP CHL MODE-QUIESCE|FORCE."""

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
