"""MQ's wire format (FAP): pure functions from bytes to structures and back, no sockets.

One module per concern:

* :mod:`.constants` segment types, control flags, status codes, ID flags;
* :mod:`.errors` :class:`FapError` (with the status to send back), :class:`NegotiationError`;
* :mod:`.tsh` the segment header, :class:`Segment`, :func:`encode_segment`,
  :class:`FrameReader` (bounded framing of a byte stream);
* :mod:`.initial` the ID (:class:`InitialData`, :func:`encode_id`, :func:`decode_id`,
  :func:`negotiate`);
* :mod:`.control` STATUS, RESET, RESYNC, PING, HEARTBEAT bodies and segments;
* :mod:`.message` MESSAGE_DATA (MSH + MQXQH + MQMD [+ MQMDE] + data), segmentation and
  reassembly;
* :mod:`.verbs` the client verbs of a SVRCONN conversation (:class:`Verb`,
  :func:`encode_verb`, :func:`decode_verb`);
* :mod:`.auth` USERID_DATA and CONAUTH_INFO (user id and password);
* :mod:`.byteorder` MQ structures in either byte order and character set.

Facts: ``reference/channels-bridge-clusters.md`` §1; the oracle is tshark's MQ dissector.
"""

from tpfemu.wire.fap.auth import (
    AUTH_USER_ID_AND_PWD,
    ConnAuth,
    UserIdData,
    decode_caut,
    decode_uid,
    encode_caut,
    encode_uid,
)
from tpfemu.wire.fap.constants import (
    ASCII_CCSID,
    ENC_BIG,
    ENC_NATIVE,
    ENC_S390,
    CapFlags1,
    CapFlags2,
    CapFlags3,
    ControlFlags,
    ControlFlags2,
    IniErrFlags1,
    IniErrFlags2,
    SegmentType,
    StatusCode,
)
from tpfemu.wire.fap.control import (
    close_segment,
    decode_ping,
    decode_reset,
    decode_resync,
    decode_status,
    encode_ping,
    encode_reset,
    encode_resync,
    encode_status,
    heartbeat_segment,
    reset_segment,
    resync_segment,
    status_segment,
)
from tpfemu.wire.fap.errors import FapError, NegotiationError
from tpfemu.wire.fap.initial import (
    DEFAULT_FAP_LEVEL,
    MIN_TRANS_SIZE,
    InitialData,
    decode_id,
    encode_id,
    id_size,
    negotiate,
)
from tpfemu.wire.fap.message import (
    MDE,
    MSH_SIZE,
    XMIT_OVERHEAD,
    MessageHeader,
    Reassembler,
    TransmittedMessage,
    build_transmission,
    decode_message,
    decode_msh,
    encode_message,
    encode_message_segment,
    split_message,
)
from tpfemu.wire.fap.tsh import (
    HEADER_SIZE,
    MAX_HEADER,
    FrameReader,
    Segment,
    decode_segment,
    encode_segment,
)
from tpfemu.wire.fap.verbs import (
    API_HEADER_SIZE,
    CONN_SIZES,
    VERB_TYPES,
    ApiHeader,
    ConnBody,
    InqBody,
    Verb,
    decode_api_header,
    decode_verb,
    encode_api_header,
    encode_verb,
)

__all__ = [
    "API_HEADER_SIZE", "AUTH_USER_ID_AND_PWD", "CONN_SIZES", "VERB_TYPES", "ApiHeader",
    "ConnAuth", "ConnBody", "InqBody", "UserIdData", "Verb", "decode_api_header",
    "decode_caut", "decode_uid", "decode_verb", "encode_api_header", "encode_caut",
    "encode_uid", "encode_verb",
    "ASCII_CCSID", "DEFAULT_FAP_LEVEL", "ENC_BIG", "ENC_NATIVE", "ENC_S390", "HEADER_SIZE",
    "MAX_HEADER", "MDE", "MIN_TRANS_SIZE", "MSH_SIZE", "XMIT_OVERHEAD",
    "CapFlags1", "CapFlags2", "CapFlags3", "ControlFlags", "ControlFlags2", "FapError",
    "FrameReader", "IniErrFlags1", "IniErrFlags2", "InitialData", "MessageHeader",
    "NegotiationError", "Reassembler", "Segment", "SegmentType", "StatusCode",
    "TransmittedMessage", "build_transmission", "close_segment", "decode_id",
    "decode_message", "decode_msh", "decode_ping", "decode_reset", "decode_resync",
    "decode_segment", "decode_status", "encode_id", "encode_message",
    "encode_message_segment", "encode_ping",
    "encode_reset", "encode_resync", "encode_segment", "encode_status", "heartbeat_segment",
    "id_size", "negotiate", "reset_segment", "resync_segment", "split_message",
    "status_segment",
]  # fmt: skip
