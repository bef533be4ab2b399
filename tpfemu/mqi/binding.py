"""Where an MQCONN/MQCONNX goes: to a queue manager in this process, or over TCP as a client.

Every connect form of :mod:`tpfemu.mqi` comes here (``connect(name, channel, conn_info)``,
``QueueManager(name)``, ``connect_tcp_client``, ``connect_with_options(cd=, sco=, csp=,
opts=)``, and the shell tools' ``--client``), and :func:`open_connection` makes the one
choice:

1. a channel definition given by the caller (``conn_info`` with a channel, or an MQCD)
   means a client connection;
2. else MQCNO_CLIENT_BINDING in the options, or ``MQ_CONNECT_TYPE=CLIENT`` in the
   environment, means a client connection described by ``MQSERVER``;
3. else MQCNO_LOCAL_BINDING, or a queue manager of that name running in this process,
   means an in-process connection (as before);
4. else, when ``MQSERVER`` is set, a client connection it describes (a script in another
   process reaches the emulator with nothing but ``MQSERVER``);
5. else an in-process connection, which fails MQRC_Q_MGR_NAME_ERROR (2058) naming the
   queue managers that do run here.

A client connection is described by a :class:`ClientTarget` and made by the
:class:`ClientTransport` installed with :func:`install_transport`, looked up at each call:
``import tpfemu.mqi`` installs the TCP client (:mod:`tpfemu.mqi.client`). With none
installed a client connection fails MQRC_HOST_NOT_AVAILABLE (2538), saying so. A channel
definition that cannot be read (``conn_info`` not ``host(port)``, a channel name over 20
characters, a transport other than TCP, an MQCD that is not a client-connection channel,
an ``MQSERVER`` not ``CHANNEL/TCP/host(port)``) fails MQRC_CD_ERROR (2277), naming what is
wrong; nothing is connected.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from tpfemu import errors
from tpfemu.mq import cmqc, cmqxc
from tpfemu.mq.connstructs import CD, CNO, CSP, SCO
from tpfemu.qmgr import registry

__all__ = ["ClientTarget", "ClientTransport", "RemoteCalls", "TlsSettings", "cd_error",
           "choose_target",
           "current_transport", "install_transport", "open_connection", "parse_conn_name",
           "parse_mqserver"]

Addresses = tuple[tuple[str, int], ...]
Chosen = tuple[str, Addresses, str]  #: channel, addresses, source

DEFAULT_PORT = 1414  #: IBM's listener port, when a connection name gives none
MAX_MSG_LENGTH = 104_857_600  #: IBM's largest MAXMSGL (100 MB)
_CONN_NAME = re.compile(r"^\s*([^()\s,]+)\s*(?:\(\s*([^()]*?)\s*\))?\s*$")


@dataclass(frozen=True)
class TlsSettings:
    """TLS for a client channel: the MQCD's cipher spec and peer name, the MQSCO's key
    repository and certificate label (empty where not given)."""

    cipher_spec: str
    key_repository: str = ""
    certificate_label: str = ""
    peer_name: str = ""


@dataclass(frozen=True)
class ClientTarget:
    """One client connection to make: the channel, where its listener is, who connects.

    ``addresses`` holds every (host, port) of the connection name in order (IBM's
    connection lists try each in turn); ``host``/``port`` are the first.
    """

    channel: str
    addresses: Addresses
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: TlsSettings | None = None
    options: int = cmqc.MQCNO_NONE
    source: str = "conn_info"  #: where it came from: "conn_info", "MQCD" or "MQSERVER"
    #: The client's heartbeat interval in seconds (the MQCD's HeartbeatInterval; IBM's
    #: CLNTCONN default 300): offered in the ID, the larger end's value is used.
    heartbeat_interval: int = 300
    #: The longest message the client offers to carry (the MQCD's MaxMsgLength; IBM's
    #: largest, 100 MB, without an MQCD): the smaller end's value is agreed.
    max_msg_length: int = MAX_MSG_LENGTH

    @property
    def host(self) -> str:
        """The first host of the connection name."""
        return self.addresses[0][0]

    @property
    def port(self) -> int:
        """The first port of the connection name."""
        return self.addresses[0][1]


class ClientTransport(Protocol):
    """What makes client connections (the TCP client, :mod:`tpfemu.mqi.client`).

    ``connect`` returns a connection with the queue manager Connection API (``open``,
    ``close``, ``inquire``, ``set``, ``commit``, ``backout``, ``disconnect``, ...), or raises
    MQMIError with the reason the client sees (2035, 2059, 2009, 2538, ...).
    """

    def connect(self, target: ClientTarget, qmgr_name: str, options: int) -> Any:
        """Connect to queue manager ``qmgr_name`` through ``target``."""
        ...


class RemoteCalls(Protocol):
    """What a client connection adds to the Connection API: the calls that the qmgr's
    mqput/mqget functions make in process, sent to the server instead."""

    remote: bool

    def open(self, name: str, options: int, qmgr_name: str = "",
             object_type: int = cmqc.MQOT_Q, od: Any = None) -> Any:
        """MQOPEN (``od``: the caller's MQOD, given the resolved names)."""
        ...

    def put(self, h: Any, data: bytes, md: Any = None, pmo: Any = None) -> None:
        """MQPUT."""
        ...

    def put1(self, name: str, data: bytes, md: Any = None, pmo: Any = None,
             qmgr_name: str = "") -> None:
        """MQPUT1."""
        ...

    def get(self, h: Any, max_length: int | None = None, md: Any = None,
            gmo: Any = None) -> bytes:
        """MQGET."""
        ...


_transport: ClientTransport | None = None
_transport_lock = threading.Lock()


def install_transport(transport: ClientTransport | None) -> ClientTransport | None:
    """Make ``transport`` the one client connections use (None: none); returns the one
    it replaces, so a test or a later layer can put it back."""
    global _transport
    with _transport_lock:
        previous, _transport = _transport, transport
    return previous


def current_transport() -> ClientTransport | None:
    """The installed client transport, if any."""
    return _transport


def cd_error(what: str) -> errors.MQMIError:
    """MQRC_CD_ERROR (2277) from MQCONNX, ``what`` saying what is wrong."""
    err = errors.error_for(cmqc.MQRC_CD_ERROR, call="MQCONNX")
    err.hint = what
    return err


def _text(value: Any, name: str) -> str:
    if isinstance(value, bytes | bytearray):
        try:
            return bytes(value).decode("ascii").strip(" \0")
        except UnicodeDecodeError:
            raise cd_error(f"{name} must be ASCII text: {bytes(value)!r}") from None
    if isinstance(value, str):
        return value.strip()
    raise TypeError(f"{name} must be str or bytes, not {type(value).__name__}")


def parse_conn_name(conn_name: str | bytes) -> Addresses:
    """The (host, port) pairs of an IBM connection name: ``host(port)``, ``host`` (port
    1414), or a comma-separated list of them.

    :raises MQMIError: MQRC_CD_ERROR (2277) naming the part that is not valid.
    """
    text = _text(conn_name, "the connection name")
    if not text:
        raise cd_error("the connection name is empty: give host(port)")
    pairs = []
    for part in text.split(","):
        match = _CONN_NAME.match(part)
        if match is None:
            raise cd_error(f"connection name {part.strip()!r} is not host(port)")
        host, port_text = match.group(1), match.group(2)
        if port_text is None or port_text == "":
            port = DEFAULT_PORT
        elif port_text.isdigit() and 0 < int(port_text) < 65536:
            port = int(port_text)
        else:
            raise cd_error(f"connection name {part.strip()!r}: the port must be 1 to 65535")
        pairs.append((host, port))
    return tuple(pairs)


def _channel_name(value: Any) -> str:
    name = _text(value, "the channel name")
    if not name:
        raise cd_error("the channel name is empty")
    if len(name) > cmqc.MQ_CHANNEL_NAME_LENGTH:
        raise cd_error(f"channel name {name!r} is longer than "
                        f"{cmqc.MQ_CHANNEL_NAME_LENGTH} characters")
    return name


def parse_mqserver(value: str) -> tuple[str, Addresses]:
    """The channel and addresses of an ``MQSERVER`` value ``CHANNEL/TCP/host(port)``.

    :raises MQMIError: MQRC_CD_ERROR (2277) naming what is wrong.
    """
    parts = value.split("/")
    if len(parts) != 3:
        raise cd_error(f"MQSERVER={value!r} is not CHANNEL/TCP/host(port)")
    channel, transport, conn_name = parts
    if transport.strip().upper() != "TCP":
        raise cd_error(f"MQSERVER={value!r}: the transport must be TCP, not "
                        f"{transport.strip()!r}")
    return _channel_name(channel), parse_conn_name(conn_name)


def _credentials(user: Any, password: Any, csp: CSP | None) -> tuple[str | None, str | None]:
    if csp is not None:
        if not isinstance(csp, CSP):
            raise TypeError(f"csp must be a CSP, not {type(csp).__name__}")
        if csp.CSPUserId:
            user, password = csp.CSPUserId, csp.CSPPassword
    if user in (None, b"", ""):
        return None, None
    return _utf8(user), None if password is None else _utf8(password)


def _utf8(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes | bytearray) else str(value)


def _tls(cd: CD | None, sco: SCO | None) -> TlsSettings | None:
    if sco is not None and not isinstance(sco, SCO):
        raise TypeError(f"sco must be an SCO, not {type(sco).__name__}")
    cipher = _text(cd.SSLCipherSpec, "SSLCipherSpec") if cd is not None else ""
    if not cipher:
        return None
    return TlsSettings(
        cipher_spec=cipher,
        key_repository=_text(sco.KeyRepository, "KeyRepository") if sco is not None else "",
        certificate_label=_text(sco.CertificateLabel, "CertificateLabel") if sco else "",
    )


def _from_cd(cd: Any) -> Chosen:
    if not isinstance(cd, CD):
        raise TypeError(f"cd must be a CD, not {type(cd).__name__}")
    if cd.ChannelType != cmqxc.MQCHT_CLNTCONN:
        raise cd_error(f"the MQCD's ChannelType is {cd.ChannelType}: a client connection "
                        f"needs MQCHT_CLNTCONN ({cmqxc.MQCHT_CLNTCONN})")
    if cd.TransportType != cmqxc.MQXPT_TCP:
        raise cd_error(f"the MQCD's TransportType is {cd.TransportType}: only MQXPT_TCP "
                        f"({cmqxc.MQXPT_TCP}) is supported")
    return _channel_name(cd.ChannelName), parse_conn_name(cd.ConnectionName), "MQCD"


def _max_msg_length(cd: Any) -> int:
    """The MQCD's MaxMsgLength (0: the largest) or, without an MQCD, the largest.
    :raises MQMIError: 2277 not 0-104857600 bytes."""
    if cd is None:
        return MAX_MSG_LENGTH
    value = cd.MaxMsgLength
    if type(value) is not int or not 0 <= value <= MAX_MSG_LENGTH:
        raise cd_error(f"the MQCD's MaxMsgLength {value!r} is not 0-{MAX_MSG_LENGTH} bytes")
    return value or MAX_MSG_LENGTH


def _heartbeat_interval(cd: Any) -> int:
    """The MQCD's HeartbeatInterval (300 without an MQCD).
    :raises MQMIError: 2277 not 0-999999 seconds."""
    if cd is None:
        return 300
    value = cd.HeartbeatInterval
    if type(value) is not int or not 0 <= value <= 999999:
        raise cd_error(f"the MQCD's HeartbeatInterval {value!r} is not 0-999999 seconds")
    return value


def _options_of(opts: Any, cno: Any) -> int:
    options = cmqc.MQCNO_NONE if opts is None else int(opts)
    if cno is not None:
        if not isinstance(cno, CNO):
            raise TypeError(f"cno must be a CNO, not {type(cno).__name__}")
        options |= cno.Options
    return options


def _runs_here(name: str) -> bool:
    try:
        registry.lookup(name)
    except errors.MQMIError:
        return False
    return True


def choose_target(queue_manager: str, *, cd: Any = None, channel: Any = None,
                  conn_info: Any = None, options: int = cmqc.MQCNO_NONE,
                  env: Mapping[str, str] | None = None) -> Chosen | None:
    """The rule of this module: (channel, addresses, source) for a client connection, or
    None for an in-process one. ``env`` defaults to ``os.environ``."""
    env = os.environ if env is None else env
    if cd is not None:
        return _from_cd(cd)
    if channel is not None or conn_info is not None:
        if channel is None or conn_info is None:
            raise cd_error("a client connection needs both a channel and a connection "
                            "name host(port)")
        return _channel_name(channel), parse_conn_name(conn_info), "conn_info"
    server = env.get("MQSERVER", "").strip()
    wants_client = bool(options & cmqc.MQCNO_CLIENT_BINDING) or \
        env.get("MQ_CONNECT_TYPE", "").strip().upper() == "CLIENT"
    if wants_client:
        if not server:
            err = errors.error_for(cmqc.MQRC_Q_MGR_NAME_ERROR, call="MQCONNX",
                                   obj=queue_manager)
            err.hint = "a client connection was asked for, but no channel: set MQSERVER"
            raise err
        return _from_mqserver(server)
    if options & cmqc.MQCNO_LOCAL_BINDING or _runs_here(queue_manager) or not server:
        return None
    return _from_mqserver(server)


def _from_mqserver(value: str) -> Chosen:
    channel, addresses = parse_mqserver(value)
    return channel, addresses, "MQSERVER"


def open_connection(queue_manager: str, *, cd: Any = None, channel: Any = None,
                    conn_info: Any = None, sco: Any = None, csp: Any = None,
                    user: Any = None, password: Any = None, opts: Any = None,
                    cno: Any = None, appl_name: str = "python",
                    env: Mapping[str, str] | None = None) -> Any:
    """MQCONN/MQCONNX: a connection to ``queue_manager``, in process or as a client.

    :returns: the queue manager Connection (in process) or the transport's connection.
    :raises MQMIError: 2058 no such queue manager here (or, for a client, a name over 48
        characters), 2277 a channel definition that cannot be read, 2538 no client
        transport installed (or the transport's reasons).
    :raises TypeError, ValueError: a structure of the wrong class; a client connection
        with a user but no password.
    """
    options = _options_of(opts, cno)
    user_text, password_text = _credentials(user, password, csp)
    chosen = choose_target(queue_manager, cd=cd, channel=channel, conn_info=conn_info,
                                options=options, env=env)
    if chosen is None:
        return registry.lookup(queue_manager).connect(appl_name=appl_name,
                                                      user=user_text or "")
    channel_name, addresses, source = chosen
    if user_text is not None and password_text is None:
        raise ValueError("a password must be given with a user (it may be empty)")
    if len(queue_manager) > cmqc.MQ_Q_MGR_NAME_LENGTH:  # (MQCONN's QMgrName is 48 long)
        err = errors.error_for(cmqc.MQRC_Q_MGR_NAME_ERROR, call="MQCONNX", obj=queue_manager)
        err.hint = f"the name is longer than {cmqc.MQ_Q_MGR_NAME_LENGTH} characters"
        raise err
    target = ClientTarget(channel=channel_name, addresses=addresses, user=user_text,
                          password=password_text, tls=_tls(cd, sco), options=options,
                          source=source, heartbeat_interval=_heartbeat_interval(cd),
                          max_msg_length=_max_msg_length(cd))
    transport = current_transport()
    if transport is None:
        err = errors.error_for(cmqc.MQRC_HOST_NOT_AVAILABLE, call="MQCONNX",
                               obj=queue_manager)
        err.hint = (f"no client transport is installed to reach channel {channel_name} "
                    f"at {target.host}({target.port})")
        raise err
    return transport.connect(target, queue_manager, options)
