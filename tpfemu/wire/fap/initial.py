"""INITIAL_DATA (the ID): what each end of a channel offers, and the negotiation.

The ID is the body of the first segment each end sends (``reference/channels-bridge-
clusters.md`` §1.4). Its size depends on the FAP level: 44 bytes below level 4, 102 below
9, 208 below 11 and 240 from 11. Integers follow the TSH's byte order; names are
blank-padded, in EBCDIC when the ID's StrucId or its CCSID is EBCDIC.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace

from tpfemu.wire.fap.byteorder import text_of, text_to
from tpfemu.wire.fap.constants import (
    ASCII_CCSID,
    EBCDIC_CCSIDS,
    ENC_NATIVE,
    ENC_S390,
    CapFlags1,
    CapFlags2,
    IniErrFlags1,
    StatusCode,
)
from tpfemu.wire.fap.errors import FapError, NegotiationError

__all__ = [
    "DEFAULT_FAP_LEVEL", "MIN_TRANS_SIZE", "InitialData", "decode_id", "encode_id", "id_size",
    "negotiate", "receive_timeout",
]  # fmt: skip

#: The FAP level our ends offer: its 208-byte ID carries ConvPerSocket (SHARECNV).
DEFAULT_FAP_LEVEL = 10
#: The smallest transmission size we accept: a TSH, an MSH, an MQXQH and an MQMDE, and
#: room for data (a segment must hold every header of a message's first segment).
MIN_TRANS_SIZE = 1024

_ID_ASCII = b"ID  "
_ID_EBCDIC = b"\xc9\xc4\x40\x40"
_FORMAT = "4sBBBB2xHIII20sBBH48sIHBx2s16s2xIIBB2xIII12s48s20s12s"
_LAYOUT = {False: struct.Struct("<" + _FORMAT), True: struct.Struct(">" + _FORMAT)}
_FULL = 240
_MIN = 44


def id_size(fap_level: int) -> int:
    """Bytes of an ID at ``fap_level``: 44 (< 4), 102 (< 9), 208 (< 11) or 240."""
    if fap_level < 4:
        return 44
    if fap_level < 9:
        return 102
    if fap_level < 11:
        return 208
    return _FULL


@dataclass(frozen=True, slots=True)
class InitialData:
    """The values one end of a channel offers (or, after :func:`negotiate`, agreed).

    ``batch_size`` is MaxMsgsPerBatch (BATCHSZ), ``max_trans_size`` the largest segment
    (TSH included), ``max_msg_len`` MAXMSGL, ``seq_wrap`` SEQWRAP, ``heartbeat_interval``
    HBINT in seconds, ``conv_per_socket`` SHARECNV (SVRCONN). ``encoding`` is not in the
    ID: the TSH carries it, and :func:`decode_id` sets it from the byte order. ``fast``
    (CapFlags2 FAST_MESSAGES_REQUIRED) is how our ends say NPMSPEED(FAST).
    """

    channel_name: str
    qmgr_name: str = ""
    fap_level: int = DEFAULT_FAP_LEVEL
    cap_flags1: int = CapFlags1.MSG_SEQ | CapFlags1.CONVERSION_CAPABLE
    ecap_flags1: int = 0
    ini_err_flags1: int = 0
    batch_size: int = 50
    max_trans_size: int = 32768
    max_msg_len: int = 4 * 1024 * 1024
    seq_wrap: int = 999_999_999
    cap_flags2: int = 0
    ecap_flags2: int = 0
    ccsid: int = ASCII_CCSID
    heartbeat_interval: int = 300
    ini_err_flags2: int = 0
    hdr_comp_list: bytes = bytes(2)
    msg_comp_list: bytes = bytes(16)
    ssl_key_reset: int = 0
    conv_per_socket: int = 0
    cap_flags3: int = 0
    ecap_flags3: int = 0
    process_id: int = 0
    thread_id: int = 0
    trace_id: int = 0
    product_id: str = "TPFEMU"
    qmgr_id: str = ""
    encoding: int = ENC_NATIVE

    @property
    def fast(self) -> bool:
        """NPMSPEED(FAST) offered (or, negotiated, agreed by both ends)."""
        return bool(self.cap_flags2 & CapFlags2.FAST_MESSAGES_REQUIRED)

    def with_fast(self, fast: bool) -> InitialData:
        """A copy offering (or not) NPMSPEED(FAST)."""
        bit = CapFlags2.FAST_MESSAGES_REQUIRED
        return replace(self, cap_flags2=(self.cap_flags2 | bit) if fast
                       else (self.cap_flags2 & ~bit))


def _name(text: str, size: int, what: str, ebcdic: bool) -> bytes:
    raw = text.encode("latin-1", "replace")
    if len(raw) > size:
        raise ValueError(f"ID {what} {text!r} is longer than {size} characters")
    return text_to(raw.ljust(size, b" "), ebcdic)


def encode_id(data: InitialData, *, big_endian: bool = False, ebcdic: bool = False) -> bytes:
    """The ID body for ``data``, sized by its FAP level, in the given byte order. Names
    are EBCDIC when ``ebcdic`` or when ``data.ccsid`` is an EBCDIC CCSID (the rule the
    dissector reads them by); the StrucId is EBCDIC only when ``ebcdic``.

    :raises ValueError: a name longer than its field or a number out of range.
    """
    e = ebcdic or data.ccsid in EBCDIC_CCSIDS
    try:
        full = _LAYOUT[big_endian].pack(
            _ID_EBCDIC if ebcdic else _ID_ASCII, data.fap_level, data.cap_flags1, data.ecap_flags1,
            data.ini_err_flags1, data.batch_size, data.max_trans_size, data.max_msg_len,
            data.seq_wrap, _name(data.channel_name, 20, "channel name", e), data.cap_flags2,
            data.ecap_flags2, data.ccsid, _name(data.qmgr_name, 48, "queue manager name", e),
            data.heartbeat_interval, 0, data.ini_err_flags2, data.hdr_comp_list,
            data.msg_comp_list, data.ssl_key_reset, data.conv_per_socket, data.cap_flags3,
            data.ecap_flags3, data.process_id, data.thread_id, data.trace_id,
            _name(data.product_id, 12, "product id", e), _name(data.qmgr_id, 48, "MQMID", e),
            bytes(20), bytes(12))
    except struct.error as exc:
        raise ValueError(f"ID field out of range: {exc}") from None
    return full[:id_size(data.fap_level)]


def decode_id(payload: bytes, big_endian: bool) -> InitialData:
    """The ID in ``payload`` (an INITIAL_DATA body). Fields beyond the body's size (an
    older FAP level) keep their defaults.

    :raises FapError: a body shorter than 44 bytes or without the ``ID`` StrucId
        (status PROTOCOL_ID_ERROR).
    """
    if len(payload) < _MIN:
        raise FapError(f"ID is {len(payload)} bytes, the shortest is {_MIN}",
                       StatusCode.PROTOCOL_ID_ERROR)
    head = bytes(payload[:4])
    if head not in (_ID_ASCII, _ID_EBCDIC):
        raise FapError(f"not an ID: StrucId is {head!r}", StatusCode.PROTOCOL_ID_ERROR)
    size = min(len(payload), _FULL)
    v = _LAYOUT[big_endian].unpack(bytes(payload[:size]).ljust(_FULL, b"\0"))
    ccsid = v[12] if size >= 102 else ASCII_CCSID
    ebcdic = head == _ID_EBCDIC or ccsid in EBCDIC_CCSIDS

    def text(raw: bytes) -> str:
        return text_of(raw, ebcdic).rstrip(b" \0").decode("latin-1")

    base = InitialData(channel_name=text(v[9]), fap_level=v[1], cap_flags1=v[2],
                       ecap_flags1=v[3], ini_err_flags1=v[4], batch_size=v[5],
                       max_trans_size=v[6], max_msg_len=v[7], seq_wrap=v[8],
                       encoding=ENC_S390 if big_endian else ENC_NATIVE)
    if size < 102:
        return base
    base = replace(base, cap_flags2=v[10], ecap_flags2=v[11], ccsid=v[12],
                   qmgr_name=text(v[13]), heartbeat_interval=v[14])
    if size < 208:
        return base
    return replace(base, ini_err_flags2=v[16], hdr_comp_list=v[17], msg_comp_list=v[18],
                   ssl_key_reset=v[19], conv_per_socket=v[20], cap_flags3=v[21], ecap_flags3=v[22],
                   process_id=v[23], thread_id=v[24], trace_id=v[25], product_id=text(v[26]),
                   qmgr_id=text(v[27]))


def receive_timeout(hbint: int) -> float | None:
    """Seconds of silence after which a connection whose agreed heartbeat interval is
    ``hbint`` seconds is taken as broken: IBM's default receive timeout, twice the
    interval under 60 seconds, else the interval plus 60; None (wait for ever) when no
    heartbeats flow (``hbint`` 0)."""
    if hbint <= 0:
        return None
    return 2.0 * hbint if hbint < 60 else hbint + 60.0


def negotiate(mine: InitialData, theirs: InitialData) -> InitialData:
    """The values both ends run with: ``mine`` with each negotiable value agreed.

    * batch size, maximum message length, maximum transmission size, FAP level and
      conversations per socket: the lower of the two (IBM: BATCHSZ and MAXMSGL "the lower
      value is used"; the others ours, the same way);
    * heartbeat interval: the larger of the two, as IBM's HBINT attribute documents it for
      message channels ("the value used is the larger of the values specified at the
      sending side and the receiving side"), so neither end sends heartbeats more often
      than it asked for; 0 only when both ends ask for 0;
    * NPMSPEED(FAST): only when both ends offer it;
    * SEQWRAP is not negotiable: unequal values are refused.

    The result's ``ini_err_flags1`` names each value that differs from what ``theirs``
    offered, as the answering end sets it in the ID it sends back.

    :raises NegotiationError: unequal SEQWRAP (status WRAP_VALUE_ERROR); a batch size,
        message length or FAP level below 1, or a transmission size below
        :data:`MIN_TRANS_SIZE` (status NEGOTIATION_FAILED).
    """
    if mine.seq_wrap != theirs.seq_wrap:
        raise NegotiationError(
            f"SEQWRAP differs: {mine.seq_wrap} here, {theirs.seq_wrap} at the other end",
            StatusCode.WRAP_VALUE_ERROR, IniErrFlags1.SEQ_WRAP_VALUE)
    agreed = replace(
        mine,
        batch_size=min(mine.batch_size, theirs.batch_size),
        max_msg_len=min(mine.max_msg_len, theirs.max_msg_len),
        max_trans_size=min(mine.max_trans_size, theirs.max_trans_size),
        fap_level=min(mine.fap_level, theirs.fap_level),
        conv_per_socket=min(mine.conv_per_socket, theirs.conv_per_socket),
        heartbeat_interval=max(mine.heartbeat_interval, theirs.heartbeat_interval),
        ini_err_flags2=0,
    ).with_fast(mine.fast and theirs.fast)
    _check_agreed(agreed)
    flags = IniErrFlags1.NONE
    for flag, name in _FLAGGED:
        if getattr(agreed, name) != getattr(theirs, name):
            flags |= flag
    return replace(agreed, ini_err_flags1=int(flags))


_FLAGGED = (
    (IniErrFlags1.MAX_MSG_PER_BATCH, "batch_size"),
    (IniErrFlags1.MAX_MSG_SIZE, "max_msg_len"),
    (IniErrFlags1.MAX_TRANSMISSION_SIZE, "max_trans_size"),
    (IniErrFlags1.FAP_LEVEL, "fap_level"),
    (IniErrFlags1.HEARTBEAT_INTERVAL, "heartbeat_interval"),
)


def _check_agreed(agreed: InitialData) -> None:
    for name, flag, least in (("batch_size", IniErrFlags1.MAX_MSG_PER_BATCH, 1),
                              ("max_msg_len", IniErrFlags1.MAX_MSG_SIZE, 1),
                              ("fap_level", IniErrFlags1.FAP_LEVEL, 1),
                              ("max_trans_size", IniErrFlags1.MAX_TRANSMISSION_SIZE,
                               MIN_TRANS_SIZE)):
        value = getattr(agreed, name)
        if value < least:
            raise NegotiationError(f"negotiated {name} {value} is below {least}",
                                   StatusCode.NEGOTIATION_FAILED, flag)
