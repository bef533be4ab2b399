"""Queue name resolution at MQOPEN/MQPUT1: aliases, remote definitions, queue-manager aliases.

IBM references:
- Name resolution ("How the MQOPEN call resolves queue and queue manager names", SSFKSJ
  8.0 q025990_): ObjectQMgrName is resolved before ObjectName; a queue-manager alias is a
  remote definition without RNAME; messages for another queue manager go on a
  transmission queue (USAGE XMITQ) prefixed by an MQXQH (mq-semantics.md §3).
- 2001 MQRC_ALIAS_BASE_Q_TYPE_ERROR: the alias resolves to a queue that is not local,
  remote or cluster (e.g. another alias); 2082 the base queue is not known.
- 2087 no route to the queue manager; 2196 XMITQ names no queue; 2091 the transmission
  queue is not a local queue; 2092 it is local but USAGE NORMAL, including "ObjectQMgrName
  specifies the name of a local queue, but it does not have a Usage attribute of
  MQUS_TRANSMISSION" (q041580_ MQRC_XMIT_Q_USAGE_ERROR).
- 2045: input/browse/inquire/set when ObjectQMgrName names a queue-manager alias whose
  RemoteQMgrName is the local queue manager, or when a process/queue-manager object is
  opened with an ObjectQMgrName that is neither blank nor local (q041160_).
- InhibitPut (q103260_): "put operations must be allowed for every definition in the path
  (including any queue manager alias definitions)"; 2051 "for the queue, or for the queue
  to which this queue resolves".
- MQPRI_PRIORITY_AS_Q_DEF takes DEFPRTY from the first definition in the path (§7).
- MQXQH: the embedded MQMD is the message's own descriptor (version 1), the separate MD
  has Format MQFMT_XMIT_Q_HEADER ("MQXMIT  ").
"""

from __future__ import annotations

import pytest
from mq_helpers import depth, raises_mq

import tpfemu.mqi as pymqi
from tpfemu.mq.headers import XQH
from tpfemu.mqi import CMQC

XQH_LEN = CMQC.MQXQH_LENGTH_1  # 428




def padded(name: str | bytes, width: int = 48) -> bytes:
    """A name as an MQCHARn field: blank-padded bytes."""
    raw = name.encode() if isinstance(name, str) else name
    return raw.ljust(width)


def field(value: bytes, width: int) -> bytes:
    """A character field as read back from a structure, normalised to its padded form."""
    return bytes(value).ljust(width)



def take(qm, name: str) -> tuple[bytes, pymqi.MD]:
    """Get the next message (and its MD) from a local queue."""
    md = pymqi.MD()
    q = pymqi.Queue(qm, name, CMQC.MQOO_INPUT_SHARED)
    try:
        return q.get(None, md), md
    finally:
        q.close()


def od(name: str, qmgr_name: str = "") -> pymqi.OD:
    """An object descriptor for a queue, optionally at a named queue manager."""
    return pymqi.OD(ObjectName=name.encode(), ObjectQMgrName=qmgr_name.encode())


@pytest.fixture
def xmitqs(qmgr, local_queue):
    """Transmission queues OTHERQM (named like the remote queue manager) and XQ."""
    qmgr.catalog.define("QL", "OTHERQM", usage="XMITQ")
    qmgr.catalog.define("QL", "XQ", usage="XMITQ")
    return qmgr


# -- aliases ------------------------------------------------------------------------------------


def test_alias_put_lands_on_target_local_queue(qmgr, qm, local_queue):
    """A put through an alias is got from its TARGQ local queue, data unchanged."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    pymqi.Queue(qm, "AQ").put(b"through the alias")
    assert depth(qm, local_queue) == 1
    data, _ = take(qm, local_queue)
    assert data == b"through the alias"


def test_alias_get_reads_target_local_queue(qmgr, qm, local_queue):
    """A get through an alias reads the messages of its TARGQ."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    qm.put1(local_queue, b"on the base")
    assert take(qm, "AQ")[0] == b"on the base"


def test_put_disabled_on_alias_alone_blocks_puts_through_it(qmgr, qm, local_queue):
    """PUT DISABLED on the alias fails puts through it 2051; the target still takes puts."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue, put="DISABLED")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        pymqi.Queue(qm, "AQ").put(b"x")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        qm.put1("AQ", b"x")
    pymqi.Queue(qm, local_queue).put(b"direct")
    assert depth(qm, local_queue) == 1


def test_put_disabled_on_target_blocks_puts_through_alias(qmgr, qm, local_queue):
    """PUT DISABLED on the target fails puts through an enabled alias 2051."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    qmgr.catalog.alter("QL", local_queue, put="DISABLED")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        pymqi.Queue(qm, "AQ").put(b"x")


def test_get_disabled_on_alias_alone_blocks_gets_through_it(qmgr, qm, local_queue):
    """GET DISABLED on the alias fails gets through it 2016; the target still gives messages."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue, get="DISABLED")
    qm.put1(local_queue, b"x")
    with raises_mq(CMQC.MQRC_GET_INHIBITED):
        pymqi.Queue(qm, "AQ").get()
    assert take(qm, local_queue)[0] == b"x"


def test_alias_put_inhibit_applies_to_already_open_handle(qmgr, qm, local_queue):
    """Disabling puts on an alias stops puts on a handle opened (and used) before the change."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    q = pymqi.Queue(qm, "AQ", CMQC.MQOO_OUTPUT)
    q.put(b"one")
    q.put(b"two")
    qmgr.catalog.alter("QA", "AQ", put="DISABLED")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        q.put(b"three")
    q.close()
    assert depth(qm, local_queue) == 2


def test_alias_to_alias_fails_alias_base_type_error(qmgr, qm, local_queue):
    """An alias whose TARGQ is another alias fails MQOPEN with MQRC_ALIAS_BASE_Q_TYPE_ERROR."""
    qmgr.catalog.define("QA", "AQ2", targq=local_queue)
    qmgr.catalog.define("QA", "AQ1", targq="AQ2")
    with raises_mq(CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR):
        pymqi.Queue(qm, "AQ1", CMQC.MQOO_OUTPUT)


def test_alias_with_missing_base_fails_unknown_alias_base(qmgr, qm, local_queue):
    """An alias naming no queue fails MQOPEN and MQPUT1 with MQRC_UNKNOWN_ALIAS_BASE_Q."""
    qmgr.catalog.define("QA", "AQ", targq="NOT.THERE")
    with raises_mq(CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q):
        qm.put1("AQ", b"x")


def test_alias_default_priority_comes_from_alias(qmgr, qm, local_queue):
    """MQPRI_PRIORITY_AS_Q_DEF through an alias takes the alias's DEFPRTY, not the target's."""
    qmgr.catalog.alter("QL", local_queue, defprty=2)
    qmgr.catalog.define("QA", "AQ", targq=local_queue, defprty=7)
    pymqi.Queue(qm, "AQ").put(b"x", pymqi.MD())
    assert take(qm, local_queue)[1].Priority == 7


def test_alias_default_persistence_comes_from_alias(qmgr, qm, local_queue):
    """MQPER_PERSISTENCE_AS_Q_DEF through an alias takes the alias's DEFPSIST."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue, defpsist="YES")
    pymqi.Queue(qm, "AQ").put(b"x", pymqi.MD())
    assert take(qm, local_queue)[1].Persistence == CMQC.MQPER_PERSISTENT


# -- remote queue definitions -------------------------------------------------------------------


def test_remote_put_goes_to_xmitq_named_like_rqmname(qmgr, xmitqs, qm):
    """A QR without XMITQ puts onto the transmission queue named like its RQMNAME."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    pymqi.Queue(qm, "RQ").put(b"payload")
    assert depth(qm, "OTHERQM") == 1
    assert depth(qm, "XQ") == 0


def test_remote_put_goes_to_named_xmitq(qmgr, xmitqs, qm):
    """A QR with XMITQ puts onto that transmission queue, not the one named like RQMNAME."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM", xmitq="XQ")
    pymqi.Queue(qm, "RQ").put(b"payload")
    assert depth(qm, "XQ") == 1
    assert depth(qm, "OTHERQM") == 0


def test_remote_message_starts_with_xqh_naming_destination(qmgr, xmitqs, qm):
    """The xmitq message is an MQXQH naming RNAME at RQMNAME, followed by the data."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    pymqi.Queue(qm, "RQ").put(b"payload")
    data, _ = take(qm, "OTHERQM")
    assert len(data) == XQH_LEN + len(b"payload")
    xqh = XQH().unpack(data[:XQH_LEN])
    assert field(xqh.StrucId, 4) == CMQC.MQXQH_STRUC_ID
    assert xqh.Version == CMQC.MQXQH_VERSION_1
    assert field(xqh.RemoteQName, 48) == padded("TARGET")
    assert field(xqh.RemoteQMgrName, 48) == padded("OTHERQM")
    assert data[XQH_LEN:] == b"payload"


def test_remote_message_embedded_md_is_the_original(qmgr, xmitqs, qm):
    """The MQXQH's embedded MD carries the put's MsgId, CorrelId, Priority, Persistence, Format."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    md = pymqi.MD(Priority=4, Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING,
                  CorrelId=b"CORREL-1".ljust(24, b"\0"), ReplyToQ=b"REPLY.Q")
    pymqi.Queue(qm, "RQ").put(b"payload", md)
    data, _ = take(qm, "OTHERQM")
    inner = XQH().unpack(data[:XQH_LEN]).MsgDesc
    assert inner.Version == CMQC.MQMD_VERSION_1
    assert bytes(inner.MsgId) == bytes(md.MsgId)  # the MsgId returned to the putter
    assert bytes(inner.MsgId) != bytes(24)
    assert bytes(inner.CorrelId) == b"CORREL-1".ljust(24, b"\0")
    assert inner.Priority == 4
    assert inner.Persistence == CMQC.MQPER_PERSISTENT
    assert field(inner.Format, 8) == CMQC.MQFMT_STRING
    assert field(inner.ReplyToQ, 48) == padded("REPLY.Q")


def test_remote_message_embedded_md_generated_msgid_matches_putter(qmgr, xmitqs, qm):
    """With MQMI_NONE the generated MsgId the putter sees is the one in the embedded MD."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    md = pymqi.MD()
    pymqi.Queue(qm, "RQ").put(b"payload", md)
    assert bytes(md.MsgId) != bytes(24)
    data, _ = take(qm, "OTHERQM")
    assert bytes(XQH().unpack(data[:XQH_LEN]).MsgDesc.MsgId) == bytes(md.MsgId)


def test_remote_message_embedded_md_has_put_context(qmgr, xmitqs, qm):
    """The embedded MD has the put date and time the putter got back (filled at MQPUT)."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    md = pymqi.MD()
    pymqi.Queue(qm, "RQ").put(b"payload", md)
    data, _ = take(qm, "OTHERQM")
    inner = XQH().unpack(data[:XQH_LEN]).MsgDesc
    assert field(inner.PutDate, 8) == field(md.PutDate, 8)
    assert field(inner.PutDate, 8).strip()
    assert field(inner.PutTime, 8).strip()


def test_xmitq_message_format_is_mqxmit(qmgr, xmitqs, qm):
    """The message on the transmission queue has Format MQFMT_XMIT_Q_HEADER ("MQXMIT  ")."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    pymqi.Queue(qm, "RQ").put(b"payload", pymqi.MD(Format=CMQC.MQFMT_STRING))
    _, md = take(qm, "OTHERQM")
    assert field(md.Format, 8) == b"MQXMIT  "
    assert CMQC.MQFMT_XMIT_Q_HEADER == b"MQXMIT  "


def test_xmitq_message_keeps_priority_and_persistence(qmgr, xmitqs, qm):
    """The message on the xmitq has the original Priority and Persistence in its own MD."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    pymqi.Queue(qm, "RQ").put(b"x", pymqi.MD(Priority=6, Persistence=CMQC.MQPER_PERSISTENT))
    _, md = take(qm, "OTHERQM")
    assert md.Priority == 6
    assert md.Persistence == CMQC.MQPER_PERSISTENT


def test_remote_put_without_md_prefixes_xqh(qmgr, xmitqs, qm):
    """A plain put (no MD) to a remote queue is also wrapped in an MQXQH."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    q = pymqi.Queue(qm, "RQ")
    q.put(b"a")
    q.put(b"b")  # a second plain put on the same handle
    first, _ = take(qm, "OTHERQM")
    second, _ = take(qm, "OTHERQM")
    assert [first[XQH_LEN:], second[XQH_LEN:]] == [b"a", b"b"]
    assert field(XQH().unpack(second[:XQH_LEN]).RemoteQName, 48) == padded("TARGET")


def test_remote_default_priority_comes_from_remote_definition(qmgr, xmitqs, qm):
    """MQPRI_PRIORITY_AS_Q_DEF through a QR takes the QR's DEFPRTY (first in the path)."""
    qmgr.catalog.alter("QL", "OTHERQM", defprty=1)
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM", defprty=8)
    pymqi.Queue(qm, "RQ").put(b"x", pymqi.MD())
    data, md = take(qm, "OTHERQM")
    assert XQH().unpack(data[:XQH_LEN]).MsgDesc.Priority == 8
    assert md.Priority == 8


def test_put1_to_remote_queue_prefixes_xqh(qmgr, xmitqs, qm):
    """MQPUT1 to a remote queue definition resolves like MQOPEN + MQPUT."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    qm.put1("RQ", b"one shot")
    data, _ = take(qm, "OTHERQM")
    assert field(XQH().unpack(data[:XQH_LEN]).RemoteQMgrName, 48) == padded("OTHERQM")
    assert data[XQH_LEN:] == b"one shot"


def test_alias_to_remote_definition_reaches_xmitq(qmgr, xmitqs, qm):
    """An alias whose TARGQ is a QR sends to the QR's destination through its xmitq."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    qmgr.catalog.define("QA", "AQ", targq="RQ")
    pymqi.Queue(qm, "AQ").put(b"x")
    data, _ = take(qm, "OTHERQM")
    assert field(XQH().unpack(data[:XQH_LEN]).RemoteQName, 48) == padded("TARGET")


def test_remote_definition_put_disabled_fails_put_inhibited(qmgr, xmitqs, qm):
    """PUT DISABLED on a QR fails puts to it 2051 and nothing reaches the xmitq."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM", put="DISABLED")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        pymqi.Queue(qm, "RQ").put(b"x")
    assert depth(qm, "OTHERQM") == 0


def test_put_disabled_xmitq_fails_remote_put(qmgr, xmitqs, qm):
    """PUT DISABLED on the transmission queue a QR resolves to fails the put 2051."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    qmgr.catalog.alter("QL", "OTHERQM", put="DISABLED")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        pymqi.Queue(qm, "RQ").put(b"x", pymqi.MD())
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        qm.put1("RQ", b"x")


def test_put_disabled_xmitq_fails_put_through_alias_of_remote_queue(qmgr, xmitqs, qm):
    """PUT DISABLED on the xmitq also fails puts reaching it through an alias of the QR."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    qmgr.catalog.define("QA", "AQ", targq="RQ")
    qmgr.catalog.alter("QL", "OTHERQM", put="DISABLED")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        qm.put1("AQ", b"x")
    assert depth(qm, "OTHERQM") == 0


def test_remote_rqmname_local_resolves_locally(qmgr, qm, local_queue):
    """A QR whose RQMNAME is this queue manager resolves RNAME here: no xmitq, no MQXQH."""
    qmgr.catalog.define("QR", "LOOP", rname=local_queue, rqmname=qmgr.name)
    pmo = pymqi.PMO()
    pymqi.Queue(qm, "LOOP").put(b"local again", pymqi.MD(), pmo)
    data, md = take(qm, local_queue)
    assert data == b"local again"
    assert field(md.Format, 8) == CMQC.MQFMT_NONE
    assert field(pmo.ResolvedQName, 48) == padded(local_queue)
    assert field(pmo.ResolvedQMgrName, 48) == padded(qmgr.name)


# -- ObjectQMgrName -----------------------------------------------------------------------------


def test_object_qmgr_name_local_resolves_locally(qmgr, qm, local_queue):
    """ObjectQMgrName equal to this queue manager's name opens the local queue."""
    q = pymqi.Queue(qm, od(local_queue, qmgr.name), CMQC.MQOO_OUTPUT)
    q.put(b"here")
    q.close()
    assert take(qm, local_queue)[0] == b"here"


def test_object_qmgr_name_naming_xmitq_uses_it(qmgr, xmitqs, qm):
    """ObjectQMgrName naming a transmission queue sends ObjectName there with an MQXQH."""
    q = pymqi.Queue(qm, od("TARGET", "OTHERQM"), CMQC.MQOO_OUTPUT)
    q.put(b"direct")
    q.close()
    data, md = take(qm, "OTHERQM")
    xqh = XQH().unpack(data[:XQH_LEN])
    assert field(xqh.RemoteQName, 48) == padded("TARGET")
    assert field(xqh.RemoteQMgrName, 48) == padded("OTHERQM")
    assert field(md.Format, 8) == CMQC.MQFMT_XMIT_Q_HEADER
    assert data[XQH_LEN:] == b"direct"


def test_qmgr_alias_redirects_object_qmgr_name(qmgr, xmitqs, qm):
    """A queue-manager alias (QR, blank RNAME) gives the real queue manager and xmitq."""
    qmgr.catalog.define("QR", "OTHER.ALIAS", rqmname="OTHERQM", xmitq="XQ")
    pmo = pymqi.PMO()
    qm.put1(od("TARGET", "OTHER.ALIAS"), b"aliased", pymqi.MD(), pmo)
    assert depth(qm, "OTHERQM") == 0
    data, _ = take(qm, "XQ")
    xqh = XQH().unpack(data[:XQH_LEN])
    assert field(xqh.RemoteQName, 48) == padded("TARGET")
    assert field(xqh.RemoteQMgrName, 48) == padded("OTHERQM")
    assert field(pmo.ResolvedQName, 48) == padded("TARGET")
    assert field(pmo.ResolvedQMgrName, 48) == padded("OTHERQM")


def test_qmgr_alias_without_xmitq_uses_queue_named_like_qmgr(qmgr, xmitqs, qm):
    """A queue-manager alias with blank XMITQ uses the xmitq named like its RQMNAME."""
    qmgr.catalog.define("QR", "OTHER.ALIAS", rqmname="OTHERQM")
    qm.put1(od("TARGET", "OTHER.ALIAS"), b"x")
    assert depth(qm, "OTHERQM") == 1


def test_qmgr_alias_put_disabled_fails_put_inhibited(qmgr, xmitqs, qm):
    """PUT DISABLED on a queue-manager alias in the path fails the put 2051."""
    qmgr.catalog.define("QR", "OTHER.ALIAS", rqmname="OTHERQM", put="DISABLED")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        qm.put1(od("TARGET", "OTHER.ALIAS"), b"x")


def test_qmgr_alias_to_local_qmgr_resolves_locally_for_output(qmgr, qm, local_queue):
    """A queue-manager alias whose RQMNAME is this queue manager opens the local queue."""
    qmgr.catalog.define("QR", "ME.ALIAS", rqmname=qmgr.name)
    qm.put1(od(local_queue, "ME.ALIAS"), b"home")
    assert take(qm, local_queue)[0] == b"home"


@pytest.mark.parametrize("options", [CMQC.MQOO_INPUT_SHARED, CMQC.MQOO_BROWSE,
                                     CMQC.MQOO_INQUIRE, CMQC.MQOO_SET])
def test_qmgr_alias_to_local_qmgr_for_input_fails_option_not_valid(qmgr, qm, local_queue,
                                                                    options):
    """Opening through a queue-manager alias of this queue manager for input, browse,
    inquire or set fails MQRC_OPTION_NOT_VALID_FOR_TYPE (IBM q041160_)."""
    qmgr.catalog.define("QR", "ME.ALIAS", rqmname=qmgr.name)
    with raises_mq(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE):
        pymqi.Queue(qm, od(local_queue, "ME.ALIAS"), options)


def test_unknown_remote_qmgr_fails_unknown_remote_q_mgr(qm, local_queue):
    """ObjectQMgrName with no alias and no xmitq of that name fails 2087."""
    with raises_mq(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR):
        pymqi.Queue(qm, od("TARGET", "NOWHERE"), CMQC.MQOO_OUTPUT)
    with raises_mq(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR):
        qm.put1(od("TARGET", "NOWHERE"), b"x")


def test_object_qmgr_name_naming_normal_local_queue_fails_xmit_usage(qm, local_queue):
    """ObjectQMgrName naming a local queue with USAGE NORMAL fails MQRC_XMIT_Q_USAGE_ERROR."""
    with raises_mq(CMQC.MQRC_XMIT_Q_USAGE_ERROR):
        pymqi.Queue(qm, od("TARGET", local_queue), CMQC.MQOO_OUTPUT)


def test_process_open_with_remote_qmgr_name_fails_option_not_valid(qmgr, qm, local_queue):
    """A process opened with an ObjectQMgrName that is not this queue manager fails 2045."""
    qmgr.catalog.define("PROC", "P1", applid="QZZ1")
    desc = pymqi.OD(ObjectType=CMQC.MQOT_PROCESS, ObjectName=b"P1", ObjectQMgrName=b"OTHERQM")
    with raises_mq(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE):
        pymqi.Queue(qm, desc, CMQC.MQOO_INQUIRE)


# -- transmission queue errors ------------------------------------------------------------------


def test_missing_xmitq_fails_unknown_xmit_q(qmgr, qm, local_queue):
    """A QR whose XMITQ names no queue fails MQOPEN and MQPUT1 with MQRC_UNKNOWN_XMIT_Q."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM", xmitq="NO.SUCH.XQ")
    with raises_mq(CMQC.MQRC_UNKNOWN_XMIT_Q):
        pymqi.Queue(qm, "RQ", CMQC.MQOO_OUTPUT)
    with raises_mq(CMQC.MQRC_UNKNOWN_XMIT_Q):
        qm.put1("RQ", b"x")


def test_xmitq_not_local_fails_xmit_q_type_error(qmgr, qm, local_queue):
    """A QR whose XMITQ is an alias (not a local queue) fails MQRC_XMIT_Q_TYPE_ERROR."""
    qmgr.catalog.define("QA", "ALIAS.XQ", targq=local_queue)
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM", xmitq="ALIAS.XQ")
    with raises_mq(CMQC.MQRC_XMIT_Q_TYPE_ERROR):
        pymqi.Queue(qm, "RQ", CMQC.MQOO_OUTPUT)


def test_xmitq_usage_normal_fails_xmit_q_usage_error(qmgr, qm, local_queue):
    """A QR whose XMITQ is a local queue with USAGE NORMAL fails MQRC_XMIT_Q_USAGE_ERROR."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM", xmitq=local_queue)
    with raises_mq(CMQC.MQRC_XMIT_Q_USAGE_ERROR):
        pymqi.Queue(qm, "RQ", CMQC.MQOO_OUTPUT)
    assert depth(qm, local_queue) == 0


def test_qmgr_alias_with_normal_xmitq_fails_xmit_q_usage_error(qmgr, qm, local_queue):
    """A queue-manager alias whose XMITQ has USAGE NORMAL fails MQRC_XMIT_Q_USAGE_ERROR."""
    qmgr.catalog.define("QR", "OTHER.ALIAS", rqmname="OTHERQM", xmitq=local_queue)
    with raises_mq(CMQC.MQRC_XMIT_Q_USAGE_ERROR):
        qm.put1(od("TARGET", "OTHER.ALIAS"), b"x")


# -- ResolvedQName / ResolvedQMgrName -----------------------------------------------------------


def test_pmo_resolved_names_for_local_put(qmgr, qm, local_queue):
    """After a put to a local queue the PMO names it and this queue manager."""
    pmo = pymqi.PMO()
    pymqi.Queue(qm, local_queue).put(b"x", pymqi.MD(), pmo)
    assert field(pmo.ResolvedQName, 48) == padded(local_queue)
    assert field(pmo.ResolvedQMgrName, 48) == padded(qmgr.name)


def test_pmo_resolved_names_for_alias_put(qmgr, qm, local_queue):
    """After a put through an alias ResolvedQName is the base queue, not the alias."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    pmo = pymqi.PMO()
    qm.put1("AQ", b"x", pymqi.MD(), pmo)
    assert field(pmo.ResolvedQName, 48) == padded(local_queue)
    assert field(pmo.ResolvedQMgrName, 48) == padded(qmgr.name)


def test_pmo_resolved_names_for_remote_put(qmgr, xmitqs, qm):
    """After a put to a QR the PMO names RNAME and RQMNAME (the destination)."""
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM", xmitq="XQ")
    pmo = pymqi.PMO()
    pymqi.Queue(qm, "RQ").put(b"x", pymqi.MD(), pmo)
    assert field(pmo.ResolvedQName, 48) == padded("TARGET")
    assert field(pmo.ResolvedQMgrName, 48) == padded("OTHERQM")
