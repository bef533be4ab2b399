"""The structures of MQCONNX that describe a client connection: MQCD, MQSCO, MQCSP, MQCNO.

They use the machinery of :mod:`tpfemu.mq.structs` (pymqi's interface, IBM's initial
values and field names, checked assignment, ``pack``/``unpack``)::

    cd = CD(ChannelName="APP.SVRCONN", ConnectionName="127.0.0.1(1414)",
            ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP)
    csp = CSP(); csp.CSPUserId = "app"; csp.CSPPassword = "secret"
    qm.connect_with_options("TPF1", cd=cd, csp=csp)

* :class:`CD` is the channel definition (``cmqxc.h``), Versions 1-12, IBM's ``MQCD_DEFAULT``
  values (a sender channel over LU 6.2 until told otherwise, as pymqi's ``CD()``). It
  starts with ChannelName, not a StrucId.
* :class:`SCO` is the TLS configuration (key repository, certificate label), Versions 1-5.
* :class:`CSP` carries user and password. In C they are pointers; here, as in pymqi and
  ibmmq, they are set as ``CSPUserId`` and ``CSPPassword`` (text or bytes), which also
  set ``AuthenticationType`` and the lengths. A password is never part of ``repr``.
* :class:`CNO` is the connect-options structure (``Options``: ``MQCNO_*``), Versions 1-5.

Pointers take 4 bytes, the wire layout of :mod:`tpfemu.mq.structs`; the lengths are
IBM's for that layout (``MQCD_LENGTH_*`` etc.).
"""

from __future__ import annotations

from typing import Any

from tpfemu.mq import cmqc as CMQC
from tpfemu.mq import cmqxc as CMQXC
from tpfemu.mq.fields import Byte, Char, Long, Longs
from tpfemu.mq.structs import MQStruct

__all__ = ["CD", "CNO", "CSP", "SCO"]


class CD(MQStruct):
    """MQCD, the channel definition (pymqi ``CD``): 984 bytes at Version 1, 1944 at 12."""

    STRUC_NAME = "MQCD"
    HAS_STRUC_ID = False
    LENGTHS = {v: getattr(CMQXC, f"MQCD_LENGTH_{v}") for v in range(1, 13)}
    FIELDS = (
        Char("ChannelName", CMQC.MQ_CHANNEL_NAME_LENGTH),
        Long("Version", CMQXC.MQCD_VERSION_6),
        Long("ChannelType", CMQXC.MQCHT_SENDER),
        Long("TransportType", CMQXC.MQXPT_LU62),
        Char("Desc", CMQC.MQ_CHANNEL_DESC_LENGTH),
        Char("QMgrName", CMQC.MQ_Q_MGR_NAME_LENGTH),
        Char("XmitQName", CMQC.MQ_Q_NAME_LENGTH),
        Char("ShortConnectionName", CMQC.MQ_SHORT_CONN_NAME_LENGTH),
        Char("MCAName", CMQC.MQ_MCA_NAME_LENGTH),
        Char("ModeName", CMQC.MQ_MODE_NAME_LENGTH),
        Char("TpName", CMQC.MQ_TP_NAME_LENGTH),
        Long("BatchSize", 50),
        Long("DiscInterval", 6000),
        Long("ShortRetryCount", 10),
        Long("ShortRetryInterval", 60),
        Long("LongRetryCount", 999_999_999),
        Long("LongRetryInterval", 1200),
        Char("SecurityExit", CMQC.MQ_EXIT_NAME_LENGTH),
        Char("MsgExit", CMQC.MQ_EXIT_NAME_LENGTH),
        Char("SendExit", CMQC.MQ_EXIT_NAME_LENGTH),
        Char("ReceiveExit", CMQC.MQ_EXIT_NAME_LENGTH),
        Long("SeqNumberWrap", 999_999_999),
        Long("MaxMsgLength", 4_194_304),
        Long("PutAuthority", CMQXC.MQPA_DEFAULT),
        Long("DataConversion", CMQXC.MQCDC_NO_SENDER_CONVERSION),
        Char("SecurityUserData", CMQC.MQ_EXIT_DATA_LENGTH),
        Char("MsgUserData", CMQC.MQ_EXIT_DATA_LENGTH),
        Char("SendUserData", CMQC.MQ_EXIT_DATA_LENGTH),
        Char("ReceiveUserData", CMQC.MQ_EXIT_DATA_LENGTH),
        Char("UserIdentifier", CMQC.MQ_USER_ID_LENGTH, since=2),
        Char("Password", 12, since=2),
        Char("MCAUserIdentifier", CMQC.MQ_USER_ID_LENGTH, since=2),
        Long("MCAType", CMQXC.MQMCAT_PROCESS, since=2),
        Char("ConnectionName", CMQC.MQ_CONN_NAME_LENGTH, since=2),
        Char("RemoteUserIdentifier", CMQC.MQ_USER_ID_LENGTH, since=2),
        Char("RemotePassword", 12, since=2),
        Char("MsgRetryExit", CMQC.MQ_EXIT_NAME_LENGTH, since=3),
        Char("MsgRetryUserData", CMQC.MQ_EXIT_DATA_LENGTH, since=3),
        Long("MsgRetryCount", 10, since=3),
        Long("MsgRetryInterval", 1000, since=3),
        Long("HeartbeatInterval", 300, since=4),
        Long("BatchInterval", 0, since=4),
        Long("NonPersistentMsgSpeed", CMQXC.MQNPMS_FAST, since=4),
        Long("StrucLength", CMQXC.MQCD_CURRENT_LENGTH, since=4),
        Long("ExitNameLength", CMQC.MQ_EXIT_NAME_LENGTH, since=4),
        Long("ExitDataLength", CMQC.MQ_EXIT_DATA_LENGTH, since=4),
        Long("MsgExitsDefined", 0, since=4),
        Long("SendExitsDefined", 0, since=4),
        Long("ReceiveExitsDefined", 0, since=4),
        Long("MsgExitPtr", 0, since=4),
        Long("MsgUserDataPtr", 0, since=4),
        Long("SendExitPtr", 0, since=4),
        Long("SendUserDataPtr", 0, since=4),
        Long("ReceiveExitPtr", 0, since=4),
        Long("ReceiveUserDataPtr", 0, since=4),
        Long("ClusterPtr", 0, since=5),
        Long("ClustersDefined", 0, since=5),
        Long("NetworkPriority", 0, since=5),
        Long("LongMCAUserIdLength", 0, since=6),
        Long("LongRemoteUserIdLength", 0, since=6),
        Long("LongMCAUserIdPtr", 0, since=6),
        Long("LongRemoteUserIdPtr", 0, since=6),
        Byte("MCASecurityId", CMQC.MQ_SECURITY_ID_LENGTH, since=6),
        Byte("RemoteSecurityId", CMQC.MQ_SECURITY_ID_LENGTH, since=6),
        Char("SSLCipherSpec", CMQC.MQ_SSL_CIPHER_SPEC_LENGTH, since=7),
        Long("SSLPeerNamePtr", 0, since=7),
        Long("SSLPeerNameLength", 0, since=7),
        Long("SSLClientAuth", CMQXC.MQSCA_REQUIRED, since=7),
        Long("KeepAliveInterval", CMQXC.MQKAI_AUTO, since=7),
        Char("LocalAddress", CMQC.MQ_LOCAL_ADDRESS_LENGTH, since=7),
        Long("BatchHeartbeat", 0, since=7),
        Longs("HdrCompList", 2, (CMQXC.MQCOMPRESS_NONE, CMQXC.MQCOMPRESS_NOT_AVAILABLE),
              since=8),
        Longs("MsgCompList", 16, (CMQXC.MQCOMPRESS_NONE,) + (CMQXC.MQCOMPRESS_NOT_AVAILABLE,)
              * 15, since=8),
        Long("CLWLChannelRank", 0, since=8),
        Long("CLWLChannelPriority", 0, since=8),
        Long("CLWLChannelWeight", 50, since=8),
        Long("ChannelMonitoring", CMQC.MQMON_OFF, since=8),
        Long("ChannelStatistics", CMQC.MQMON_OFF, since=8),
        Long("SharingConversations", 10, since=9),
        Long("PropertyControl", CMQC.MQPROP_COMPATIBILITY, since=9),
        Long("MaxInstances", 999_999_999, since=9),
        Long("MaxInstancesPerClient", 999_999_999, since=9),
        Long("ClientChannelWeight", 0, since=9),
        Long("ConnectionAffinity", CMQXC.MQCAFTY_PREFERRED, since=9),
        Long("BatchDataLimit", 5000, since=10),
        Long("UseDLQ", CMQC.MQUSEDLQ_YES, since=10),
        Long("DefReconnect", CMQXC.MQRCN_NO, since=10),
        Char("CertificateLabel", CMQC.MQ_CERT_LABEL_LENGTH, since=11),
        Long("SPLProtection", CMQXC.MQSPL_PASSTHRU, since=12),
    )


class SCO(MQStruct):
    """MQSCO, the TLS configuration options (pymqi ``SCO``): 532 bytes at Version 1, 624
    at 5. ``KeyRepository`` names the key store; ``CertificateLabel`` the certificate."""

    STRUC_NAME = "MQSCO"
    LENGTHS = {v: getattr(CMQC, f"MQSCO_LENGTH_{v}") for v in range(1, 6)}
    FIELDS = (
        Char("StrucId", 4, CMQC.MQSCO_STRUC_ID),
        Long("Version", CMQC.MQSCO_VERSION_1),
        Char("KeyRepository", CMQC.MQ_SSL_KEY_REPOSITORY_LENGTH),
        Char("CryptoHardware", CMQC.MQ_SSL_CRYPTO_HARDWARE_LENGTH),
        Long("AuthInfoRecCount", 0),
        Long("AuthInfoRecOffset", 0),
        Long("AuthInfoRecPtr", 0),
        Long("KeyResetCount", CMQC.MQSCO_RESET_COUNT_DEFAULT, since=2),
        Long("FipsRequired", 0, since=2),
        Longs("EncryptionPolicySuiteB", 4, (CMQC.MQ_SUITE_B_NONE, 0, 0, 0), since=3),
        Long("CertificateValPolicy", CMQC.MQ_CERT_VAL_POLICY_DEFAULT, since=4),
        Char("CertificateLabel", CMQC.MQ_CERT_LABEL_LENGTH, since=5),
    )


def _text_bytes(owner: str, name: str, value: Any) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    raise TypeError(f"{owner}.{name} must be str or bytes, not {type(value).__name__}")


class CSP(MQStruct):
    """MQCSP, the security parameters (pymqi/ibmmq ``CSP``): 48 bytes at Version 1.

    ``CSPUserId`` and ``CSPPassword`` hold the user and password (the C structure holds
    pointers to them, here 0); setting a user makes ``AuthenticationType``
    MQCSP_AUTH_USER_ID_AND_PWD and fills the lengths.
    """

    STRUC_NAME = "MQCSP"
    LENGTHS = {1: CMQC.MQCSP_LENGTH_1}
    FIELDS = (
        Char("StrucId", 4, CMQC.MQCSP_STRUC_ID),
        Long("Version", CMQC.MQCSP_VERSION_1),
        Long("AuthenticationType", CMQC.MQCSP_AUTH_NONE),
        Byte("Reserved1", 4),
        Long("CSPUserIdPtr", 0),
        Long("CSPUserIdOffset", 0),
        Long("CSPUserIdLength", 0),
        Byte("Reserved2", 8),
        Long("CSPPasswordPtr", 0),
        Long("CSPPasswordOffset", 0),
        Long("CSPPasswordLength", 0),
    )

    def set(self, **kw: Any) -> None:
        """Set fields by keyword, ``CSPUserId`` and ``CSPPassword`` included."""
        given = {k: kw.pop(k) for k in ("CSPUserId", "CSPPassword") if k in kw}
        credentials = {k: b"" if v is None else _text_bytes("MQCSP", k, v)
                       for k, v in given.items()}
        super().set(**kw)  # (checked before anything is set: a refusal changes nothing)
        for name, value in credentials.items():
            setattr(self, name, value)

    @property
    def CSPUserId(self) -> bytes:  # noqa: N802 - IBM's field name
        """The user identifier (bytes; b"" when none)."""
        return self.__dict__.get("_user", b"")

    @CSPUserId.setter
    def CSPUserId(self, value: Any) -> None:  # noqa: N802 - IBM's field name
        data = b"" if value is None else _text_bytes("MQCSP", "CSPUserId", value)
        self.__dict__["_user"] = data
        object.__setattr__(self, "CSPUserIdLength", len(data))
        object.__setattr__(self, "AuthenticationType", CMQC.MQCSP_AUTH_USER_ID_AND_PWD
                           if data else CMQC.MQCSP_AUTH_NONE)

    @property
    def CSPPassword(self) -> bytes:  # noqa: N802 - IBM's field name
        """The password (bytes; b"" when none)."""
        return self.__dict__.get("_password", b"")

    @CSPPassword.setter
    def CSPPassword(self, value: Any) -> None:  # noqa: N802 - IBM's field name
        data = b"" if value is None else _text_bytes("MQCSP", "CSPPassword", value)
        self.__dict__["_password"] = data
        object.__setattr__(self, "CSPPasswordLength", len(data))


class CNO(MQStruct):
    """MQCNO, the connect options (ibmmq ``CNO``): 12 bytes at Version 1, 188 at 5.
    ``Options`` takes the MQCNO_* values (bindings, handle sharing, reconnect)."""

    STRUC_NAME = "MQCNO"
    LENGTHS = {v: getattr(CMQC, f"MQCNO_LENGTH_{v}") for v in range(1, 6)}
    FIELDS = (
        Char("StrucId", 4, CMQC.MQCNO_STRUC_ID),
        Long("Version", CMQC.MQCNO_VERSION_1),
        Long("Options", CMQC.MQCNO_NONE),
        Long("ClientConnOffset", 0, since=2),
        Long("ClientConnPtr", 0, since=2),
        Byte("ConnTag", 128, CMQC.MQCT_NONE, since=3),
        Long("SSLConfigPtr", 0, since=4),
        Long("SSLConfigOffset", 0, since=4),
        Byte("ConnectionId", CMQC.MQ_CONNECTION_ID_LENGTH, CMQC.MQCONNID_NONE, since=5),
        Long("SecurityParmsOffset", 0, since=5),
        Long("SecurityParmsPtr", 0, since=5),
    )
