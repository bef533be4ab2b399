"""The Internet daemon: TCP listeners that give each connection to a new entry.

On TPF the Internet daemon starts the Internet server applications defined in the IDCF
(ZINET ADD) and, per the server's process model, hands connections to the server's program.
Here :class:`InternetDaemon` (one per processor: ``System.internet_daemon()``, or
:meth:`InternetDaemon.of`) keeps the definitions (:mod:`tpfemu.inetd.idcf`) and runs one
:class:`Server` — a listener thread — per started server. It needs of the processor only
what :class:`DaemonHost` names.

Models
------
``NOWAIT``
    Concurrent: each accepted connection gets a new entry (CREMC) at once, up to MAXPROC
    entries at a time; a connection beyond that is refused (closed) with a console warning.
``WAIT``
    Iterative: one entry at a time (MAXPROC is 1). While it runs, further connections wait
    in the listen backlog and are accepted when it ends.
``AOR``
    Activate on receipt: the daemon accepts the connection and waits for data; when data
    arrives it reads what has arrived, up to AORL bytes (at most 4095, the largest core
    block; the rest stays in the socket), and creates the entry with CREEC so that the data
    is the core block on D0. A peer that closes before sending anything never costs an entry.
    Connections waiting for data count against MAXPROC.

The entry
---------
``ecb.origin`` is the :class:`Connection` (``.socket``, ``.peer``, ``.server``, ``.recv``,
``.send``, ``.close``); EBW000 holds a 44-byte :class:`Descriptor` (layout there). The
program reads and writes the socket and exits; when the entry ends, however it ends, the
connection is closed. Entries the program creates inherit the origin, but the socket is
closed when the entry the daemon created ends.

To close the connection at the end of the entry the daemon creates the entry for a small
activation program, ``INTD`` (:data:`ACTIVATOR`), that registers ``ecb.at_exit`` and
transfers to PGM with ENTNC; the entry's program stack and dumps show PGM. ``INTD`` is
loaded into the system's program table when the first server starts, so that name is
reserved while ZINET servers run.

A program that is not loaded when a connection arrives gets a console error and the
connection is closed without creating an entry. STOP closes the listening socket (new
connections are refused), closes connections waiting for data and shuts down the sockets
of running entries (their next ``recv`` returns ``b""``); the entries finish normally.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ecb import MAX_BLOCK_SIZE, Dispatcher, EcbError, Programs
from tpfemu.inetd import idcf
from tpfemu.inetd.connection import DESCRIPTOR, Connection, Descriptor
from tpfemu.inetd.idcf import ServerDef

if TYPE_CHECKING:
    from ecb import Ecb

__all__ = ["ACTIVATOR", "DESCRIPTOR", "Connection", "DaemonHost", "Descriptor",
           "InternetDaemon", "Server"]

ACTIVATOR = "INTD"
"""The activation program the daemon's entries start in (it ENTNCs to PGM)."""


class DaemonHost(Protocol):
    """What the daemon needs of the processor it runs on (a System is one).

    :ivar home: where ``zinet.json`` is kept (None: definitions live in memory only).
    :ivar programs: the program table (the daemon loads INTD and checks PGM there).
    :ivar dispatcher: creates the entries that serve connections.
    :ivar services: started services, stopped with the processor (the daemon joins it).
    """

    cpu: str
    home: Path | None
    @property
    def programs(self) -> Programs: ...

    dispatcher: Dispatcher
    services: list[Any]

    def say(self, line: str) -> None:
        """Write one line to the system console."""

    def internet_daemon(self) -> InternetDaemon:
        """The processor's one daemon, created on first use."""


def _activate(ecb: Ecb) -> None:
    """INTD: register the connection's close at the end of the entry, then ENTNC to PGM."""
    connection = ecb.origin
    if not isinstance(connection, Connection):
        ecb.serrc(f"{ACTIVATOR} is entered only by the Internet daemon, origin {connection!r}")
    ecb.at_exit(connection._entry_ended)
    ecb.entnc(connection.program)


class Server:
    """A started Internet server: its listening socket, listener thread and counters.

    :ivar definition: the current definition (ALTER may replace PGM, MAXPROC, ... while it
        runs; each connection uses the definition in force when it was accepted).
    :ivar address: the bound ``(ip, port)``; :attr:`port` is the real port (PORT-0 picks one).
    :ivar accepted: connections accepted. :ivar entries: entries created.
    :ivar refused: connections refused at MAXPROC. :ivar errors: connections closed for an
        error (program not loaded, entry not created).
    """

    def __init__(self, daemon: InternetDaemon, definition: ServerDef) -> None:
        self.daemon = daemon
        self.definition = definition
        self.name = definition.name
        self.address: tuple[str, int] = (definition.ip, definition.port)
        self.accepted = self.entries = self.refused = self.errors = 0
        self._lock = threading.Lock()
        self._live: set[Connection] = set()  # waiting for data or being served
        self._active = 0  # entries running (or queued) for this server
        self._stopping = False
        self.failed = False  # the listener thread ended on an unexpected error
        self._thread: threading.Thread | None = None
        self._listener: socket.socket | None = None
        self._selector: selectors.BaseSelector | None = None
        self._wake_r, self._wake_w = socket.socketpair()

    @property
    def port(self) -> int:
        """The port actually bound."""
        return self.address[1]

    @property
    def active(self) -> int:
        """Entries currently serving connections of this server."""
        return self._active

    @property
    def running(self) -> bool:
        """True while the listener thread runs."""
        return self._thread is not None and self._thread.is_alive()

    def _say(self, severity_id: str, text: str) -> None:
        system = self.daemon.system
        system.say(f"INET{severity_id} {system.cpu} SERVER {self.name} {text}")

    # -- life cycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Bind and listen on (IP, PORT); start the listener thread.

        :raises OSError: the address could not be bound (nothing is left running).
        """
        ip = self.definition.ip
        family = socket.AF_INET6 if ":" in ip else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((ip, self.definition.port))
            listener.listen(64)
            listener.setblocking(False)
        except OSError:
            listener.close()
            self._wake_r.close()
            self._wake_w.close()
            raise
        self._listener = listener
        self.address = (ip, listener.getsockname()[1])
        self._thread = threading.Thread(target=self._serve, name=f"ZINET {self.name}",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop listening, close connections waiting for data, shut down served ones."""
        self._stopping = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")
        if self._thread is not None:
            self._thread.join(timeout)
        if self._listener is not None:  # the thread closes it; make sure if it hung
            with contextlib.suppress(OSError):
                self._listener.close()
        with self._lock:
            live = list(self._live)
        for connection in live:
            if connection._counted:
                connection.shutdown()  # its entry closes it at exit
            else:
                connection.close()
        for sock in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                sock.close()

    # -- the listener thread ----------------------------------------------------------------

    def _serve(self) -> None:
        selector = self._selector = selectors.DefaultSelector()
        listener = self._listener
        assert listener is not None
        selector.register(self._wake_r, selectors.EVENT_READ, None)
        listening = False
        try:
            while not self._stopping:
                want = self.definition.model != "WAIT" or self._busy() == 0
                if want != listening:
                    if want:
                        selector.register(listener, selectors.EVENT_READ, listener)
                    else:
                        selector.unregister(listener)
                    listening = want
                for key, _ in selector.select():
                    if self._stopping:
                        break
                    if key.data is None:
                        with contextlib.suppress(OSError):
                            self._wake_r.recv(4096)
                    elif key.data is listener:
                        self._accept(listener, selector)
                    else:
                        selector.unregister(key.fileobj)
                        self._receive(key.data)
        except Exception as exc:  # the listener must not die silently
            self._say("0105E", f"LISTENER FAILED: {exc!r} - SERVER STOPPED")
            self._stopping = self.failed = True
            with self._lock:
                waiting = [c for c in self._live if not c._counted]
            for connection in waiting:
                self._drop(connection)
        finally:
            selector.close()
            with contextlib.suppress(OSError):
                listener.close()

    def _busy(self) -> int:
        with self._lock:
            return len(self._live)

    def _accept(self, listener: socket.socket, selector: selectors.BaseSelector) -> None:
        try:
            sock, peer = listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self.errors += 1
            self._say("0104E", f"ACCEPT FAILED: {exc}")
            return
        definition = self.definition
        self.accepted += 1
        connection = Connection(self, sock, peer, self.accepted, definition.pgm)
        where = f"CONNECTION {connection.number} FROM {peer[0]}:{peer[1]}"
        if self.daemon.system.programs.get(definition.pgm) is None:
            self.errors += 1
            self._say("0101E", f"PROGRAM {definition.pgm} NOT LOADED - {where} CLOSED")
            connection.close()
            return
        with self._lock:
            full = len(self._live) >= definition.maxproc
            if not full:
                self._live.add(connection)
        if full:
            self.refused += 1
            self._say("0102W", f"MAXPROC-{definition.maxproc} REACHED - {where} REFUSED")
            connection.close()
            return
        if definition.model == "AOR":
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, connection)
        else:
            self._create(connection, definition)

    def _receive(self, connection: Connection) -> None:
        """AOR: data (or end of file) arrived on a connection waiting for it."""
        definition = self.definition
        try:
            data = connection.socket.recv(min(definition.aorl or MAX_BLOCK_SIZE, MAX_BLOCK_SIZE))
        except (BlockingIOError, InterruptedError):
            data = None
        except OSError:
            data = b""
        if data is None:  # a spurious wake-up: keep waiting
            assert self._selector is not None
            self._selector.register(connection.socket, selectors.EVENT_READ, connection)
            return
        if not data:
            self._say("0106I", f"CONNECTION {connection.number} CLOSED BY THE PEER BEFORE DATA")
            self._drop(connection)
            return
        connection.data = data
        if self.daemon.system.programs.get(connection.program) is None:
            self.errors += 1
            self._say("0101E", f"PROGRAM {connection.program} NOT LOADED - CONNECTION"
                               f" {connection.number} FROM {connection.peer[0]}:"
                               f"{connection.peer[1]} CLOSED")
            self._drop(connection)
            return
        self._create(connection, definition)

    def _drop(self, connection: Connection) -> None:
        with self._lock:
            self._live.discard(connection)
        connection.close()

    def _create(self, connection: Connection, definition: ServerDef) -> None:
        """Create the entry for ``connection``: CREMC, or CREEC with the AOR data on D0."""
        sock = connection.socket
        try:
            sock.settimeout(definition.timeout or None)
        except OSError:
            self._drop(connection)
            return
        dispatcher = self.daemon.system.dispatcher
        with self._lock:
            connection._counted = True
            self._active += 1
        try:
            params = connection.descriptor()
            if definition.model == "AOR":
                dispatcher.creec(ACTIVATOR, connection.data, params, origin=connection)
            else:
                dispatcher.cremc(ACTIVATOR, params, origin=connection)
        except (EcbError, ValueError) as exc:
            self.errors += 1
            self._say("0103E", f"ENTRY FOR {connection.program} NOT CREATED ({exc}) -"
                               f" CONNECTION {connection.number} CLOSED")
            self._release(connection)
            connection.close()
            return
        self.entries += 1

    def _release(self, connection: Connection) -> None:
        """The entry serving ``connection`` ended: free its slot; WAIT may accept again."""
        with self._lock:
            if connection not in self._live:
                return
            self._live.discard(connection)
            if connection._counted:
                self._active -= 1
        if self.definition.model == "WAIT" and not self._stopping:
            with contextlib.suppress(OSError):
                self._wake_w.send(b"x")

    def __repr__(self) -> str:
        return f"<Server {self.name} {self.address[0]}:{self.port} {self.definition.model}>"


class InternetDaemon:
    """The Internet daemon of one system: server definitions and the started servers.

    Definitions are loaded from ``<home>/zinet.json`` when the daemon is created (if the
    system has a home) and written back by :meth:`define` and :meth:`delete`. The daemon
    registers itself in ``system.services`` when its first server starts, so
    ``System.stop()`` stops every server. It is the console's
    :class:`~tpfemu.console.host.InternetDaemonPort`: the ZINET command checks and builds
    definitions through it.
    """

    default_aorl = idcf.DEFAULT_AORL
    default_maxproc = idcf.DEFAULT_MAXPROC

    def __init__(self, system: DaemonHost) -> None:
        self.system = system
        self.lock = threading.RLock()
        self.path: Path | None = None if system.home is None else system.home / idcf.FILE_NAME
        self.definitions: dict[str, ServerDef] = (
            {} if self.path is None else idcf.load(self.path, system.say, system.cpu)
        )
        self.servers: dict[str, Server] = {}
        self._registered = False

    @staticmethod
    def of(system: DaemonHost) -> InternetDaemon:
        """The daemon of ``system`` (its ``internet_daemon()``), created on first use."""
        return system.internet_daemon()

    @staticmethod
    def check_field(field: str, value: object) -> Any:
        """``value`` checked against the rule of definition field ``field``.

        :raises ValueError: it breaks the rule (the message names the keyword).
        """
        return idcf.check_field(field, value)

    @staticmethod
    def new_definition(fields: Mapping[str, Any]) -> ServerDef:
        """A server definition from field -> value.

        :raises ValueError: a field breaks its rule or the fields conflict.
        """
        return ServerDef(**fields)

    def define(self, definition: ServerDef) -> None:
        """Add or replace a definition and save the file.

        :raises OSError: the file could not be written; nothing changed.
        """
        with self.lock:
            old = self.definitions.get(definition.name)
            self.definitions[definition.name] = definition
            try:
                self._save()
            except OSError:
                if old is None:
                    del self.definitions[definition.name]
                else:
                    self.definitions[definition.name] = old
                raise
            server = self.servers.get(definition.name)
            if server is not None:
                server.definition = definition

    def delete(self, name: str) -> None:
        """Remove an inactive server's definition and save the file.

        :raises OSError: the file could not be written; nothing changed.
        """
        with self.lock:
            old = self.definitions.pop(name)
            try:
                self._save()
            except OSError:
                self.definitions[name] = old
                raise

    def _save(self) -> None:
        if self.path is not None:
            idcf.save(self.path, self.definitions)

    def start(self, name: str) -> Server:
        """Start the defined server ``name``; return it.

        :raises OSError: it could not listen. :raises EcbError: INTD is taken by another
            program.
        """
        with self.lock:
            programs = self.system.programs
            current = programs.get(ACTIVATOR)
            if current is None:
                programs.load(ACTIVATOR, _activate)
            elif current.fn is not _activate:
                raise EcbError(f"program {ACTIVATOR} is loaded by another application; the"
                               f" Internet daemon needs that name")
            server = Server(self, self.definitions[name])
            server.start()
            self.servers[name] = server
            if not self._registered:
                self.system.services.append(self)
                self._registered = True
            return server

    def stop_server(self, name: str, timeout: float = 2.0) -> None:
        """Stop the started server ``name``."""
        with self.lock:
            server = self.servers.pop(name)
        server.stop(timeout)

    def prune(self) -> None:
        """Forget servers whose listener failed (INET0105E); they need ZINET START again."""
        with self.lock:
            failed = [server for server in self.servers.values() if server.failed]
            for server in failed:
                del self.servers[server.name]
        for server in failed:
            server.stop(0.5)

    def stop(self) -> None:
        """Stop every started server (``System.stop()`` calls this)."""
        with self.lock:
            servers = list(self.servers.values())
            self.servers.clear()
        for server in servers:
            server.stop()

    def __repr__(self) -> str:
        return f"<InternetDaemon {self.system.cpu} {len(self.servers)} started>"

