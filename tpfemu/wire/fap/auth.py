"""Who the client is: USERID_DATA (UID) and CONAUTH_INFO (CAUT) bodies (issue 26).

Layouts as tshark's dissector reads them (``reference/channels-bridge-clusters.md``
§1.6):

* UID: ``'UID '``, UserId 12, Password 12 (28 bytes); the 132-byte form adds LongUserId
  64 and a 40-byte security id. The dissector tells the two apart by the segment length.
* CAUT: ``'CAUT'``, AuthType, UsrMaxLen, PwdMaxLen, UsrLength, PwdLength (u32 each, TSH
  byte order), then the user id and the password, unpadded.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from tpfemu.wire.fap.byteorder import text_of, text_to
from tpfemu.wire.fap.constants import StatusCode
from tpfemu.wire.fap.errors import FapError

__all__ = ["AUTH_USER_ID_AND_PWD", "ConnAuth", "UserIdData", "decode_caut", "decode_uid",
           "encode_caut", "encode_uid"]

#: MQCSP_AUTH_USER_ID_AND_PWD: CAUT's AuthType for a user id and password.
AUTH_USER_ID_AND_PWD = 1
_CAUT = {False: struct.Struct("<4siiiii"), True: struct.Struct(">4siiiii")}
_UID_SHORT, _UID_LONG = 28, 132


@dataclass(frozen=True, slots=True)
class UserIdData:
    """A UID body: the 12-character user id and password, and, in the long form, the
    64-character user id and the 40-byte security id."""

    user: str
    password: str = ""
    long_user: str | None = None
    security_id: bytes = bytes(40)


@dataclass(frozen=True, slots=True)
class ConnAuth:
    """A CAUT body: the authentication type, the user id and the password."""

    user: str
    password: str
    auth_type: int = AUTH_USER_ID_AND_PWD
    user_max: int = 1024
    password_max: int = 256


def _field(text: str, size: int, what: str, ebcdic: bool) -> bytes:
    raw = text.encode("latin-1", "replace")
    if len(raw) > size:
        raise ValueError(f"UID {what} is longer than {size} characters")
    return text_to(raw.ljust(size, b" "), ebcdic)


def _text(raw: bytes, ebcdic: bool) -> str:
    return text_of(raw, ebcdic).rstrip(b" \0").decode("latin-1")


def encode_uid(uid: UserIdData, *, ebcdic: bool = False) -> bytes:
    """A UID body: 28 bytes, or 132 when ``uid.long_user`` is set.

    :raises ValueError: a field longer than its slot.
    """
    out = (text_to(b"UID ", ebcdic) + _field(uid.user, 12, "user id", ebcdic)
           + _field(uid.password, 12, "password", ebcdic))
    if uid.long_user is not None:
        if len(uid.security_id) > 40:
            raise ValueError("UID security id is longer than 40 bytes")
        out += _field(uid.long_user, 64, "long user id", ebcdic) + uid.security_id.ljust(40, b"\0")
    return out


def decode_uid(payload: bytes, *, ebcdic: bool = False) -> UserIdData:
    """The UID in ``payload`` (28 or 132 bytes).

    :raises FapError: another size (PROTOCOL_LENGTH_ERROR) or no ``UID`` StrucId
        (PROTOCOL_INVALID_DATA).
    """
    if len(payload) not in (_UID_SHORT, _UID_LONG):
        raise FapError(f"UID body is {len(payload)} bytes, expected 28 or 132",
                       StatusCode.PROTOCOL_LENGTH_ERROR)
    raw = bytes(payload)
    sid = raw[:4]
    if sid != b"UID " and text_of(sid, True) != b"UID ":
        raise FapError(f"not a UID: StrucId is {sid!r}", StatusCode.PROTOCOL_INVALID_DATA)
    ebcdic = ebcdic or sid != b"UID "
    user, password = _text(raw[4:16], ebcdic), _text(raw[16:28], ebcdic)
    if len(raw) == _UID_SHORT:
        return UserIdData(user, password)
    return UserIdData(user, password, _text(raw[28:92], ebcdic), raw[92:132])


def encode_caut(auth: ConnAuth, *, big_endian: bool = False, ebcdic: bool = False) -> bytes:
    """A CAUT body.

    :raises ValueError: a user id or password longer than its announced maximum.
    """
    user = text_to(auth.user.encode("latin-1", "replace"), ebcdic)
    password = text_to(auth.password.encode("latin-1", "replace"), ebcdic)
    if len(user) > auth.user_max or len(password) > auth.password_max:
        raise ValueError("CAUT user id or password is longer than its maximum")
    return _CAUT[big_endian].pack(text_to(b"CAUT", ebcdic), auth.auth_type, auth.user_max,
                                  auth.password_max, len(user), len(password)) + user + password


def decode_caut(payload: bytes, big_endian: bool, *, ebcdic: bool = False) -> ConnAuth:
    """The CAUT in ``payload``.

    :raises FapError: too short, no ``CAUT`` StrucId, or lengths that do not fit the
        body or exceed their maximums.
    """
    head = _CAUT[big_endian]
    if len(payload) < head.size:
        raise FapError(f"CAUT body is {len(payload)} bytes, shorter than its 24-byte header",
                       StatusCode.PROTOCOL_LENGTH_ERROR)
    sid, auth_type, user_max, pwd_max, user_len, pwd_len = head.unpack_from(payload)
    if sid != b"CAUT" and text_of(sid, True) != b"CAUT":
        raise FapError(f"not a CAUT: StrucId is {sid!r}", StatusCode.PROTOCOL_INVALID_DATA)
    ebcdic = ebcdic or sid != b"CAUT"
    if (min(user_len, pwd_len) < 0 or user_len > user_max or pwd_len > pwd_max
            or head.size + user_len + pwd_len != len(payload)):
        raise FapError(f"CAUT lengths (user {user_len}/{user_max}, password "
                       f"{pwd_len}/{pwd_max}) do not fit a {len(payload)}-byte body",
                       StatusCode.PROTOCOL_LENGTH_ERROR)
    raw = bytes(payload)
    user = text_of(raw[head.size:head.size + user_len], ebcdic).decode("latin-1")
    password = text_of(raw[head.size + user_len:], ebcdic).decode("latin-1")
    return ConnAuth(user, password, auth_type, user_max, pwd_max)
