"""MQPUT, MQPUT1 and MQGET message semantics against IBM's documentation.

Sources: mq-semantics.md §1 (calls and options), §2 (reason codes), §3 (MQMD fields),
§7 (delivery order); pymqi's documented behaviour for the Python surface (§8).
"""

import time

import pytest
from mq_helpers import ID_C, IO, OUT, check_reason, depth, drain, get_msg, open_q

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr import plans

ID_A = b"ID-A".ljust(24, b".")
ID_B = b"ID-B".ljust(24, b".")


# -- delivery order (§7) -----------------------------------------------------------------


def test_priority_order_highest_first_fifo_within_priority(qm, local_queue):
    """A priority queue returns the highest priority first and FIFO within a priority."""
    q = open_q(qm, local_queue)
    for tag, prio in [(b"a3", 3), (b"b7", 7), (b"c3", 3), (b"d9", 9), (b"e0", 0), (b"f7", 7)]:
        q.put(tag, pymqi.MD(Priority=prio))
    got = [(data, md.Priority) for data, md in drain(q)]
    assert got == [(b"d9", 9), (b"b7", 7), (b"f7", 7), (b"a3", 3), (b"c3", 3), (b"e0", 0)]


def test_fifo_queue_returns_arrival_order_and_keeps_priority(qmgr, qm):
    """A MSGDLVSQ(FIFO) queue returns messages in arrival order, each keeping its own Priority."""
    qmgr.catalog.define("QL", "FIFO.Q", msgdlvsq="FIFO")
    q = open_q(qm, "FIFO.Q")
    for tag, prio in [(b"p1", 1), (b"p9", 9), (b"p5", 5), (b"p0", 0)]:
        q.put(tag, pymqi.MD(Priority=prio))
    assert [(d, md.Priority) for d, md in drain(q)] == [
        (b"p1", 1), (b"p9", 9), (b"p5", 5), (b"p0", 0)]


def test_priority_as_q_def_takes_local_defprty(qmgr, qm):
    """MQPRI_PRIORITY_AS_Q_DEF on a local queue gives the queue's DEFPRTY."""
    qmgr.catalog.define("QL", "DEF.Q", defprty=4)
    q = open_q(qm, "DEF.Q")
    q.put(b"x", pymqi.MD(Priority=CMQC.MQPRI_PRIORITY_AS_Q_DEF))
    md = pymqi.MD()
    get_msg(q, md)
    assert md.Priority == 4


def test_priority_as_q_def_via_alias_takes_alias_defprty(qmgr, qm):
    """A put through an alias with AS_Q_DEF takes the alias's DEFPRTY (first in the path), not the
    target's."""
    qmgr.catalog.define("QL", "TARGET.Q", defprty=2)
    qmgr.catalog.define("QA", "ALIAS.Q", targq="TARGET.Q", defprty=7)
    alias = open_q(qm, "ALIAS.Q", OUT)
    alias.put(b"with-md", pymqi.MD())  # MD default Priority is AS_Q_DEF
    alias.put(b"no-md")  # no MD at all: the same rule
    target = open_q(qm, "TARGET.Q")
    target.put(b"target-def", pymqi.MD())
    got = [(d, md.Priority) for d, md in drain(target)]
    assert got == [(b"with-md", 7), (b"no-md", 7), (b"target-def", 2)]


def test_priority_above_nine_is_put_as_nine_with_warning(qm, local_queue):
    """Priority above MaxPriority (9) is put as 9 and the put warns MQCC_WARNING/2049 after the
    message is on the queue. MQGET returns 9, where IBM returns the value put (a deviation,
    docs/deviations.md: the core keeps one priority a message)."""
    q = open_q(qm, local_queue)
    md = pymqi.MD(Priority=12)
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"loud", md)
    check_reason(info, CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM, CMQC.MQCC_WARNING)
    assert depth(qm, local_queue) == 1
    assert md.MsgId != CMQC.MQMI_NONE  # a warning: the put completed and wrote its outputs
    got = pymqi.MD()
    assert get_msg(q, got) == b"loud"
    assert got.Priority == 9


@pytest.mark.parametrize("priority", [-2, -3, -100])
def test_priority_below_minus_one_fails_2050(qm, local_queue, priority):
    """A Priority below -1 (other than AS_Q_DEF) fails MQRC_PRIORITY_ERROR and puts nothing."""
    q = open_q(qm, local_queue)
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"x", pymqi.MD(Priority=priority))
    check_reason(info, CMQC.MQRC_PRIORITY_ERROR)
    assert depth(qm, local_queue) == 0


@pytest.mark.parametrize(("fields", "reason"), [
    ({"MsgType": 0}, CMQC.MQRC_MSG_TYPE_ERROR),
    ({"MsgType": -1}, CMQC.MQRC_MSG_TYPE_ERROR),
    ({"MsgType": CMQC.MQMT_APPL_LAST + 1}, CMQC.MQRC_MSG_TYPE_ERROR),
    ({"Feedback": -1}, CMQC.MQRC_FEEDBACK_ERROR),
    ({"Feedback": CMQC.MQFB_APPL_LAST + 1}, CMQC.MQRC_FEEDBACK_ERROR),
    ({"MsgType": CMQC.MQMT_REPORT, "Feedback": -5}, CMQC.MQRC_FEEDBACK_ERROR),
    ({"Report": 0x00040000}, CMQC.MQRC_REPORT_OPTIONS_ERROR),
    ({"Report": 0x10000000 | CMQC.MQRO_PASS_MSG_ID}, CMQC.MQRC_REPORT_OPTIONS_ERROR),
])
def test_msg_type_or_feedback_outside_their_ranges_fails(qm, local_queue, fields, reason):
    """A MsgType outside the system and application ranges fails MQRC_MSG_TYPE_ERROR
    (2029); a Feedback other than MQFB_NONE outside both ranges MQRC_FEEDBACK_ERROR (2014),
    whatever the MsgType (IBM, MQMD MsgType and Feedback); a Report bit of
    MQRO_REJECT_UNSUP_MASK, none of which tpfemu supports, MQRC_REPORT_OPTIONS_ERROR
    (2061). By the handle's first put, by its later ones (its plan) and by MQPUT1; nothing
    is put."""
    q = open_q(qm, local_queue)
    q.put(b"plain", pymqi.MD())  # (the handle's later puts may take its plan)
    for _ in range(2):
        with pytest.raises(pymqi.MQMIError) as info:
            q.put(b"x", pymqi.MD(**fields))
        check_reason(info, reason)
    with pytest.raises(pymqi.MQMIError) as info:
        qm.put1(local_queue, b"x", pymqi.MD(**fields))
    check_reason(info, reason)
    assert depth(qm, local_queue) == 1


def test_msg_types_and_feedback_in_their_ranges_are_put(qm, local_queue):
    """Application MsgTypes and Feedback codes (65536..999999999), and a report's system
    Feedback, are put and read back as given."""
    q = open_q(qm, local_queue)
    given = [(CMQC.MQMT_APPL_FIRST, CMQC.MQFB_APPL_LAST), (CMQC.MQMT_APPL_LAST, CMQC.MQFB_NONE),
             (CMQC.MQMT_REPORT, CMQC.MQFB_COA)]
    for _ in range(2):  # (the second round by the handle's plan)
        for msg_type, feedback in given:
            q.put(b"x", pymqi.MD(MsgType=msg_type, Feedback=feedback))
        assert [(md.MsgType, md.Feedback) for _, md in drain(q)] == given


def test_qmgr_ccsid_is_replaced_by_the_queue_managers_ccsid(qm, local_queue):
    """MQCCSI_Q_MGR (0, the MD's initial CodedCharSetId) is stored as the queue manager's
    own CCSID: MQGET never returns MQCCSI_Q_MGR (IBM, MQMD CodedCharSetId). The same for a
    put with no MD and by the handle's plan; a CCSID given is kept."""
    qmgr_ccsid = qm.inquire(CMQC.MQIA_CODED_CHAR_SET_ID)
    assert qmgr_ccsid not in (CMQC.MQCCSI_Q_MGR, CMQC.MQCCSI_INHERIT)
    q = open_q(qm, local_queue)
    for _ in range(2):  # (the second round by the handle's plan)
        q.put(b"initial", pymqi.MD())
        q.put(b"explicit", pymqi.MD(CodedCharSetId=CMQC.MQCCSI_Q_MGR))
        q.put(b"none")
        q.put(b"given", pymqi.MD(CodedCharSetId=500))
        assert [(d, md.CodedCharSetId) for d, md in drain(q)] == [
            (b"initial", qmgr_ccsid), (b"explicit", qmgr_ccsid), (b"none", qmgr_ccsid),
            (b"given", 500)]
    qm.put1(local_queue, b"put1", pymqi.MD())
    md = pymqi.MD()
    get_msg(q, md)
    assert md.CodedCharSetId == qmgr_ccsid


# -- persistence ----------------------------------------------------------------------------


@pytest.mark.parametrize("defpsist, expected", [("YES", CMQC.MQPER_PERSISTENT),
                                                 ("NO", CMQC.MQPER_NOT_PERSISTENT)])
def test_persistence_as_q_def_takes_defpsist(qmgr, qm, defpsist, expected):
    """MQPER_PERSISTENCE_AS_Q_DEF gives the queue's DEFPSIST."""
    qmgr.catalog.define("QL", "PS.Q", defpsist=defpsist)
    q = open_q(qm, "PS.Q")
    q.put(b"x", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENCE_AS_Q_DEF))
    md = pymqi.MD()
    get_msg(q, md)
    assert md.Persistence == expected


def test_persistence_as_q_def_via_alias_takes_alias_defpsist(qmgr, qm):
    """Through an alias, AS_Q_DEF persistence is the alias's DEFPSIST (first definition in the
    path)."""
    qmgr.catalog.define("QL", "PT.Q", defpsist="NO")
    qmgr.catalog.define("QA", "PA.Q", targq="PT.Q", defpsist="YES")
    open_q(qm, "PA.Q", OUT).put(b"x", pymqi.MD())
    md = pymqi.MD()
    get_msg(open_q(qm, "PT.Q"), md)
    assert md.Persistence == CMQC.MQPER_PERSISTENT


@pytest.mark.parametrize("persistence", [CMQC.MQPER_PERSISTENT, CMQC.MQPER_NOT_PERSISTENT])
@pytest.mark.parametrize("defpsist", ["YES", "NO"])
def test_explicit_persistence_overrides_defpsist(qmgr, qm, persistence, defpsist):
    """An explicit MQPER_PERSISTENT / NOT_PERSISTENT is kept whatever DEFPSIST says."""
    qmgr.catalog.define("QL", "PS.Q", defpsist=defpsist)
    q = open_q(qm, "PS.Q")
    q.put(b"x", pymqi.MD(Persistence=persistence))
    md = pymqi.MD()
    get_msg(q, md)
    assert md.Persistence == persistence


@pytest.mark.parametrize("persistence", [3, -1, 99])
def test_bad_persistence_fails_2047(qm, local_queue, persistence):
    """A Persistence other than 0, 1, 2 fails MQRC_PERSISTENCE_ERROR and puts nothing."""
    q = open_q(qm, local_queue)
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"x", pymqi.MD(Persistence=persistence))
    check_reason(info, CMQC.MQRC_PERSISTENCE_ERROR)
    assert depth(qm, local_queue) == 0


# -- MsgId / CorrelId -------------------------------------------------------------------


def test_msgid_generated_and_written_back_correlid_kept(qm, local_queue):
    """With MsgId MQMI_NONE the put generates a MsgId and writes it into the MD; a given CorrelId is
    kept."""
    q = open_q(qm, local_queue)
    md = pymqi.MD(CorrelId=ID_C)
    q.put(b"x", md)
    assert len(md.MsgId) == 24 and md.MsgId != CMQC.MQMI_NONE
    assert md.CorrelId == ID_C
    got = pymqi.MD()
    get_msg(q, got)
    assert (got.MsgId, got.CorrelId) == (md.MsgId, ID_C)


def test_generated_msgids_are_unique(qm, local_queue):
    """Each put with MQMI_NONE gets a different generated MsgId."""
    q = open_q(qm, local_queue)
    ids = set()
    for _ in range(20):
        md = pymqi.MD()
        q.put(b"x", md)
        ids.add(md.MsgId)
    assert len(ids) == 20


def test_supplied_msgid_is_kept(qm, local_queue):
    """A MsgId the application supplies (without MQPMO_NEW_MSG_ID) is the message's MsgId."""
    q = open_q(qm, local_queue)
    md = pymqi.MD(MsgId=ID_A)
    q.put(b"x", md)
    assert md.MsgId == ID_A
    got = pymqi.MD()
    get_msg(q, got)
    assert got.MsgId == ID_A


def test_short_msgid_is_nul_padded_like_pymqi(qm, local_queue):
    """pymqi packs a short MsgId NUL-padded to 24 bytes; the put must accept it and store the padded
    id."""
    q = open_q(qm, local_queue)
    q.put(b"x", pymqi.MD(MsgId=b"SHORT", CorrelId=b"CID"))
    got = pymqi.MD()
    get_msg(q, got)
    assert got.MsgId == b"SHORT".ljust(24, b"\0")
    assert got.CorrelId == b"CID".ljust(24, b"\0")


def test_new_msg_id_replaces_supplied_msgid(qm, local_queue):
    """MQPMO_NEW_MSG_ID makes a new MsgId even when the MD has one, and writes it back."""
    q = open_q(qm, local_queue)
    md = pymqi.MD(MsgId=ID_A)
    q.put(b"x", md, pymqi.PMO(Options=CMQC.MQPMO_NEW_MSG_ID))
    assert md.MsgId not in (ID_A, CMQC.MQMI_NONE)
    got = pymqi.MD()
    get_msg(q, got)
    assert got.MsgId == md.MsgId


def test_new_correl_id_generated_and_written_back(qm, local_queue):
    """MQPMO_NEW_CORREL_ID generates a CorrelId, writes it back and the message carries it."""
    q = open_q(qm, local_queue)
    md = pymqi.MD(CorrelId=ID_C)
    q.put(b"x", md, pymqi.PMO(Options=CMQC.MQPMO_NEW_CORREL_ID))
    assert md.CorrelId not in (ID_C, CMQC.MQCI_NONE)
    md2 = pymqi.MD()
    q.put(b"y", md2, pymqi.PMO(Options=CMQC.MQPMO_NEW_CORREL_ID))
    assert md2.CorrelId != md.CorrelId
    got = pymqi.MD()
    get_msg(q, got)
    assert got.CorrelId == md.CorrelId


# -- matching (§1 MQMO) ----------------------------------------------------------------


def test_get_by_msgid_returns_that_message(qm, local_queue):
    """An MD carrying a MsgId gets the message with that MsgId, whatever its place."""
    q = open_q(qm, local_queue)
    mds = []
    for data in (b"one", b"two", b"three"):
        md = pymqi.MD()
        q.put(data, md)
        mds.append(md)
    got = pymqi.MD(MsgId=mds[1].MsgId)
    assert get_msg(q, got) == b"two"
    assert got.MsgId == mds[1].MsgId
    assert [d for d, _ in drain(q)] == [b"one", b"three"]


def test_get_by_unknown_msgid_fails_2033(qm, local_queue):
    """A MsgId that no message has gives MQRC_NO_MSG_AVAILABLE and removes nothing."""
    q = open_q(qm, local_queue)
    q.put(b"x", pymqi.MD())
    with pytest.raises(pymqi.MQMIError) as info:
        get_msg(q, pymqi.MD(MsgId=ID_B))
    check_reason(info, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert depth(qm, local_queue) == 1


def test_get_by_correlid_with_match_options(qm, local_queue):
    """With GMO Version 2 and MatchOptions MQMO_MATCH_CORREL_ID only the CorrelId is matched (the
    MD's MsgId is ignored)."""
    q = open_q(qm, local_queue)
    q.put(b"first", pymqi.MD(CorrelId=ID_A))
    q.put(b"second", pymqi.MD(CorrelId=ID_B))
    gmo = pymqi.GMO(Version=CMQC.MQGMO_VERSION_2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    md = pymqi.MD(MsgId=ID_C, CorrelId=ID_B)  # the MsgId matches nothing
    assert get_msg(q, md, gmo) == b"second"
    assert md.CorrelId == ID_B


def test_get_by_msgid_only_ignores_correlid(qm, local_queue):
    """MatchOptions MQMO_MATCH_MSG_ID ignores the MD's CorrelId."""
    q = open_q(qm, local_queue)
    q.put(b"a", pymqi.MD(MsgId=ID_A, CorrelId=ID_A))
    q.put(b"b", pymqi.MD(MsgId=ID_B, CorrelId=ID_B))
    gmo = pymqi.GMO(Version=CMQC.MQGMO_VERSION_2, MatchOptions=CMQC.MQMO_MATCH_MSG_ID)
    assert get_msg(q, pymqi.MD(MsgId=ID_B, CorrelId=ID_C), gmo) == b"b"


def test_match_both_ids_needs_both_to_match(qm, local_queue):
    """The default match (MsgId and CorrelId) needs both ids to match."""
    q = open_q(qm, local_queue)
    q.put(b"a", pymqi.MD(MsgId=ID_A, CorrelId=ID_A))
    with pytest.raises(pymqi.MQMIError) as info:
        get_msg(q, pymqi.MD(MsgId=ID_A, CorrelId=ID_B))
    check_reason(info, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert get_msg(q, pymqi.MD(MsgId=ID_A, CorrelId=ID_A)) == b"a"


def test_match_options_none_ignores_ids(qm, local_queue):
    """MatchOptions MQMO_NONE returns the first message in delivery order whatever the MD's ids."""
    q = open_q(qm, local_queue)
    q.put(b"first", pymqi.MD(CorrelId=ID_A))
    q.put(b"second", pymqi.MD(CorrelId=ID_B))
    gmo = pymqi.GMO(Version=CMQC.MQGMO_VERSION_2, MatchOptions=CMQC.MQMO_NONE)
    assert get_msg(q, pymqi.MD(MsgId=ID_C, CorrelId=ID_C), gmo) == b"first"


def test_gmo_version_1_always_matches_both_ids(qm, local_queue):
    """A Version-1 GMO has no MatchOptions: the MsgId and CorrelId in the MD are matched."""
    q = open_q(qm, local_queue)
    q.put(b"x", pymqi.MD(CorrelId=ID_A))
    gmo = pymqi.GMO(MatchOptions=CMQC.MQMO_NONE)  # Version 1: the field is not there
    assert gmo.Version == CMQC.MQGMO_VERSION_1
    with pytest.raises(pymqi.MQMIError) as info:
        get_msg(q, pymqi.MD(CorrelId=ID_B), gmo)
    check_reason(info, CMQC.MQRC_NO_MSG_AVAILABLE)


def test_reusing_md_of_previous_get_returns_2033(qm, local_queue):
    """The pymqi pitfall: MQGET writes MsgId/CorrelId back, so reusing that MD for the next get
    matches nothing (2033)."""
    q = open_q(qm, local_queue)
    q.put(b"one", pymqi.MD())
    q.put(b"two", pymqi.MD())
    md = pymqi.MD()
    assert q.get(None, md) == b"one"
    assert md.MsgId != CMQC.MQMI_NONE
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, md)
    check_reason(info, CMQC.MQRC_NO_MSG_AVAILABLE)
    md.MsgId = CMQC.MQMI_NONE
    md.CorrelId = CMQC.MQCI_NONE
    assert q.get(None, md) == b"two"


# -- MD fields and context --------------------------------------------------------------


def test_md_fields_round_trip(qm, local_queue):
    """Format, ReplyToQ, ReplyToQMgr, Report, MsgType, Feedback, Encoding and CCSID come back as
    put."""
    q = open_q(qm, local_queue)
    put_md = pymqi.MD(
        Format=b"MYFMT", ReplyToQ=b"REPLY.Q", ReplyToQMgr=b"OTHERQM",
        Report=CMQC.MQRO_COA | CMQC.MQRO_PASS_CORREL_ID, MsgType=CMQC.MQMT_REPLY,
        Feedback=65536 + 7, Encoding=CMQC.MQENC_NATIVE, CodedCharSetId=819,
    )
    q.put(b"x", put_md)
    md = pymqi.MD()
    get_msg(q, md)
    assert md.Format.rstrip() == b"MYFMT"
    assert md.ReplyToQ.rstrip() == b"REPLY.Q"
    assert md.ReplyToQMgr.rstrip() == b"OTHERQM"
    assert md.Report == CMQC.MQRO_COA | CMQC.MQRO_PASS_CORREL_ID
    assert md.MsgType == CMQC.MQMT_REPLY
    assert md.Feedback == 65536 + 7
    assert md.Encoding == CMQC.MQENC_NATIVE
    assert md.CodedCharSetId == 819


def test_request_with_reply_to_q_round_trips(qm, local_queue):
    """A request message with a ReplyToQ is put and comes back as MQMT_REQUEST."""
    q = open_q(qm, local_queue)
    q.put(b"req", pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLY.Q"))
    md = pymqi.MD()
    get_msg(q, md)
    assert md.MsgType == CMQC.MQMT_REQUEST
    assert md.ReplyToQ.rstrip() == b"REPLY.Q"


def test_request_without_reply_to_q_fails_2027(qm, local_queue):
    """MsgType MQMT_REQUEST with a blank ReplyToQ fails MQRC_MISSING_REPLY_TO_Q and puts nothing."""
    q = open_q(qm, local_queue)
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"req", pymqi.MD(MsgType=CMQC.MQMT_REQUEST))
    check_reason(info, CMQC.MQRC_MISSING_REPLY_TO_Q)
    assert depth(qm, local_queue) == 0


def test_set_identity_context_keeps_appl_identity_data(qm, local_queue):
    """With MQPMO_SET_IDENTITY_CONTEXT the MD's identity fields (ApplIdentityData, UserIdentifier)
    are kept."""
    q = open_q(qm, local_queue, IO | CMQC.MQOO_SET_IDENTITY_CONTEXT)
    md = pymqi.MD(ApplIdentityData=b"IDENTITY-DATA", UserIdentifier=b"alice")
    q.put(b"x", md, pymqi.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT))
    got = pymqi.MD()
    get_msg(q, got)
    assert got.ApplIdentityData.rstrip() == b"IDENTITY-DATA"
    assert got.UserIdentifier.rstrip() == b"alice"


@pytest.mark.parametrize("pmo_option, reason", [
    (CMQC.MQPMO_SET_IDENTITY_CONTEXT, CMQC.MQRC_NOT_OPEN_FOR_SET_IDENT),
    (CMQC.MQPMO_SET_ALL_CONTEXT, CMQC.MQRC_NOT_OPEN_FOR_SET_ALL)], ids=["identity", "all"])
def test_set_context_needs_matching_open_option(qm, local_queue, pmo_option, reason):
    """MQPMO_SET_IDENTITY/ALL_CONTEXT on a handle opened without the matching MQOO_SET_* option
    fails 2096/2095 and puts nothing."""
    q = open_q(qm, local_queue, IO)
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"x", pymqi.MD(ApplIdentityData=b"FORGED"), pymqi.PMO(Options=pmo_option))
    check_reason(info, reason)
    assert depth(qm, local_queue) == 0


def test_default_context_replaces_identity_fields(qm, local_queue):
    """Without a context option (default context) the queue manager sets the identity: supplied
    ApplIdentityData is not kept."""
    q = open_q(qm, local_queue)
    q.put(b"x", pymqi.MD(ApplIdentityData=b"FORGED", PutApplName=b"FORGED-APP"))
    got = pymqi.MD()
    get_msg(q, got)
    assert got.ApplIdentityData.strip() == b""
    assert got.PutApplName.rstrip() != b"FORGED-APP"


def test_set_all_context_keeps_put_appl_name_and_time(qm, local_queue):
    """With MQPMO_SET_ALL_CONTEXT PutApplName, PutApplType, PutDate and PutTime come back as the
    application set them."""
    q = open_q(qm, local_queue, IO | CMQC.MQOO_SET_ALL_CONTEXT)
    md = pymqi.MD(PutApplName=b"LEGACY.APP", PutApplType=CMQC.MQAT_UNIX,
                  PutDate=b"20200131", PutTime=b"23595950", ApplOriginData=b"ORIG")
    q.put(b"x", md, pymqi.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))
    got = pymqi.MD()
    get_msg(q, got)
    assert got.PutApplName.rstrip() == b"LEGACY.APP"
    assert got.PutApplType == CMQC.MQAT_UNIX
    assert (got.PutDate, got.PutTime) == (b"20200131", b"23595950")
    assert got.ApplOriginData.rstrip() == b"ORIG"


@pytest.mark.parametrize("appl_name", [b"", b" " * 28])
def test_set_all_context_keeps_a_blank_put_appl_name_blank(qm, local_queue, appl_name):
    """With MQPMO_SET_ALL_CONTEXT a PutApplName and PutApplType left blank and
    MQAT_NO_CONTEXT are stored as they are, by the full path, the plan and the raw entry
    alike: no default of the queue manager's stands in for them."""
    q = open_q(qm, local_queue, IO | CMQC.MQOO_SET_ALL_CONTEXT)
    pmo = CMQC.MQPMO_SET_ALL_CONTEXT | CMQC.MQPMO_NO_SYNCPOINT
    for _ in range(2):  # the first by the full path, then the handle's plan
        q.put(b"x", pymqi.MD(PutApplName=appl_name), pymqi.PMO(Options=pmo))
    md = bytearray(pymqi.MD(Version=2, PutApplName=appl_name).pack())
    assert plans.planned_put_raw(q.get_handle().put_plan, b"x", md,
                                 bytearray(pymqi.PMO(Options=pmo).pack()))
    for _ in range(3):
        got = pymqi.MD()
        get_msg(q, got)
        assert (got.PutApplName, got.PutApplType) == (b" " * 28, CMQC.MQAT_NO_CONTEXT)


def test_default_context_sets_put_date_and_time_utc(qm, local_queue):
    """With default context the put writes PutDate/PutTime (UTC, YYYYMMDD/HHMMSSTH) into the MD and
    the got MD has the same."""
    q = open_q(qm, local_queue)
    before = time.time()
    md = pymqi.MD()
    q.put(b"x", md)
    after = time.time()
    assert len(md.PutDate) == 8 and len(md.PutTime) == 8
    stamp = time.strptime((md.PutDate + md.PutTime[:6]).decode(), "%Y%m%d%H%M%S")
    import calendar

    seconds = calendar.timegm(stamp)
    assert int(before) - 1 <= seconds <= after + 1
    got = pymqi.MD()
    get_msg(q, got)
    assert (got.PutDate, got.PutTime) == (md.PutDate, md.PutTime)
    assert got.PutApplType != CMQC.MQAT_NO_CONTEXT


def test_str_message_is_encoded_with_format_mqstr(qm, local_queue):
    """A str message is encoded (UTF-8, CCSID 1208) and marked Format MQFMT_STRING."""
    q = open_q(qm, local_queue)
    q.put("héllo wörld", pymqi.MD())
    md = pymqi.MD()
    assert get_msg(q, md) == "héllo wörld".encode()
    assert md.Format == CMQC.MQFMT_STRING
    assert md.CodedCharSetId == 1208


def test_str_message_without_md_is_mqstr(qm, local_queue):
    """A str put with no MD is still marked Format MQFMT_STRING."""
    q = open_q(qm, local_queue)
    q.put("plain")
    md = pymqi.MD()
    assert get_msg(q, md) == b"plain"
    assert md.Format == CMQC.MQFMT_STRING


# -- truncation --------------------------------------------------------------------------


def test_truncation_without_accept_fails_2080_and_keeps_message(qm, local_queue):
    """A buffer too small without ACCEPT_TRUNCATED_MSG warns 2080 with the real length and leaves
    the message."""
    q = open_q(qm, local_queue)
    q.put(b"0123456789", pymqi.MD())
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(4, pymqi.MD(), pymqi.GMO())
    check_reason(info, CMQC.MQRC_TRUNCATED_MSG_FAILED, CMQC.MQCC_WARNING)
    assert info.value.original_length == 10
    assert depth(qm, local_queue) == 1
    assert q.get(None, pymqi.MD(), pymqi.GMO()) == b"0123456789"


def test_truncation_failed_still_fills_md(qm, local_queue):
    """On 2080 the queue manager fills the MD whether or not ACCEPT_TRUNCATED_MSG is given (MQGET,
    MsgDesc)."""
    q = open_q(qm, local_queue)
    put_md = pymqi.MD(CorrelId=ID_C, Priority=6)
    q.put(b"0123456789", put_md)
    md = pymqi.MD()
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(4, md, pymqi.GMO())
    check_reason(info, CMQC.MQRC_TRUNCATED_MSG_FAILED, CMQC.MQCC_WARNING)
    assert (md.MsgId, md.CorrelId, md.Priority) == (put_md.MsgId, ID_C, 6)


def test_truncation_with_accept_warns_2079_and_removes_message(qm, local_queue):
    """With ACCEPT_TRUNCATED_MSG the get warns 2079, returns the first bytes in .message and removes
    the message."""
    q = open_q(qm, local_queue)
    q.put(b"0123456789", pymqi.MD())
    md = pymqi.MD()
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(4, md, pymqi.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
    check_reason(info, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, CMQC.MQCC_WARNING)
    assert info.value.message == b"0123"
    assert info.value.original_length == 10
    assert md.MsgId != CMQC.MQMI_NONE  # the MD is filled even when truncated
    assert depth(qm, local_queue) == 0


def test_exact_buffer_is_not_truncated(qm, local_queue):
    """A max_length equal to the message length returns it whole with no warning."""
    q = open_q(qm, local_queue)
    q.put(b"0123456789", pymqi.MD())
    assert q.get(10, pymqi.MD(), pymqi.GMO()) == b"0123456789"


def test_zero_buffer_with_accept_truncated_discards_message(qm, local_queue):
    """A zero-length buffer with ACCEPT_TRUNCATED_MSG removes the message and discards its data
    (warning 2079)."""
    q = open_q(qm, local_queue)
    q.put(b"discard me", pymqi.MD())
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(0, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
    check_reason(info, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, CMQC.MQCC_WARNING)
    assert info.value.message == b""
    assert depth(qm, local_queue) == 0


def test_empty_message_with_zero_buffer(qm, local_queue):
    """A message with no data is got whole with a zero-length buffer and no warning."""
    q = open_q(qm, local_queue)
    q.put(b"", pymqi.MD())
    assert q.get(0, pymqi.MD(), pymqi.GMO()) == b""


def test_max_length_none_returns_big_message_whole(qm, local_queue):
    """max_length None returns a 1 MB message whole."""
    q = open_q(qm, local_queue)
    data = bytes(range(256)) * 4096  # 1 MiB
    q.put(data, pymqi.MD())
    assert q.get(None, pymqi.MD(), pymqi.GMO()) == data


# -- GMO outputs -----------------------------------------------------------------------------


def test_get_through_an_alias_fills_gmo_resolved_qname_with_the_base_queue(qmgr, qm):
    """MQGET fills GMO.ResolvedQName with the local queue the message came from (the
    alias's base queue), by the full path and by the handle's plan alike."""
    qmgr.catalog.define("QL", "BASE.Q")
    qmgr.catalog.define("QA", "ALIAS.Q", targq="BASE.Q")
    q = open_q(qm, "ALIAS.Q")
    for data in (b"one", b"two", b"three"):
        q.put(data)
    for data in (b"one", b"two", b"three"):  # the first by the full path, then the plan
        gmo = pymqi.GMO()
        assert get_msg(q, gmo=gmo) == data
        assert gmo.ResolvedQName == b"BASE.Q".ljust(48)
    assert q.get_handle().get_plan is not None


def test_browse_fills_gmo_resolved_qname(qm, local_queue):
    """A browse names the queue it read in GMO.ResolvedQName too."""
    q = open_q(qm, local_queue, IO | CMQC.MQOO_BROWSE)
    q.put(b"look")
    gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)
    assert get_msg(q, gmo=gmo) == b"look"
    assert gmo.ResolvedQName.rstrip() == local_queue.encode()


def test_failed_get_leaves_gmo_resolved_qname_blank(qm, local_queue):
    """A get that finds no message writes no GMO output."""
    q = open_q(qm, local_queue)
    gmo = pymqi.GMO()
    with pytest.raises(pymqi.MQMIError) as info:
        get_msg(q, gmo=gmo)
    check_reason(info, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert gmo.ResolvedQName == b" " * 48


def test_gmo_version_3_returned_length_is_the_data_returned(qm, local_queue):
    """A version-3 GMO's ReturnedLength is the length of the data returned: the whole
    message, or the buffer's length when ACCEPT_TRUNCATED_MSG cut it; below version 3
    it stays MQRL_UNDEFINED."""
    q = open_q(qm, local_queue)
    for data in (b"x" * 10, b"y" * 10, b"z" * 10):
        q.put(data)
    whole = pymqi.GMO(Version=CMQC.MQGMO_VERSION_3)
    assert get_msg(q, gmo=whole) == b"x" * 10
    assert whole.ReturnedLength == 10
    cut = pymqi.GMO(Version=CMQC.MQGMO_VERSION_3, Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
    with pytest.raises(pymqi.MQMIError) as info:
        get_msg(q, gmo=cut, max_length=4)
    check_reason(info, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, CMQC.MQCC_WARNING)
    assert cut.ReturnedLength == 4
    old = pymqi.GMO(Version=CMQC.MQGMO_VERSION_2)
    assert get_msg(q, gmo=old) == b"z" * 10
    assert old.ReturnedLength == CMQC.MQRL_UNDEFINED
