"""The queue binding: :class:`CoreQueue`, its browse :class:`Cursor`, and what their
calls return (:class:`Message`, :class:`Descriptor`, :class:`Batch`).

Everything above works with Python types (``bytes``, ``int``, dataclasses) and never
sees cffi objects; every non-zero reason code of the core becomes an exception from
:mod:`tpfemu.errors` here. This is a queue-level wrapper, not the MQI: it has no names,
handles or queue managers (those are in :mod:`tpfemu.mqi` and :mod:`tpfemu.qmgr`).

Threads: a :class:`CoreQueue` may be used from several threads at once (the core locks
each queue). A :class:`Cursor` is used by one thread at a time, like an MQ object handle.

Time: expiry deadlines are absolute microseconds on the wall clock
(``time.time_ns() // 1000``); pass ``now`` to get calls to use another clock (tests).
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tpfemu import errors
from tpfemu._lowlevel.compiled import (
    _CLOSED,
    _INITIAL_BUFFER,
    _NO_MSG,
    _NOW,
    _OK,
    _PREFIX_LEN,
    _TRUNC_ACCEPTED,
    _TRUNC_FAILED,
    _ZERO_ID,
    EXPIRED_PENDING,
    ID_LEN,
    NEVER,
    PRIORITIES,
    _address,
    _error,
    _fastpath,
    _raise,
    ffi,
    lib,
)

if TYPE_CHECKING:
    from tpfemu._lowlevel.shim import EventLog

__all__ = ["Batch", "CoreQueue", "Cursor", "CursorMoves", "Descriptor", "Message",
           "check_get_options", "check_id", "check_settings"]


@dataclass(slots=True)
class Descriptor:
    """What the core keeps about a message (the MQMD fields it acts on).

    A value, never changed once made; not a frozen dataclass, whose constructor sets each
    field through ``object.__setattr__`` (1.07 against 0.16 µs, on every get and browse of
    the Python path: an MQI browse 20.1 -> 16.2 µs a message, a checkpoint 12 % less CPU).
    """

    msg_id: bytes
    correl_id: bytes
    priority: int
    persistent: bool
    expiry: int  # absolute deadline, microseconds; NEVER = unlimited
    put_time: int  # microseconds since the epoch
    ctx_len: int  # bytes of context record at the head of the data (the layer above's)
    seq: int  # put sequence within the queue
    uow: int  # unit of work of the put (0 = none)
    backout_count: int
    length: int  # full length of the message data


@dataclass(slots=True)
class Message:
    """A message returned by a get: its data and descriptor (a value, not frozen for the
    reason :class:`Descriptor` gives).

    ``reason`` is MQRC_NONE, or MQRC_TRUNCATED_MSG_ACCEPTED (2079) when the data was cut
    to the buffer (the message was removed; ``descriptor.length`` is the full length).
    A warning is not an exception.
    """

    data: bytes
    descriptor: Descriptor
    reason: int = 0


def _descriptor(md) -> Descriptor:
    return Descriptor(ffi.buffer(md.msg_id)[:], ffi.buffer(md.correl_id)[:], md.priority,
                      bool(md.persistent), md.expiry, md.put_time, md.ctx_len, md.seq,
                      md.uow, md.backout_count, md.length)  # (Descriptor's field order)


def check_id(value: bytes | None, what: str) -> bytes:
    """A MsgId/CorrelId argument as 24 bytes (None: all zero, "none").

    :raises ValueError: naming ``what``, for anything but None or 24 bytes.
    """
    if value is None:
        return _ZERO_ID
    if not isinstance(value, (bytes, bytearray)) or len(value) != ID_LEN:
        raise ValueError(f"{what} must be {ID_LEN} bytes, not {value!r}")
    return bytes(value)


def check_get_options(options: int, has_cursor: bool) -> int:
    """MQGET's rule on its cursor options (MQGMO_* bits), as the core states it once
    (``tpf_mq_check_get_options``): MQRC_NONE, or MQRC_OPTIONS_ERROR if they conflict."""
    return lib.tpf_mq_check_get_options(options, 1 if has_cursor else 0)


def _buffer(data) -> tuple[object, int]:
    """Message data as something the core reads without a copy, and its length."""
    if isinstance(data, bytes):
        return data, len(data)
    if isinstance(data, str):
        raise TypeError("message data must be bytes-like, not str (encode it first)")
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError(
            f"message data must be bytes-like, not {type(data).__name__}"
        ) from None
    return ffi.from_buffer(view), view.nbytes


def _as_bytes(data: Any) -> bytes:
    """A bytes-like message as bytes (TypeError naming what it is, for anything else)."""
    view, _ = _buffer(data)
    return bytes(ffi.buffer(view)) if not isinstance(data, bytes) else data


_MD_SIZE = ffi.sizeof("tpf_mq_msg_t")


def _check_priority(priority: int) -> None:
    if not isinstance(priority, int) or not 0 <= priority < PRIORITIES:
        raise errors.error_for(lib.MQRC_PRIORITY_ERROR, call="MQPUT")


class _Scratch(threading.local):
    """Per-thread output areas for gets, reused call after call (no allocation per get)."""

    def __init__(self) -> None:
        self.md = ffi.new("tpf_mq_msg_t *")
        self.req = ffi.new("tpf_mq_getreq_t *")
        self.grow(_INITIAL_BUFFER)
        self.put_md = ffi.new("tpf_mq_msg_t *")  # put_message's descriptor
        self.many_md = ffi.new("tpf_mq_msg_t *")  # put_many's shared descriptor
        self.many_md.expiry = NEVER
        self.seq = ffi.new("uint64_t *")
        self.count = ffi.new("uint32_t *")
        self.flag = ffi.new("uint32_t *")

    def grow(self, size: int) -> None:
        self.cap = max(size, 1)
        self.buf = ffi.new("char[]", self.cap)


_scratch = _Scratch()


GET_MANY_MOST = 1 << 16  #: the most messages one :meth:`CoreQueue.get_many` call returns


class Batch:
    """Messages taken by :meth:`CoreQueue.get_many`, as the core handed them over: ``data``
    is the messages back to back and ``lengths`` an ``array('I')`` of their sizes, for
    callers that forward them as they are (channels, the journal) or pass them on to
    :meth:`CoreQueue.put_batch`; optional descriptors.

    ``len(batch)`` is the number of messages; iterate (or call :meth:`messages`) for each
    one's bytes, cut from ``data`` on demand.
    """

    __slots__ = ("data", "lengths", "_mds")

    def __init__(self, data: bytes, lengths: array, mds: Any = None) -> None:
        self.data = data
        self.lengths = lengths
        self._mds = mds

    @property
    def count(self) -> int:
        return len(self.lengths)

    def __len__(self) -> int:
        return len(self.lengths)

    def messages(self) -> list[bytes]:
        """Each message's bytes, in the order they were got (a new list)."""
        return _fastpath.split(self.data, self.lengths)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.messages())

    def descriptors(self) -> list[Descriptor]:
        """The descriptors, if they were asked for (``with_descriptors=True``)."""
        if self._mds is None:
            raise ValueError("get_many was called without with_descriptors=True")
        return [_descriptor(self._mds[i]) for i in range(self.count)]


def check_settings(max_depth: int, max_msg_length: int, default_priority: int,
                   msgid_prefix: bytes) -> None:
    """Raise ValueError naming the setting of a queue that is out of range (the core's
    limits; any other queue storage with the core's interface checks the same)."""
    if not 0 <= max_depth <= 0xFFFFFFFF:
        raise ValueError(f"max_depth must be 0 (unlimited) to 4294967295, not {max_depth}")
    if not 1 <= max_msg_length <= 0xFFFFFFFF:
        raise ValueError(f"max_msg_length must be 1 to 4294967295, not {max_msg_length}")
    if not 0 <= default_priority < PRIORITIES:
        raise ValueError(f"default_priority must be 0 to 9, not {default_priority}")
    if len(msgid_prefix) > _PREFIX_LEN:
        raise ValueError(f"msgid_prefix is at most {_PREFIX_LEN} bytes: {msgid_prefix!r}")


class CoreQueue:
    """One in-memory queue of the C core: priority order, matched gets, units of work.

    Equivalent to the storage of one MQ local queue; names, handles, triggering and
    persistence live above. Use as a context manager or call :meth:`close`.

    :param name: used in error messages only.
    :param max_depth: MAXDEPTH; 0 = unlimited (as on TPF).
    :param max_msg_length: MAXMSGL in bytes.
    :param fifo: MSGDLVSQ FIFO (arrival order) instead of PRIORITY.
    :param default_priority: DEFPRTY, where FIFO mode places every message.
    :param msgid_prefix: up to 16 bytes that begin every MsgId the core generates.
    """

    def __init__(
        self,
        name: str = "",
        *,
        max_depth: int = 0,
        max_msg_length: int = 4 * 1024 * 1024,
        fifo: bool = False,
        default_priority: int = 0,
        msgid_prefix: bytes = b"",
    ) -> None:
        self.name = name
        cfg = self._config(max_depth, max_msg_length, fifo, default_priority, msgid_prefix)
        out = ffi.new("tpf_mq_queue_t **")
        rc = lib.tpf_mq_create(cfg, out)
        if rc:
            _raise(rc, "create", name)
        # Freed when this object is collected, or by close().
        self._q = ffi.gc(out[0], lib.tpf_mq_destroy)
        self._cursors: list[Cursor] = []
        # The hot path: put and get are the shim's C methods themselves, bound on the
        # instance so a call runs no Python frame (see native/python/fastpath.c). They
        # behave exactly as the methods documented on the class.
        self._fast = _fastpath.FastQueue(_address(self._q), name)
        self.put = self._fast.put  # type: ignore[method-assign]
        self.get = self._fast.get  # type: ignore[method-assign]
        self.get_body = self._fast.get_body  # type: ignore[method-assign]
        self.put_md = self._fast.put_md  # type: ignore[method-assign]
        self.get_md = self._fast.get_md  # type: ignore[method-assign]

    @staticmethod
    def _config(max_depth, max_msg_length, fifo, default_priority, msgid_prefix):
        check_settings(max_depth, max_msg_length, default_priority, msgid_prefix)
        cfg = ffi.new("tpf_mq_config_t *")
        cfg.max_depth = max_depth
        cfg.max_msg_length = max_msg_length
        cfg.fifo = 1 if fifo else 0
        cfg.default_priority = default_priority
        prefix = bytes(msgid_prefix).ljust(_PREFIX_LEN, b"\0")
        ffi.memmove(cfg.msgid_prefix, prefix, _PREFIX_LEN)
        return cfg

    # -- life cycle -------------------------------------------------------------------

    def _handle(self):
        if self._q is _CLOSED:
            raise errors.TpfEmuError(f"queue {self.name!r} is closed")
        return self._q

    def close(self) -> None:
        """Free the queue and every message in it; its cursors are closed first."""
        if self._q is _CLOSED:
            return
        for c in list(self._cursors):
            c.close()
        self._fast.detach()  # its calls now raise the closed error
        q, self._q = self._q, _CLOSED
        ffi.release(q)  # runs tpf_mq_destroy now

    def __enter__(self) -> CoreQueue:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def configure(
        self,
        *,
        max_depth: int = 0,
        max_msg_length: int = 4 * 1024 * 1024,
        fifo: bool = False,
        default_priority: int = 0,
        msgid_prefix: bytes = b"",
    ) -> None:
        """Change the settings; messages already on the queue keep their places."""
        cfg = self._config(max_depth, max_msg_length, fifo, default_priority, msgid_prefix)
        rc = lib.tpf_mq_configure(self._handle(), cfg)
        if rc:
            _raise(rc, "configure", self.name)

    # -- put ----------------------------------------------------------------------------

    def put(self, data: bytes, priority: int = 0, uow: int = 0,
            log: EventLog | None = None) -> None:
        """Put a non-persistent, never-expiring message (fast path).

        ``data`` is any bytes-like object. With an :class:`EventLog` as ``log`` (``data``
        then exact bytes), the message gets a MsgId and a put time and its put event is
        recorded in the log. (Each instance binds this name to the C shim's method,
        which does exactly this without a Python frame.)

        :raises QueueFull, MessageTooBig, PriorityError: as MQPUT would.
        """
        self._fast.put(data, priority, uow, log)

    def put_message(
        self,
        data: bytes,
        *,
        priority: int = 0,
        persistent: bool = False,
        expiry: int = NEVER,
        msg_id: bytes | None = None,
        correl_id: bytes | None = None,
        uow: int = 0,
        ctx_len: int = 0,
        put_time: int = 0,
        backout_count: int = 0,
    ) -> tuple[bytes, int]:
        """Put a message with a full descriptor; return its MsgId and put sequence.

        :param expiry: absolute deadline in microseconds, or NEVER.
        :param msg_id: 24 bytes; None (or 24 zero bytes) has the core generate one.
        :param ctx_len: the first ctx_len bytes of data are the caller's context record.
        :param put_time: microseconds; 0 = now.
        :param backout_count: the message's BackoutCount (a message restored at restart
            keeps its count; a new message starts at 0).
        """
        if backout_count < 0:
            raise ValueError(f"backout_count must be 0 or more, not {backout_count}")
        if not 0 <= ctx_len <= len(data):
            raise ValueError(f"ctx_len must be 0 to the data length {len(data)}, not {ctx_len}")
        md = _scratch.put_md
        if not 0 <= priority < PRIORITIES:
            raise errors.error_for(lib.MQRC_PRIORITY_ERROR, call="MQPUT", obj=self.name)
        md.priority = priority
        md.persistent = 1 if persistent else 0
        md.expiry = expiry
        md.uow = uow
        md.ctx_len = ctx_len
        md.put_time = put_time
        md.backout_count = backout_count
        md.flags = lib.TPF_MQ_F_RESTORE if backout_count else 0
        ffi.memmove(md.msg_id, check_id(msg_id, "msg_id"), ID_LEN)
        ffi.memmove(md.correl_id, check_id(correl_id, "correl_id"), ID_LEN)
        buf, length = _buffer(data)
        rc = lib.tpf_mq_put(self._handle(), md, buf, length)
        if rc:
            _raise(rc, "MQPUT", self.name)
        return ffi.buffer(md.msg_id)[:], md.seq

    def put_packed(self, batch) -> tuple[int, int, bool]:
        """Put back, in one call and all or nothing, the messages of a packed batch (the
        checkpoint's chunk format, ``tpf_mq_put_packed`` in ``native/include/tpf/queue.h``):
        committed and persistent, each with its own descriptor and backout count; the
        descriptors' tags are not kept. ``batch`` is any bytes-like object (an LMDB
        buffer too: it is read, not kept). No Python object is made per message.

        Returns (the first message's put sequence, the number of messages, whether any
        of them has an expiry deadline).

        :raises ValueError: the batch's count, descriptors and data do not add up.
        :raises PriorityError, MessageTooBig, QueueFull, ...: as :meth:`put_message`;
            then nothing was put.
        """
        buf, length = _buffer(batch)
        s = _scratch
        rc = lib.tpf_mq_put_packed(self._handle(), buf, length, s.seq, s.count, s.flag)
        return self._packed_put(rc, f"put_packed: a batch of {length} bytes whose count, "
                                "descriptors and data do not add up")  # fmt: skip

    def put_packed_gather(self, descriptors, addresses) -> tuple[int, int, bool]:
        """As :meth:`put_packed`, with the data apart (``tpf_mq_put_packed_gather``):
        ``descriptors`` is a packed batch without its data, and ``addresses`` holds the
        address of each message's data, a native pointer each, as ``log_replay``
        (:mod:`tpfemu._lowlevel.logreplay`) gives them (pointing into the recovery log's
        map: they must still be mapped).

        :raises ValueError: the sizes of the two do not agree with the count.
        """
        buf, length = _buffer(descriptors)
        count = int.from_bytes(bytes(descriptors[:4]), "little") if length >= 4 else -1
        if count < 0 or len(addresses) != count * ffi.sizeof("void *"):
            raise ValueError(f"put_packed_gather: {length} bytes of descriptors and "
                             f"{len(addresses)} bytes of addresses do not agree")  # fmt: skip
        datas = ffi.cast("const void *const *", ffi.from_buffer(addresses))
        s = _scratch
        rc = lib.tpf_mq_put_packed_gather(self._handle(), buf, length, datas, s.seq, s.count,
                                          s.flag)  # fmt: skip
        return self._packed_put(rc, f"put_packed_gather: {length} bytes of descriptors "
                                "whose count does not add up")  # fmt: skip

    def _packed_put(self, rc: int, invalid: str) -> tuple[int, int, bool]:
        """The result of a packed put from ``_scratch``, or its error (ValueError with
        ``invalid`` for sizes that do not add up)."""
        if rc == lib.TPF_RC_INVALID_ARGUMENT:
            raise ValueError(invalid)
        if rc:
            _raise(rc, "MQPUT", self.name)
        s = _scratch
        return s.seq[0], s.count[0], bool(s.flag[0])

    def put_batch(
        self, data: bytes, lengths: Sequence[int], priority: int = 0, uow: int = 0
    ) -> int:
        """Put the messages laid back to back in data, with the given lengths, all or nothing.

        The form a channel receives or a replay reads: no per-message Python object.
        Returns the first message's put sequence.
        """
        if not isinstance(lengths, array) or lengths.typecode != "I":
            lengths = array("I", lengths)
        buf, nbytes = _buffer(data)
        return self._put_many(buf, nbytes, lengths, priority, uow)

    def _put_many(self, buf, nbytes: int, lengths: array, priority: int, uow: int) -> int:
        count = len(lengths)
        if sum(lengths) != nbytes:
            raise ValueError(f"the lengths add up to {sum(lengths)} bytes but data has {nbytes}")
        if count == 0:
            return 0
        _check_priority(priority)
        s = _scratch
        md = s.many_md
        md.priority = priority
        md.uow = uow
        rc = lib.tpf_mq_put_many(
            self._handle(), count, md, 0, ffi.from_buffer("uint32_t[]", lengths), buf, s.seq
        )
        if rc:
            _raise(rc, "MQPUT", self.name)
        return s.seq[0]

    def put_many(self, payloads: Sequence[bytes], priority: int = 0, uow: int = 0) -> int:
        """Put several messages in one call, all or nothing; return the first one's sequence.

        Equivalent to one MQPUT per message, but one call into the core (channels,
        recovery, replay), which copies each message once, from its bytes. On any error
        nothing was put. Items that are bytes-like but not bytes are made bytes first.
        """
        _check_priority(priority)
        items = payloads if type(payloads) is list else list(payloads)
        if not items:
            return 0
        try:
            return self._fast.put_many(items, priority, uow)
        except TypeError:
            if all(type(p) is bytes for p in items):
                raise
        return self._fast.put_many([_as_bytes(p) for p in items], priority, uow)

    # -- get ----------------------------------------------------------------------------

    def get(self, uow: int = 0) -> bytes:
        """Get the first message in delivery order, whole (fast path): its bytes.

        Expired messages this get discards stay listed for :meth:`take_expired`; use
        :meth:`get_message` where expiration reports must be made at once. (Each instance
        binds this name to the C shim's method, which copies the message straight into
        the returned bytes.)

        :raises NoMessageAvailable: the queue has no available message.
        """
        return self._fast.get(uow)

    def get_body(self, uow: int = 0, not_persistent: bool = False,
                 log: EventLog | None = None) -> bytes | None:
        """As :meth:`get`, but without the context record at the head of the data
        (``ctx_len`` bytes, see :meth:`put_message`). With ``not_persistent``, None and
        nothing done when the message it would take is persistent. With an
        :class:`EventLog` as ``log``, the get event is recorded in it. Bound to the C
        shim per instance."""
        return self._fast.get_body(uow, not_persistent, log)

    def put_md(self, md: Any, data: bytes,
               settings: tuple[int, bool, bool, bytes, dict[str, Any], tuple[str, ...],
                               bytes, frozenset[bytes]],
               log: EventLog | None = None, uow: int = 0) -> int:
        """MQPUT with an MD (``tpfemu.mq.structs.MD``) in one C call, for the queue
        manager's fast path: the MD's descriptor fields are checked and its record
        fields packed into a copy of the base record (the connection's put context, in
        the layout :func:`set_md_layout` gave); then MsgId, PutDate, PutTime and the put
        context outputs are written into the MD.

        ``settings`` is ``(DEFPRTY, DEFPSIST is YES, persistent messages are logged,
        base_record, outputs, initial_names, reply_qmgr, reply_aliases)``, prepared once
        per handle: ``outputs`` the put context fields to write, ``initial_names`` those
        that are left at the MD's initial values (removed from the MD if it holds them),
        ``reply_qmgr`` the queue manager's name (48 bytes), the ReplyToQMgr of a message
        with a ReplyToQ and a blank ReplyToQMgr, unless its ReplyToQ is in
        ``reply_aliases`` (48-byte remote queue definition names). Returns 0, having changed
        nothing, for an MD the full path must handle: a priority or persistence out of
        range, Expiry 0 or below -1, a request with no ReplyToQ, a reply-to alias with no
        ReplyToQMgr, a persistent message
        when logged, a value that does not fit its field. Returns 1 once the message is
        put, 2 when it is put and has an expiry. With an :class:`EventLog` as ``log``,
        the put event is recorded in it. ``uow``: the unit of work the put joins (0:
        none). Bound to the C shim per instance.

        :raises QueueFull, MessageTooBig, ...: as :meth:`put_message`.
        """
        return self._fast.put_md(md, data, settings, log, uow)

    def get_md(self, md: Any, match: int, not_persistent: bool = False,
               details: bool = True, log: EventLog | None = None, uow: int = 0
               ) -> tuple[bytes, int, int] | bytes | None:
        """MQGET with an MD in one C call: the first message in delivery order whose
        MsgId and/or CorrelId (``match``: MQMO_* bits) equal the MD's is got whole, and
        its descriptor and context record written into the MD (Expiry as the time
        left). Returns ``(data, flags, expiry)``: the core's TPF_MQ_F_* flags and the
        absolute expiry deadline (NEVER: none); without ``details``, the data alone
        when there are no flags (nothing else to act on). None, having changed nothing,
        when the MD's ids need the full path, or with ``not_persistent`` when the
        message it would take is persistent (the caller's recovery log must record that
        get). With an :class:`EventLog` as ``log``, the get event is recorded in it.
        ``uow``: the unit of work the get joins (0: none, the message is got outright).
        Bound to the C shim per instance.

        :raises NoMessageAvailable: nothing matches.
        """
        return self._fast.get_md(md, match, not_persistent, details, log, uow)

    def _on_expired_pending(self) -> None:
        """Hook for the layer above (expiration reports). Expired messages stay listed
        for :meth:`take_expired` until taken."""

    def get_message(
        self,
        *,
        msg_id: bytes | None = None,
        correl_id: bytes | None = None,
        uow: int = 0,
        max_length: int | None = None,
        accept_truncated: bool = False,
        now: int | None = None,
        cursor: Cursor | None = None,
        options: int = 0,
        cap_body: bool = False,
    ) -> Message:
        """Get (or, with a cursor and browse options, browse) one message.

        Matching: a MsgId and/or CorrelId given here must match; None matches any.
        :param max_length: buffer size; None = the whole message, however long.
        :param accept_truncated: with max_length, return the first max_length bytes and
            remove the message (Message.reason = MQRC_TRUNCATED_MSG_ACCEPTED).
        :param options: MQGMO_* cursor bits (see :class:`Cursor` for the usual calls).
        :param cap_body: max_length limits only the data after the context record (the
            record always comes back whole), as an MQI buffer length does.
        :raises NoMessageAvailable, NoMessageUnderCursor, TruncatedMessage, OptionsError.
        """
        s = _scratch
        req = s.req
        req.options = options | (lib.MQGMO_ACCEPT_TRUNCATED_MSG if accept_truncated else 0)
        req.match = 0
        if msg_id is not None:
            req.match |= lib.MQMO_MATCH_MSG_ID
        if correl_id is not None:
            req.match |= lib.MQMO_MATCH_CORREL_ID
        ffi.memmove(req.msg_id, check_id(msg_id, "msg_id"), ID_LEN)
        ffi.memmove(req.correl_id, check_id(correl_id, "correl_id"), ID_LEN)
        req.uow = uow
        req.now = _NOW if now is None else now
        req.cap_body = 1 if cap_body and max_length is not None else 0
        req.cursor = ffi.NULL if cursor is None else cursor._handle()
        q = self._handle()
        call = "MQGET"
        while True:
            cap = s.cap if max_length is None else max_length
            room = cap + (lib.TPF_MQ_MAX_CTX if req.cap_body else 0)
            buf = s.buf if room <= s.cap else ffi.new("char[]", room)
            rc = lib.tpf_mq_get(q, req, s.md, buf, cap)
            if rc == _TRUNC_FAILED and max_length is None:
                s.grow(s.md.length)
                continue
            break
        if rc not in (_OK, _TRUNC_ACCEPTED):
            exc = _error(rc, call, self.name)
            if rc == _TRUNC_FAILED and isinstance(exc, errors.TruncatedMessage):
                exc.original_length = s.md.length - (s.md.ctx_len if req.cap_body else 0)
                exc.descriptor = _descriptor(s.md)
                # (original_length: IBM's DataLength; with cap_body the record comes whole)
                ctx_len = s.md.ctx_len if req.cap_body else 0
                exc.context_record = ffi.unpack(buf, ctx_len) if ctx_len else b""
            raise exc
        md = s.md
        data = ffi.unpack(buf, min(md.length, cap + (md.ctx_len if req.cap_body else 0)))
        if md.flags & EXPIRED_PENDING:
            self._on_expired_pending()
        return Message(data, _descriptor(md), rc)

    def get_many(
        self, max_count: int, uow: int = 0, *, max_bytes: int = 1 << 20,
        with_descriptors: bool = False,
    ) -> Batch:
        """Get up to max_count messages (at most :data:`GET_MANY_MOST` of them, and at most
        max_bytes in all) in one call into the core, copied once, back to back into one
        bytes object (:class:`Batch`).

        :raises NoMessageAvailable: none available.
        :raises TruncatedMessage: the first message alone is longer than max_bytes.
        """
        mds = bytearray(min(max(max_count, 1), GET_MANY_MOST) * _MD_SIZE) if with_descriptors \
            else None
        data, sizes = self._fast.get_many(max_count, uow, max_bytes, mds)
        lengths = array("I")
        lengths.frombytes(sizes)
        return Batch(data, lengths,
                     ffi.from_buffer("tpf_mq_msg_t[]", mds) if mds is not None else None)

    # -- units of work, expiry, purge -------------------------------------------------

    def commit(self, uow: int) -> int:
        """Make a unit of work's puts visible and its gets final here; return how many
        (with the GIL held: FastQueue.commit in native/python/fastpath.c says why)."""
        return self._fast.commit(_uow(uow, "MQCMIT"))

    def backout(self, uow: int) -> int:
        """Undo a unit of work here (puts deleted, gets restored, backout count + 1)."""
        n = ffi.new("uint32_t *")
        rc = lib.tpf_mq_backout(self._handle(), _uow(uow, "MQBACK"), n)
        if rc:
            _raise(rc, "MQBACK", self.name)
        return n[0]

    def take_expired(self) -> Message | None:
        """Take the oldest message discarded because it expired (for reports), or None."""
        s = _scratch
        while True:
            rc = lib.tpf_mq_take_expired(self._handle(), s.md, s.buf, s.cap)
            if rc == _TRUNC_FAILED:
                s.grow(s.md.length)
                continue
            break
        if rc == _NO_MSG:
            return None
        if rc:
            _raise(rc, "expire", self.name)
        return Message(ffi.unpack(s.buf, s.md.length), _descriptor(s.md))

    def discard_expired(self, now: int | None = None) -> int:
        """Discard every expired message not held by a unit of work or a lock (the
        periodic expiry scan); they wait in :meth:`take_expired`. Returns how many."""
        n = ffi.new("uint32_t *")
        rc = lib.tpf_mq_discard_expired(self._handle(), _NOW if now is None else now, n)
        if rc:
            _raise(rc, "expire", self.name)
        return n[0]

    def purge(self) -> int:
        """Remove every committed message not held by a unit of work (CLEAR QL)."""
        n = ffi.new("uint32_t *")
        rc = lib.tpf_mq_purge(self._handle(), n)
        if rc:
            _raise(rc, "CLEAR", self.name)
        return n[0]

    # -- counters -------------------------------------------------------------------------

    @property
    def depth(self) -> int:
        """CURDEPTH: every message on the queue, committed or not, expired or not."""
        return lib.tpf_mq_depth(self._handle())

    def depth_at_least(self, priority: int, committed_only: bool = False,
                       without_gets: bool = False) -> int:
        """Messages whose priority is >= priority (O(1); triggering uses it).

        :param committed_only: leave out puts not yet committed.
        :param without_gets: leave out messages got in a unit of work not yet ended.
        """
        flags = (lib.TPF_MQ_COUNT_NO_UNCOMMITTED_PUTS if committed_only else 0) | (
            lib.TPF_MQ_COUNT_NO_UNCOMMITTED_GETS if without_gets else 0
        )
        return lib.tpf_mq_depth_at_least(self._handle(), priority, flags)

    def stats(self) -> dict[str, int | list[int]]:
        """The core's counters (puts, gets, depth by priority, slab bytes, ...)."""
        st = ffi.new("tpf_mq_stats_t *")
        lib.tpf_mq_stats(self._handle(), st)
        out: dict[str, int | list[int]] = {}
        for field, _ in ffi.typeof("tpf_mq_stats_t").fields:
            value = getattr(st, field)
            out[field] = list(value) if field == "depth_by_priority" else value
        return out

    def cursor(self) -> Cursor:
        """A new browse cursor, positioned before the first message."""
        return Cursor(self)


class CursorMoves:
    """The moves of a browse cursor over any queue storage with the core's interface:
    ``self.queue.get_message(cursor=self, options=...)`` does the work."""

    queue: Any

    def _get(self, options: int, **kw) -> Message:
        return self.queue.get_message(cursor=self, options=options, **kw)

    def first(self, *, lock: bool = False, **kw) -> Message:
        """Browse the first (matching) message: MQGMO_BROWSE_FIRST."""
        return self._get(lib.MQGMO_BROWSE_FIRST | (lib.MQGMO_LOCK if lock else 0), **kw)

    def next(self, *, lock: bool = False, **kw) -> Message:
        """Browse the next (matching) message after the cursor: MQGMO_BROWSE_NEXT."""
        return self._get(lib.MQGMO_BROWSE_NEXT | (lib.MQGMO_LOCK if lock else 0), **kw)

    def current(self, **kw) -> Message:
        """Browse the message under the cursor again: MQGMO_BROWSE_MSG_UNDER_CURSOR."""
        return self._get(lib.MQGMO_BROWSE_MSG_UNDER_CURSOR, **kw)

    def take(self, **kw) -> Message:
        """Get the message under the cursor destructively: MQGMO_MSG_UNDER_CURSOR."""
        return self._get(lib.MQGMO_MSG_UNDER_CURSOR, **kw)

    def __iter__(self) -> Iterator[Message]:
        """Browse every message from the first, in delivery order."""
        try:
            yield self.first()
            while True:
                yield self.next()
        except errors.NoMessageAvailable:
            return


class Cursor(CursorMoves):
    """A browse cursor on a :class:`CoreQueue` (one MQ object handle's browse position).

    The cursor stays valid while messages come and go: if the message under it is got
    by someone else, BROWSE_NEXT continues with the message after it.
    """

    def __init__(self, queue: CoreQueue) -> None:
        out = ffi.new("tpf_mq_cursor_t **")
        rc = lib.tpf_mq_cursor_create(queue._handle(), out)
        if rc:
            _raise(rc, "MQOPEN", queue.name)
        self.queue = queue  # keeps the queue alive: cursors are destroyed first
        self._c = ffi.gc(out[0], lib.tpf_mq_cursor_destroy)
        queue._cursors.append(self)

    def _handle(self):
        if self._c is _CLOSED:
            raise errors.TpfEmuError("cursor is closed")
        return self._c

    def close(self) -> None:
        """Release the cursor, its lock and its position."""
        if self._c is _CLOSED:
            return
        c, self._c = self._c, _CLOSED
        ffi.release(c)
        self.queue._cursors.remove(self)

    def __enter__(self) -> Cursor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def unlock(self) -> None:
        """Release the message this cursor locked: MQGMO_UNLOCK."""
        s = _scratch
        s.req.options = lib.MQGMO_UNLOCK
        s.req.cursor = self._handle()
        rc = lib.tpf_mq_get(self.queue._handle(), s.req, s.md, s.buf, 0)
        if rc:
            _raise(rc, "MQGET", self.queue.name)


def _uow(uow: int, call: str) -> int:
    """``uow``, a unit of work's id. :raises ValueError: it is not positive."""
    if uow <= 0:
        raise ValueError(f"{call}: a unit of work id is a positive integer, not {uow}")
    return uow
