"""pymqi's classes over the queue manager: ``connect``, ``QueueManager``, ``Queue``.

Names, argument orders and behaviours follow pymqi, so code written for pymqi against a
local queue manager runs with ``import tpfemu.mqi as pymqi``:

- ``QueueManager(name)`` connects at once (``QueueManager(None)`` does not);
  ``connect(name)`` is the same. The queue manager must run in this process (a System).
- ``Queue(qmgr, name_or_od, open_opts)`` opens at once with options; without options it
  opens on first use: ``put`` with MQOO_OUTPUT, ``get`` with MQOO_INPUT_AS_Q_DEF,
  ``inquire`` with MQOO_INQUIRE, ``set`` with MQOO_SET.
- ``put`` of a ``str`` encodes it (UTF-8) and marks it MQFMT_STRING, CCSID 1208.
- Every completion code but MQCC_OK raises :class:`MQMIError`, warnings included; a
  truncated get's warning carries ``.message`` and ``.original_length``.
- Every connect form (``connect(name, channel, conn_info, user, password)``,
  ``QueueManager(name)``, ``connect_tcp_client``, ``connect_with_options(name, cd=,
  sco=, csp=, opts=)``, ``MQSERVER``) goes through :func:`tpfemu.mqi.binding.open_connection`,
  which chooses in-process or client; a client connection goes through the TCP client
  (:mod:`tpfemu.mqi.client`), whose MQPUT, MQPUT1 and MQGET this module sends to the
  server (:func:`_remote`); the other calls use the same Connection API on both kinds.
- ``inquire`` takes one selector (returns its value) or a list (returns a dict selector ->
  value); ``set`` takes a selector and a value, or a dict of them (all set, or none).
- An MQOD of Version 3 or later given to ``Queue`` or ``put1`` gets the ResolvedQName and
  ResolvedQMgrName of the open or put.
- A call on a QueueManager not connected raises :class:`NotConnected`: MQMIError 2018 and
  pymqi's ``PYIFError('not connected')`` at once.
- ibmmq's names too: ``inq``, ``get_name``, ``to_string``, ``Queue.get_queue_manager``,
  ``connect(..., cd=, cno=, csp=, sco=, bno=)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from tpfemu import errors
from tpfemu.mq import cmqc, cmqxc
from tpfemu.mq.connstructs import CD
from tpfemu.mq.structs import GMO, OD, PMO
from tpfemu.mqi.binding import RemoteCalls, cd_error, open_connection
from tpfemu.qmgr import mqget, mqput, plans
from tpfemu.qmgr.connection import Connection, Handle
from tpfemu.qmgr.units import scopes

__all__ = ["NotConnected", "PYIFError", "QueueManager", "Queue", "connect", "tx_begin",
           "tx_commit", "tx_rollback"]


class PYIFError(errors.TpfEmuError):
    """pymqi's interface error: the Python object was misused (e.g. a queue not open).

    As pymqi's: ``error`` holds what was wrong, ``str()`` is ``"PYMQI Error: <error>"``.
    """

    def __init__(self, e: object) -> None:
        self.error = e
        super().__init__(e)

    def __str__(self) -> str:
        return f"PYMQI Error: {self.error}"


class NotConnected(errors.HconnError, PYIFError):
    """A call on a QueueManager that is not connected (never, or no longer): the MQI's
    MQRC_HCONN_ERROR (2018), and also the ``PYIFError('not connected')`` pymqi and ibmmq
    raise from ``disconnect()``, ``get_handle()`` and a Queue's calls in that state, so
    that ``except pymqi.PYIFError`` and ``except pymqi.MQMIError`` both catch it."""

    def __init__(self, call: str) -> None:
        self.comp, self.reason = errors.MQCC_FAILED, cmqc.MQRC_HCONN_ERROR
        self.call, self.obj, self.error = call, "", "not connected"
        Exception.__init__(self, self.comp, self.reason)

    __str__ = errors.HconnError.__str__


def _to_string(value: Any, encoding: str = "utf8") -> Any:
    if isinstance(value, bytes):
        try:
            return value.split(b"\0", 1)[0].decode(encoding).strip()
        except UnicodeError:
            pass
    return value


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("ascii").strip()
    return str(value).strip()


class QueueManager:
    """A connection to a queue manager running in this process (pymqi's QueueManager).

    :param name: the queue manager; "" the only one running; None: do not connect yet.
    """

    def __init__(self, name: str | bytes | None = "", disconnect_on_exit: bool = True,
                 bytes_encoding: str = "utf8", default_ccsid: int = 1208) -> None:
        self._conn: Connection | None = None
        self._name = ""
        self.disconnect_on_exit = disconnect_on_exit
        self.bytes_encoding = bytes_encoding
        self.default_ccsid = default_ccsid
        if name is not None:
            self.connect(name)

    def connect(self, name: str | bytes, user: str | None = None,
                password: str | None = None) -> None:
        """MQCONN to queue manager ``name`` (in this process, or as ``MQSERVER`` says
        when none of that name runs here: see :mod:`tpfemu.mqi.binding`).

        :raises MQMIError: 2058 no such queue manager running here, 2002 if connected.
        """
        self._open(_text(name), user=user, password=password if user else None)

    def _open(self, name: str, **how: Any) -> None:
        if self._conn is not None and self._conn.connected:
            raise errors.error_for(cmqc.MQRC_ALREADY_CONNECTED, call="MQCONN",
                                   comp=errors.MQCC_WARNING)
        self._conn = open_connection(name, **how)
        self._name = name

    def connect_with_options(self, name: str | bytes, *args: Any, **kwargs: Any) -> None:
        """MQCONNX (pymqi's ``connect_with_options``): ``connect_with_options(name,
        cd=, sco=, csp=, opts=, cno=, user=, password=)``, or the old form
        ``connect_with_options(name, cd, sco)``.

        :raises TypeError: unknown keywords, or more than two positional arguments.
        :raises MQMIError: as :func:`tpfemu.mqi.binding.open_connection`.
        """
        if len(args) > 2:
            raise TypeError("too many positional arguments: expected (name, cd, sco)")
        known = {"cd", "sco", "csp", "opts", "cno", "user", "password", "bno"}
        unknown = set(kwargs) - known
        if unknown:
            raise TypeError(f"connect_with_options got unknown keywords: {sorted(unknown)}")
        for key, value in zip(("cd", "sco"), args, strict=False):
            kwargs[key] = value
        kwargs.pop("bno", None)  # balancing options: nothing to balance here
        self._open(_text(name), **kwargs)

    connectWithOptions = connect_with_options  # noqa: N815 - pymqi's old name

    def connect_tcp_client(self, name: str | bytes, cd: Any, channel: Any, conn_name: Any,
                           user: Any = None, password: Any = None, cno: Any = None,
                           csp: Any = None, sco: Any = None, bno: Any = None) -> None:
        """A client connection over TCP (pymqi's ``connect_tcp_client``): ``cd`` (a
        :class:`CD`, or None for a new one) gets ``channel``, ``conn_name``
        (``host(port)``), MQCHT_CLNTCONN and MQXPT_TCP, then MQCONNX with the rest."""
        cd = CD() if cd is None else cd
        try:
            cd.ChannelName = channel
            cd.ConnectionName = conn_name
        except ValueError as exc:  # (too long for the MQCD's field: named there)
            raise cd_error(str(exc)) from exc
        cd.ChannelType = cmqxc.MQCHT_CLNTCONN
        cd.TransportType = cmqxc.MQXPT_TCP
        self.connect_with_options(name, cd=cd, user=user, password=password, cno=cno,
                                  csp=csp, sco=sco, opts=cmqc.MQCNO_CLIENT_BINDING)

    connectTCPClient = connect_tcp_client  # noqa: N815 - pymqi's old name

    @property
    def connection(self) -> Connection:
        """The qmgr-level connection.

        :raises NotConnected: (MQMIError 2018 and PYIFError) if not connected."""
        if self._conn is None or not self._conn.connected:
            raise NotConnected("MQI")
        return self._conn

    def get_handle(self) -> int:
        """The hconn (pymqi's getHandle). :raises NotConnected: if not connected."""
        return self.connection.hconn

    getHandle = get_handle  # noqa: N815 - pymqi's old name

    def get_name(self) -> str:
        """ibmmq's ``get_name()``: the name of the queue manager connected to (the name
        given to connect, or, when that was blank, the one that answered).

        :raises NotConnected: if not connected."""
        conn = self.connection
        if self._name:
            return self._name
        qmgr = getattr(conn, "qmgr", None)
        return str(getattr(qmgr, "name", None) or getattr(conn, "qmgr_name", "")).strip()

    @property
    def is_connected(self) -> bool:
        """True while connected."""
        return self._conn is not None and self._conn.connected

    def disconnect(self) -> None:
        """MQDISC: commit open work and close every handle (IBM's normal end)."""
        self.connection.disconnect()

    def commit(self) -> None:
        """MQCMIT."""
        self.connection.commit()

    def backout(self) -> None:
        """MQBACK."""
        self.connection.backout()

    def begin(self) -> None:
        """MQBEGIN: there is no external resource manager here, so as IBM MQ does with
        none configured it warns MQRC_NO_EXTERNAL_PARTICIPANTS; local syncpoint work still
        forms a unit of work ended by commit() or backout()."""
        self.connection.check("MQBEGIN")
        raise errors.error_for(cmqc.MQRC_NO_EXTERNAL_PARTICIPANTS, call="MQBEGIN",
                               comp=errors.MQCC_WARNING)

    def put1(self, q_desc: Any, msg: Any, *opts: Any) -> None:
        """MQPUT1: open, put one message, close. ``opts``: (md, pmo). An MQOD of Version
        3 or later gets the ResolvedQName and ResolvedQMgrName the put resolved to (the
        PMO's: IBM's MQOD is an output of MQPUT1 as of MQOPEN)."""
        md, pmo = _md_and_options(opts)
        od = _make_od(q_desc)
        data, md = _message_bytes(msg, md, self)
        conn = self.connection
        fills_od = od is q_desc and _resolves(od)
        if fills_od and pmo is None:
            pmo = PMO()
        if _remote(conn):
            conn.put1(_text(od.ObjectName), data, md, pmo, _text(od.ObjectQMgrName))
        else:
            mqput.put1(conn, _text(od.ObjectName), data, md, pmo, _text(od.ObjectQMgrName))
        if fills_od:
            od.ResolvedQName, od.ResolvedQMgrName = pmo.ResolvedQName, pmo.ResolvedQMgrName

    def inquire(self, attribute: int | list[int]) -> Any:
        """MQINQ of a queue-manager attribute, or of a list of them (a dict back)."""
        conn = self.connection
        handle = conn.open("", cmqc.MQOO_INQUIRE, object_type=cmqc.MQOT_Q_MGR)
        try:
            return _inquire(conn, handle, attribute)
        finally:
            conn.close(handle)

    inq = inquire  #: ibmmq's name

    def to_string(self, value: Any, encoding: str = "utf8") -> Any:
        """ibmmq's ``to_string``: MQCHAR bytes as a str, cut at the first NUL and
        stripped; anything else (or bytes that do not decode) as it is."""
        return _to_string(value, encoding)

    def __enter__(self) -> QueueManager:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.is_connected and self.disconnect_on_exit:
            self.disconnect()

    def __del__(self) -> None:
        # Dropped without disconnect(): IBM's rule for an application that ends without
        # MQDISC is to back its unit of work out (pymqi's finalizer would commit).
        conn = getattr(self, "_conn", None)
        if conn is not None and conn.connected:
            try:
                conn.end(commit=False)
            except Exception:  # a finalizer must not raise
                pass


def connect(queue_manager: str | bytes | None, channel: Any = None, conn_info: Any = None,
            user: str | None = None, password: str | None = None,
            disconnect_on_exit: bool = True, bytes_encoding: str = "utf8",
            default_ccsid: int = 1208, cd: Any = None, cno: Any = None, csp: Any = None,
            sco: Any = None, bno: Any = None) -> QueueManager:
    """Connect to a queue manager (pymqi.connect, with ibmmq's ``cd``, ``cno``, ``csp``,
    ``sco`` and ``bno`` keywords): with ``channel`` and ``conn_info`` (``host(port)``)
    as a client over them (``cd``, a :class:`CD`, giving the channel's other fields),
    else to the one of that name running here (or as ``cd`` or ``MQSERVER`` says: see
    :mod:`tpfemu.mqi.binding`)."""
    qm = QueueManager(None, disconnect_on_exit, bytes_encoding, default_ccsid)
    structures = {key: value for key, value in
                  (("cno", cno), ("csp", csp), ("sco", sco), ("bno", bno)) if value is not None}
    if channel is not None and conn_info is not None:
        qm.connect_tcp_client(queue_manager or "", cd if cd is not None else CD(), channel,
                              conn_info, user, password, **structures)
    elif queue_manager is None:  # pymqi's and ibmmq's refusal: nothing names a target
        raise TypeError(f"Invalid arguments: {[queue_manager, channel, conn_info, user]!r}")
    elif channel is not None or conn_info is not None:  # half a channel: refused, 2277
        qm._open(_text(queue_manager), channel=channel, conn_info=conn_info)
    elif cd is not None or structures:
        qm.connect_with_options(queue_manager, cd=cd, user=user, password=password,
                                **structures)
    else:
        qm.connect(queue_manager, user, password)
    return qm


def _remote(conn: Any) -> TypeGuard[RemoteCalls]:
    """A client connection (the TCP transport's): its MQPUT, MQPUT1 and MQGET go to the
    server, which runs them through the one put and get path; the rest of the MQI calls
    the same Connection API on both kinds."""
    return getattr(conn, "remote", False) is True


def _inquire(conn: Connection, handle: Handle, attribute: int | list[int]) -> Any:
    """One selector: its value; a list or tuple of them: a dict selector -> value."""
    if isinstance(attribute, list | tuple):
        if not attribute:
            raise errors.error_for(cmqc.MQRC_SELECTOR_COUNT_ERROR, call="MQINQ",
                                   obj=handle.name)
        return {selector: conn.inquire(handle, selector) for selector in attribute}
    return conn.inquire(handle, attribute)


def _resolves(od: Any) -> bool:
    """An MQOD whose ResolvedQName and ResolvedQMgrName MQOPEN and MQPUT1 fill (IBM
    ignores them below MQOD_VERSION_3)."""
    version = getattr(od, "Version", 1)
    return type(version) is int and version >= cmqc.MQOD_VERSION_3


def _make_od(q_desc: Any) -> Any:
    if isinstance(q_desc, (str, bytes, bytearray)):
        return OD(ObjectName=_text(q_desc).encode("ascii"))
    if hasattr(q_desc, "ObjectName"):
        return q_desc
    raise TypeError(f"a queue is named by a str, bytes or an OD, not {type(q_desc).__name__}")


def _md_and_options(opts: tuple) -> tuple[Any, Any]:
    if len(opts) > 2:
        raise TypeError("too many arguments: expected (md, options)")
    md = opts[0] if len(opts) > 0 else None
    options = opts[1] if len(opts) > 1 else None
    return md, options


def _message_bytes(msg: Any, md: Any, qm: QueueManager) -> tuple[bytes, Any]:
    if isinstance(msg, bytes):
        return msg, md
    if isinstance(msg, str):
        from tpfemu.mq.structs import MD

        md = md if md is not None else MD()
        md.CodedCharSetId = qm.default_ccsid
        md.Format = cmqc.MQFMT_STRING
        return msg.encode(qm.bytes_encoding), md
    if isinstance(msg, (bytearray, memoryview)):
        return bytes(msg), md
    raise TypeError(f"message type is {type(msg).__name__}: convert it to bytes")


class Queue:
    """An MQ queue opened through a QueueManager (pymqi's Queue)."""

    def __init__(self, qmgr: QueueManager, *opts: Any) -> None:
        if len(opts) > 2:
            raise TypeError("too many arguments: expected (q_desc, open_opts)")
        self._qmgr = qmgr
        self._handle: Handle | None = None
        self._od = _make_od(opts[0]) if opts and opts[0] is not None else None
        self._open_opts: int | None = None
        if len(opts) == 2 and opts[1] is not None:
            self._open_opts = opts[1]
            self._real_open()

    def _real_open(self) -> None:
        od = self._od
        if od is None:
            raise PYIFError("the queue descriptor has not been set")
        conn = self._qmgr.connection
        how = (_text(od.ObjectName), self._open_opts or 0, _text(od.ObjectQMgrName),
               getattr(od, "ObjectType", cmqc.MQOT_Q))
        # MQOPEN writes the resolved names into the MQOD (Version 3 on), as pymqi's
        # open unpacks the MQOD the call gave back: the server's on a client connection
        if _remote(conn):
            self._handle = conn.open(*how, od=od)
        else:
            self._handle = conn.open(*how)
            self._handle.write_resolved(od)

    def _ensure_open(self, options: int) -> Handle:
        handle = self._handle
        if handle is None or handle.closed:
            self._open_opts = options
            self._real_open()
            handle = self._handle
            assert handle is not None  # _real_open opened it or raised
        return handle

    def open(self, q_desc: Any, *opts: Any) -> None:
        """MQOPEN ``q_desc`` now with ``opts[0]``, or on first use without options."""
        if len(opts) > 1:
            raise TypeError("too many arguments: expected (q_desc, open_opts)")
        if self._handle is not None and not self._handle.closed:
            raise PYIFError("the queue is already open")
        self._od = _make_od(q_desc)
        if opts and opts[0] is not None:
            self._open_opts = opts[0]
            self._real_open()

    def put(self, msg: Any, md: Any = None, pmo: Any = None) -> None:
        """MQPUT ``msg`` with ``md`` and ``pmo`` (pymqi's ``put(msg, *opts)``), which are
        updated as IBM's MQPUT updates them."""
        handle = self._handle
        if handle is not None and plans.planned_put(handle.put_plan, msg, md, pmo):
            return  # the everyday call
        data, md = _message_bytes(msg, md, self._qmgr)
        if handle is None:
            handle = self._ensure_open(cmqc.MQOO_OUTPUT)
            conn = self._connection_of(handle)
            if _remote(conn):
                conn.put(handle, data, md, pmo)
            else:
                mqput.put(conn, handle, data, md, pmo)
        elif _remote(remote := self._connection_of(handle)):
            remote.put(handle, data, md, pmo)
        else:  # (the plan was tried above)
            mqput.put_full(self._connection_of(handle), handle, data, md, pmo)

    def get(self, max_length: int | None = None, md: Any = None, gmo: Any = None, *,
            maxLength: int | None = None) -> bytes:  # noqa: N803 - pymqi's keyword
        """MQGET with ``md`` and ``gmo`` (pymqi's ``get(maxLength, *opts)``; the length
        may be given as ``maxLength=``, pymqi's and ibmmq's keyword, or ``max_length=``);
        with no length (None) the whole message."""
        if maxLength is not None:
            if max_length is not None:
                raise TypeError("get() takes max_length or maxLength, not both")
            max_length = maxLength
        handle = self._handle
        if handle is None:
            handle = self._ensure_open(cmqc.MQOO_INPUT_AS_Q_DEF)
            conn = self._connection_of(handle)
            if _remote(conn):
                return conn.get(handle, max_length, md, gmo)
            return mqget.get(conn, handle, max_length, md, gmo)
        data = plans.planned_get(handle.get_plan, max_length, md, gmo)  # the everyday call
        if data is not None:
            return data
        if _remote(remote := self._connection_of(handle)):
            return remote.get(handle, max_length, md, gmo)
        return mqget.get_full(self._connection_of(handle), handle, max_length, md, gmo)

    def _connection_of(self, handle: Handle) -> Connection:
        """An open handle's connection (live while it is open); for a closed one, the
        queue manager's, which raises 2018 if it has ended (else the call gets 2019)."""
        return handle.conn if not handle.closed else self._qmgr.connection

    def get_no_jms(self, max_length: int | None = None, *opts: Any) -> bytes:
        """get() asking for no message properties, as pymqi's: ``opts`` (md, gmo); the
        GMO (a new one if none is given) gets MQGMO_NO_PROPERTIES and
        MQGMO_FAIL_IF_QUIESCING added to its Options."""
        md, gmo = _md_and_options(opts)
        if gmo is None:
            gmo = GMO()
        gmo.Options = gmo.Options | cmqc.MQGMO_NO_PROPERTIES | cmqc.MQGMO_FAIL_IF_QUIESCING
        return self.get(max_length, md, gmo)

    get_no_rfh2 = get_no_jms

    def close(self, options: int = cmqc.MQCO_NONE) -> None:
        """MQCLOSE. :raises PYIFError: if the queue is not open."""
        if self._handle is None or self._handle.closed:
            raise PYIFError("not open")
        self._qmgr.connection.close(self._handle, options)
        # As pymqi: the descriptor is forgotten too; open() names the queue again.
        self._handle = self._od = self._open_opts = None

    def inquire(self, attribute: int | list[int]) -> Any:
        """MQINQ of one queue attribute, or of a list of them (a dict selector -> value
        back, as ibmmq); opens for MQOO_INQUIRE if not open."""
        return _inquire(self._qmgr.connection, self._ensure_open(cmqc.MQOO_INQUIRE), attribute)

    inq = inquire  #: ibmmq's name

    def get_name(self) -> str:
        """ibmmq's ``Queue.get_name()``: the queue's name (its MQOD's ObjectName), stripped.

        :raises PYIFError: no queue has been named (or it was closed)."""
        if self._od is None:
            raise PYIFError("the queue descriptor has not been set")
        return _to_string(self._od.ObjectName)

    def get_queue_manager(self) -> QueueManager:
        """ibmmq's ``Queue.get_queue_manager()``: the QueueManager the queue was made on."""
        return self._qmgr

    def to_string(self, value: Any, encoding: str = "utf8") -> Any:
        """ibmmq's ``to_string``: MQCHAR bytes as a str, cut at the first NUL and
        stripped; anything else (or bytes that do not decode) as it is."""
        return _to_string(value, encoding)

    def set(self, attribute: int | Mapping[int, Any], arg: Any = None) -> None:
        """MQSET of one queue attribute (``set(selector, value)``) or of several
        (``set({selector: value, ...})``: all change, or none); opens for MQOO_SET if
        not open."""
        handle = self._ensure_open(cmqc.MQOO_SET)
        if isinstance(attribute, Mapping):
            if arg is not None:
                raise TypeError("set() takes a dict of selectors, or one selector and a value")
            self._qmgr.connection.set_many(handle, attribute)
        else:
            self._qmgr.connection.set(handle, attribute, arg)

    def get_handle(self) -> Handle | None:
        """The open handle (pymqi's get_handle)."""
        return self._handle

    def set_handle(self, queue_handle: Handle | int) -> None:
        """pymqi's ``set_handle``: use an object handle opened elsewhere on this queue
        manager's connection (another Queue's ``get_handle()``, or its hobj number); the
        calls then go to that handle.

        :raises MQMIError: 2019 no handle of that number is open on this connection,
            2018 (:class:`NotConnected`) the queue manager is not connected."""
        conn = self._qmgr.connection
        if isinstance(queue_handle, int):
            handle = conn.handles.get(queue_handle)
        else:  # (a handle of another connection is no handle of this one)
            handle = queue_handle if getattr(queue_handle, "conn", None) is conn else None
        if handle is None or handle.closed:
            raise errors.error_for(cmqc.MQRC_HOBJ_ERROR, call="MQI")
        self._handle = handle

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is not None and not handle.closed:
            try:
                self._qmgr.connection.close(handle)
            except Exception:  # a finalizer must not raise
                pass


def tx_begin() -> None:
    """Open a TPF commit scope (TXBGC) on this entry or thread; MQ work joins it."""
    scopes().tx_begin()


def tx_commit() -> None:
    """Commit the innermost scope (TXCMC); nothing is final until the outermost commits."""
    scopes().tx_commit()


def tx_rollback() -> None:
    """Roll back the innermost scope (TXRBC): its MQ work is backed out."""
    scopes().tx_rollback()
