"""The FAP's numbers: segment types, control flags, status codes, ID capability and error
flags, and the encodings and code pages a TSH can announce.

Values are those Wireshark's MQ dissector decodes (``packet-mq.c``) as gathered in
``reference/channels-bridge-clusters.md`` §1.2, §1.3, §1.4 and §1.7.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

__all__ = [
    "ASCII_CCSID", "EBCDIC_CCSIDS", "ENC_BIG", "ENC_NATIVE", "ENC_S390",
    "CapFlags1", "CapFlags2", "CapFlags3", "ControlFlags", "ControlFlags2",
    "IniErrFlags1", "IniErrFlags2", "SegmentType", "StatusCode",
]  # fmt: skip

#: MQENC_NATIVE on x86: integers reversed (little-endian), IEEE floats.
ENC_NATIVE = 0x222
#: MQENC_S390: big-endian integers, S/390 floats; what a TPF peer announces.
ENC_S390 = 0x311
#: Big-endian integers with IEEE floats.
ENC_BIG = 0x111
#: The CCSID our ends announce (ISO 8859-1).
ASCII_CCSID = 819
#: EBCDIC code pages: strings after a TSH announcing one of these are EBCDIC.
EBCDIC_CCSIDS = frozenset({37, 273, 277, 278, 280, 284, 285, 297, 500, 871, 875, 1025, 1047,
                           1140, 1141, 1142, 1143, 1144, 1145, 1146, 1147, 1148, 1149})


class SegmentType(IntEnum):
    """The TSH's segment type (``MQ_TST_*``); a client verb's reply is the request + 0x10."""

    INITIAL_DATA = 0x01
    RESYNC_DATA = 0x02
    RESET_DATA = 0x03
    MESSAGE_DATA = 0x04
    STATUS_DATA = 0x05
    SECURITY_DATA = 0x06
    PING_DATA = 0x07
    USERID_DATA = 0x08
    HEARTBEAT = 0x09
    CONAUTH_INFO = 0x0A
    RENEGOTIATE_DATA = 0x0B
    SOCKET_ACTION = 0x0C
    ASYNC_MESSAGE = 0x0D
    REQUEST_MSGS = 0x0E
    NOTIFICATION = 0x0F
    MQCONN = 0x81
    MQDISC = 0x82
    MQOPEN = 0x83
    MQCLOSE = 0x84
    MQGET = 0x85
    MQPUT = 0x86
    MQPUT1 = 0x87
    MQSET = 0x88
    MQINQ = 0x89
    MQCMIT = 0x8A
    MQBACK = 0x8B
    SPI = 0x8C
    MQSTAT = 0x8D
    MQSUB = 0x8E
    MQSUBRQ = 0x8F
    MQCONN_REPLY = 0x91
    MQDISC_REPLY = 0x92
    MQOPEN_REPLY = 0x93
    MQCLOSE_REPLY = 0x94
    MQGET_REPLY = 0x95
    MQPUT_REPLY = 0x96
    MQPUT1_REPLY = 0x97
    MQSET_REPLY = 0x98
    MQINQ_REPLY = 0x99
    MQCMIT_REPLY = 0x9A
    MQBACK_REPLY = 0x9B
    SPI_REPLY = 0x9C
    MQSTAT_REPLY = 0x9D
    MQSUB_REPLY = 0x9E
    MQSUBRQ_REPLY = 0x9F
    XA_START = 0xA1
    XA_END = 0xA2
    XA_OPEN = 0xA3
    XA_CLOSE = 0xA4
    XA_PREPARE = 0xA5
    XA_COMMIT = 0xA6
    XA_ROLLBACK = 0xA7
    XA_FORGET = 0xA8
    XA_RECOVER = 0xA9
    XA_COMPLETE = 0xAA
    XA_START_REPLY = 0xB1
    XA_END_REPLY = 0xB2
    XA_OPEN_REPLY = 0xB3
    XA_CLOSE_REPLY = 0xB4
    XA_PREPARE_REPLY = 0xB5
    XA_COMMIT_REPLY = 0xB6
    XA_ROLLBACK_REPLY = 0xB7
    XA_FORGET_REPLY = 0xB8
    XA_RECOVER_REPLY = 0xB9
    XA_COMPLETE_REPLY = 0xBA

    @property
    def is_verb(self) -> bool:
        """True for a client verb or its reply (0x81 and above)."""
        return self.value >= 0x81

    @property
    def reply(self) -> SegmentType:
        """The reply type of a client request (the request + 0x10).

        :raises ValueError: this type is not a client request.
        """
        if not (0x81 <= self.value <= 0x8F or 0xA1 <= self.value <= 0xAA):
            raise ValueError(f"{self.name} is not a client request and has no reply type")
        return SegmentType(self.value + 0x10)


class ControlFlags(IntFlag):
    """ControlFlags1 of the TSH."""

    NONE = 0
    CONFIRM_REQ = 0x01
    ERROR = 0x02
    REQUEST_CLOSE = 0x04
    CLOSE_CHANNEL = 0x08
    FIRST = 0x10
    LAST = 0x20
    REQUEST_ACCEPTED = 0x40
    DLQ_USED = 0x80


class ControlFlags2(IntFlag):
    """ControlFlags2 of the TSH (compression and commit-interval bits; we set none)."""

    NONE = 0
    HDRCOMP = 0x01
    MSGCOMP = 0x02
    CSH = 0x04
    CMIT_INTERVAL = 0x08


class StatusCode(IntEnum):
    """The code of a STATUS_DATA segment. 0 (OK) confirms a batch; the others say why the
    sender of the STATUS stops the channel."""

    OK = 0x00
    NO_CHANNEL = 0x01
    CHANNEL_WRONG_TYPE = 0x02
    QM_UNAVAILABLE = 0x03
    MSG_SEQUENCE_ERROR = 0x04
    QM_TERMINATING = 0x05
    CAN_NOT_STORE = 0x06
    USER_CLOSED = 0x07
    TIMEOUT_EXPIRED = 0x08
    TARGET_Q_UNKNOWN = 0x09
    PROTOCOL_SEGMENT_TYPE = 0x0A
    PROTOCOL_LENGTH_ERROR = 0x0B
    PROTOCOL_INVALID_DATA = 0x0C
    PROTOCOL_SEGMENT_ERROR = 0x0D
    PROTOCOL_ID_ERROR = 0x0E
    PROTOCOL_MSH_ERROR = 0x0F
    PROTOCOL_GENERAL = 0x10
    BATCH_FAILURE = 0x11
    MESSAGE_LENGTH_ERROR = 0x12
    SEGMENT_NUMBER_ERROR = 0x13
    SECURITY_FAILURE = 0x14
    WRAP_VALUE_ERROR = 0x15
    CHANNEL_UNAVAILABLE = 0x16
    CLOSED_BY_EXIT = 0x17
    CIPHER_SPEC = 0x18
    PEER_NAME = 0x19
    SSL_CLIENT_CERTIFICATE = 0x1A
    RMT_RSRCS_IN_RECOVERY = 0x1B
    SSL_REFRESHING = 0x1C
    INVALID_HOBJ = 0x1D
    CONV_ID_ERROR = 0x1E
    SOCKET_ACTION_TYPE = 0x1F
    STANDBY_Q_MGR = 0x20
    CCSID_NOT_SUPPORTED = 0xF0
    ENCODING_INVALID = 0xF1
    FAP_LEVEL = 0xF2
    NEGOTIATION_FAILED = 0xF3


class CapFlags1(IntFlag):
    """CapFlags1 of the ID."""

    NONE = 0
    MSG_SEQ = 0x01
    CONVERSION_CAPABLE = 0x02
    SPLIT_MESSAGE = 0x04
    REQUEST_INITIATION = 0x08
    REQUEST_SECURITY = 0x10
    MQREQUEST = 0x20
    SVRCONN_SECURITY = 0x40
    RUNTIME = 0x80


class CapFlags2(IntFlag):
    """CapFlags2 of the ID. FAST_MESSAGES_REQUIRED is how our ends say NPMSPEED(FAST)."""

    NONE = 0
    DIST_LIST_CAPABLE = 0x01
    FAST_MESSAGES_REQUIRED = 0x02
    RESPONDER_CONVERSION = 0x04
    DUAL_UOW = 0x08
    XAREQUEST = 0x10
    XARUNTIME_APP = 0x20
    SPIREQUEST = 0x40
    TRACE_ROUTE_CAPABLE = 0x80


class CapFlags3(IntFlag):
    """CapFlags3 of the ID (FAP level 9 and above)."""

    NONE = 0
    MSG_PROPERTY = 0x01
    MULTICAST = 0x02
    PROP_INT_SEPARATE = 0x04
    MULTIPLEX_SYNCGET = 0x08
    PROT_ALGORITHMS = 0x10
    GEN_CONNTAG = 0x20


class IniErrFlags1(IntFlag):
    """IniErrFlags1 of the ID: the values the answering end could not accept as sent."""

    NONE = 0
    CCSID = 0x01
    ENCODING = 0x02
    MAX_TRANSMISSION_SIZE = 0x04
    FAP_LEVEL = 0x08
    MAX_MSG_SIZE = 0x10
    MAX_MSG_PER_BATCH = 0x20
    SEQ_WRAP_VALUE = 0x40
    HEARTBEAT_INTERVAL = 0x80


class IniErrFlags2(IntFlag):
    """IniErrFlags2 of the ID."""

    NONE = 0
    HDRCOMPLIST = 0x01
    MSGCOMPLIST = 0x02
    SSL_RESET = 0x04
