"""MQ headers that travel inside messages: MQTM, MQTMC2, MQXQH, MQDLH.

They use the machinery of :mod:`tpfemu.mq.structs` (pymqi's interface, IBM's initial
values and byte layouts):

* :class:`TM` is the trigger message the queue manager puts on an initiation queue
  (message Format ``MQFMT_TRIGGER``, 684 bytes). On TPF it is also what user exit CUIR
  receives after the MQMD on data level 0.
* :class:`TMC2` is its character form, which a trigger monitor passes to the program it
  starts (``runmqtrm`` runs ``ApplId "<MQTMC2>" EnvData``); :meth:`TMC2.from_tm` builds it.
* :class:`XQH` prefixes a message on a transmission queue (Format ``MQFMT_XMIT_Q_HEADER``):
  the destination and the original message's MQMD version 1, 428 bytes in all.
* :class:`DLH` prefixes a message on the dead-letter queue (Format
  ``MQFMT_DEAD_LETTER_HEADER``): why it is there and where it was going, 172 bytes.
"""

from __future__ import annotations

from tpfemu.mq import cmqc as CMQC
from tpfemu.mq.fields import Char, Digits, Long, Nested
from tpfemu.mq.structs import MD, MQStruct

__all__ = ["DLH", "TM", "TMC2", "XQH"]


class TM(MQStruct):
    """MQTM, the trigger message (pymqi ``TM``): 684 bytes.

    The queue manager fills it from the triggered queue (QName, TriggerData) and from the
    process definition the queue names (ProcessName, ApplType, ApplId, EnvData, UserData).
    Initial values: blank character fields and ApplType 0.
    """

    STRUC_NAME = "MQTM"
    LENGTHS = {1: CMQC.MQTM_LENGTH_1}
    FIELDS = (
        Char("StrucId", 4, CMQC.MQTM_STRUC_ID),
        Long("Version", CMQC.MQTM_VERSION_1),
        Char("QName", CMQC.MQ_Q_NAME_LENGTH),
        Char("ProcessName", CMQC.MQ_PROCESS_NAME_LENGTH),
        Char("TriggerData", CMQC.MQ_TRIGGER_DATA_LENGTH),
        Long("ApplType", 0),
        Char("ApplId", CMQC.MQ_PROCESS_APPL_ID_LENGTH),
        Char("EnvData", CMQC.MQ_PROCESS_ENV_DATA_LENGTH),
        Char("UserData", CMQC.MQ_PROCESS_USER_DATA_LENGTH),
    )


class TMC2(MQStruct):
    """MQTMC2, the trigger message in character form (pymqi ``TMC2``): 732 bytes.

    Every field is characters: Version is ``b"   2"`` (``b"   1"``, without QMgrName, is
    684 bytes; an int assigned to Version is written right-justified), and ApplType is
    always blanks, whatever the MQTM said (IBM: "This field always contains blanks").
    """

    STRUC_NAME = "MQTMC2"
    LENGTHS = {1: CMQC.MQTMC2_LENGTH_1, 2: CMQC.MQTMC2_LENGTH_2}
    FIELDS = (
        Char("StrucId", 4, CMQC.MQTMC_STRUC_ID),
        Digits("Version", 4, CMQC.MQTMC_VERSION_2),
        Char("QName", CMQC.MQ_Q_NAME_LENGTH),
        Char("ProcessName", CMQC.MQ_PROCESS_NAME_LENGTH),
        Char("TriggerData", CMQC.MQ_TRIGGER_DATA_LENGTH),
        Char("ApplType", 4),
        Char("ApplId", CMQC.MQ_PROCESS_APPL_ID_LENGTH),
        Char("EnvData", CMQC.MQ_PROCESS_ENV_DATA_LENGTH),
        Char("UserData", CMQC.MQ_PROCESS_USER_DATA_LENGTH),
        Char("QMgrName", CMQC.MQ_Q_MGR_NAME_LENGTH, since=2),
    )

    @classmethod
    def from_tm(cls, tm: TM, qmgr_name: bytes | str = b"") -> TMC2:
        """The MQTMC2 a trigger monitor passes to the application it starts for ``tm``.

        As IBM's trigger monitors build it: the character fields of the MQTM are copied,
        Version becomes ``"   2"``, ApplType blanks, and QMgrName is the queue manager the
        trigger monitor serves.
        """
        if not isinstance(tm, TM):
            raise TypeError(f"TMC2.from_tm needs a TM, not {type(tm).__name__}")
        return cls(
            QName=tm.QName,
            ProcessName=tm.ProcessName,
            TriggerData=tm.TriggerData,
            ApplId=tm.ApplId,
            EnvData=tm.EnvData,
            UserData=tm.UserData,
            QMgrName=qmgr_name,
        )


class XQH(MQStruct):
    """MQXQH, the transmission-queue header: 104 bytes, then the original MQMD v1 (428).

    RemoteQName and RemoteQMgrName name the destination at the far end; MsgDesc (also
    reachable as ``.md``) is the message's own descriptor, a version-1 :class:`MD`. The
    message on the transmission queue has Format ``MQFMT_XMIT_Q_HEADER`` in its outer MQMD.
    pymqi's XQH stops at 104 bytes; here the embedded MQMD is part of the structure, as
    in C.
    """

    STRUC_NAME = "MQXQH"
    LENGTHS = {1: CMQC.MQXQH_LENGTH_1}
    FIELDS = (
        Char("StrucId", 4, CMQC.MQXQH_STRUC_ID),
        Long("Version", CMQC.MQXQH_VERSION_1),
        Char("RemoteQName", CMQC.MQ_Q_NAME_LENGTH),
        Char("RemoteQMgrName", CMQC.MQ_Q_MGR_NAME_LENGTH),
        Nested("MsgDesc", MD, CMQC.MQMD_VERSION_1),
    )

    @property
    def md(self) -> MD:
        """The embedded message descriptor (``MsgDesc``)."""
        return self.MsgDesc

    @md.setter
    def md(self, value: MD) -> None:
        self.MsgDesc = value

    def get_embedded_md(self, data: bytes | bytearray | memoryview | None = None) -> MD:
        """The embedded message descriptor (the name IBM's ``ibmmq`` package uses).

        With ``data`` (a whole message from a transmission queue, as ibmmq's
        ``get_embedded_md(msg)``), the version-1 MQMD at offset 104 of that message;
        without, this header's own ``MsgDesc``.

        :raises ValueError: ``data`` is shorter than an MQXQH or holds no MQMD there.
        """
        if data is None:
            return self.MsgDesc
        start = CMQC.MQXQH_LENGTH_1 - CMQC.MQMD_LENGTH_1
        view = memoryview(data).cast("B")
        if len(view) < CMQC.MQXQH_LENGTH_1:
            raise ValueError(f"an MQXQH is {CMQC.MQXQH_LENGTH_1} bytes; got {len(view)}")
        return MD().unpack(view[start:CMQC.MQXQH_LENGTH_1])


class DLH(MQStruct):
    """MQDLH, the dead-letter header: 172 bytes.

    Reason is an MQRC_* or MQFB_* value (why the message could not be delivered);
    DestQName/DestQMgrName where it was going; Encoding, CodedCharSetId and Format describe
    the data after the header (copied from the original MQMD, whose Format becomes
    ``MQFMT_DEAD_LETTER_HEADER``). When the queue manager itself dead-letters a message,
    PutApplType is MQAT_QMGR and PutApplName its name. Initial values: Reason MQRC_NONE,
    Encoding 0, CodedCharSetId MQCCSI_UNDEFINED, Format MQFMT_NONE, PutApplType 0, blanks.
    """

    STRUC_NAME = "MQDLH"
    LENGTHS = {1: CMQC.MQDLH_LENGTH_1}
    FIELDS = (
        Char("StrucId", 4, CMQC.MQDLH_STRUC_ID),
        Long("Version", CMQC.MQDLH_VERSION_1),
        Long("Reason", CMQC.MQRC_NONE),
        Char("DestQName", CMQC.MQ_Q_NAME_LENGTH),
        Char("DestQMgrName", CMQC.MQ_Q_MGR_NAME_LENGTH),
        Long("Encoding", 0),
        Long("CodedCharSetId", CMQC.MQCCSI_UNDEFINED),
        Char("Format", CMQC.MQ_FORMAT_LENGTH, CMQC.MQFMT_NONE),
        Long("PutApplType", 0),
        Char("PutApplName", CMQC.MQ_PUT_APPL_NAME_LENGTH),
        Char("PutDate", CMQC.MQ_PUT_DATE_LENGTH),
        Char("PutTime", CMQC.MQ_PUT_TIME_LENGTH),
    )
