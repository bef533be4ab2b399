"""Passing context: MQOO_SAVE_ALL_CONTEXT on an input handle, MQPMO_PASS_IDENTITY_CONTEXT
and MQPMO_PASS_ALL_CONTEXT with the PMO's Context naming it.

Sources: IBM's MQPMO Context field ("the input queue handle from which context information
... is taken"), MQPMO_PASS_IDENTITY_CONTEXT / MQPMO_PASS_ALL_CONTEXT, and the reason codes
MQRC_CONTEXT_HANDLE_ERROR (2097: not a valid queue handle, or one not opened with
MQOO_SAVE_ALL_CONTEXT) and MQRC_CONTEXT_NOT_AVAILABLE (2098: no message got with it yet,
or its last successful MQGET was a browse).
"""

import pytest
from mq_helpers import IN, OUT, check_reason, depth, get_msg, open_q

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

SAVE = IN | CMQC.MQOO_SAVE_ALL_CONTEXT
PASS_ALL = CMQC.MQPMO_PASS_ALL_CONTEXT
PASS_IDENTITY = CMQC.MQPMO_PASS_IDENTITY_CONTEXT
#: The context of the message the tests forward (put with MQPMO_SET_ALL_CONTEXT).
ORIGINAL = dict(UserIdentifier=b"alice".ljust(12), AccountingToken=b"TOKEN".ljust(32, b"\0"),
                ApplIdentityData=b"IDENTITY".ljust(32), PutApplType=CMQC.MQAT_UNIX,
                PutApplName=b"LEGACY.APP".ljust(28), PutDate=b"20200131",
                PutTime=b"23595950", ApplOriginData=b"ORIG")
IDENTITY = ("UserIdentifier", "AccountingToken", "ApplIdentityData")
ORIGIN = ("PutApplType", "PutApplName", "PutDate", "PutTime", "ApplOriginData")


@pytest.fixture
def queues(qmgr, qm):
    """IN.Q holding two messages put with ORIGINAL's context (the second's UserIdentifier
    is bob), and an empty OUT.Q."""
    qmgr.catalog.define("QL", "IN.Q")
    qmgr.catalog.define("QL", "OUT.Q")
    q = open_q(qm, "IN.Q", OUT | CMQC.MQOO_SET_ALL_CONTEXT)
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT)
    q.put(b"first", pymqi.MD(**ORIGINAL), pmo)
    q.put(b"second", pymqi.MD(**dict(ORIGINAL, UserIdentifier=b"bob".ljust(12))), pmo)
    q.close()
    return "IN.Q", "OUT.Q"


def _context(md):
    return {f: getattr(md, f) for f in IDENTITY + ORIGIN}


def _got_from(qm, name):
    md = pymqi.MD()
    assert get_msg(open_q(qm, name, IN), md) == b"first"
    return md


def test_pass_all_context_passes_identity_and_origin(qm, queues):
    """MQPMO_PASS_ALL_CONTEXT gives the message put the identity and origin context of the
    message last got with the handle in Context (PutDate and PutTime included), by a
    handle's first get and by its later ones."""
    source, target = queues
    inq = open_q(qm, source, SAVE)
    outq = open_q(qm, target, OUT | CMQC.MQOO_PASS_ALL_CONTEXT)
    for data, user in ((b"first", b"alice"), (b"second", b"bob")):
        assert get_msg(inq) == data
        outq.put(data, pymqi.MD(), pymqi.PMO(Options=PASS_ALL, Context=inq.get_handle().hobj))
        md = pymqi.MD()
        assert get_msg(open_q(qm, target, IN), md) == data
        assert _context(md) == dict(ORIGINAL, UserIdentifier=user.ljust(12))


def test_pass_identity_context_passes_identity_only(qm, queues):
    """MQPMO_PASS_IDENTITY_CONTEXT passes the identity context; the origin context is the
    putting application's, made now."""
    source, target = queues
    inq = open_q(qm, source, SAVE)
    get_msg(inq)
    outq = open_q(qm, target, OUT | CMQC.MQOO_PASS_IDENTITY_CONTEXT)
    outq.put(b"first", pymqi.MD(), pymqi.PMO(Options=PASS_IDENTITY,
                                             Context=inq.get_handle().hobj))
    md = _got_from(qm, target)
    assert {f: getattr(md, f) for f in IDENTITY} == {f: ORIGINAL[f] for f in IDENTITY}
    assert md.PutApplName != ORIGINAL["PutApplName"]
    assert md.PutApplType == CMQC.MQAT_TPF and md.PutDate != ORIGINAL["PutDate"]


def test_put1_passes_context_too(qm, queues):
    """MQPUT1 with MQPMO_PASS_ALL_CONTEXT passes the context of the Context handle."""
    source, target = queues
    inq = open_q(qm, source, SAVE)
    get_msg(inq)
    qm.put1(target, b"first", pymqi.MD(),
            pymqi.PMO(Options=PASS_ALL, Context=inq.get_handle().hobj))
    assert _context(_got_from(qm, target)) == ORIGINAL


def test_the_context_field_takes_the_queues_handle_as_pymqi_code_gives_it(qm, queues):
    """pymqi code names the handle by ``queue.get_handle()``: the PMO's Context takes it
    (as its number) and the context passes."""
    source, target = queues
    inq = open_q(qm, source, SAVE)
    get_msg(inq)
    pmo = pymqi.PMO(Options=PASS_ALL)
    pmo.Context = inq.get_handle()
    assert pmo.Context == inq.get_handle().hobj
    open_q(qm, target, OUT | CMQC.MQOO_PASS_ALL_CONTEXT).put(b"first", pymqi.MD(), pmo)
    assert _context(_got_from(qm, target)) == ORIGINAL


@pytest.mark.parametrize("option", [PASS_ALL, PASS_IDENTITY], ids=["all", "identity"])
@pytest.mark.parametrize("source_of", ["none", "no-save", "output", "closed"])
def test_a_context_handle_that_saves_no_context_fails_2097(qmgr, qm, queues, option,
                                                           source_of):
    """The Context handle is not a queue handle open on the connection (MQHO_NONE, a closed
    one) or was not opened with MQOO_SAVE_ALL_CONTEXT: the put fails
    MQRC_CONTEXT_HANDLE_ERROR and puts nothing, MQPUT1 too (leaving no handle open)."""
    source, target = queues
    hobj = CMQC.MQHO_NONE
    if source_of != "none":
        options = {"no-save": IN, "output": OUT}.get(source_of, SAVE)
        q = open_q(qm, source, options)
        if options != OUT:
            get_msg(q)
        hobj = q.get_handle().hobj
        if source_of == "closed":
            q.close()
    outq = open_q(qm, target, OUT | CMQC.MQOO_PASS_ALL_CONTEXT)
    with pytest.raises(pymqi.MQMIError) as info:
        outq.put(b"x", pymqi.MD(), pymqi.PMO(Options=option, Context=hobj))
    check_reason(info, CMQC.MQRC_CONTEXT_HANDLE_ERROR)
    with pytest.raises(pymqi.MQMIError) as info:
        qm.put1(target, b"x", pymqi.MD(), pymqi.PMO(Options=option, Context=hobj))
    check_reason(info, CMQC.MQRC_CONTEXT_HANDLE_ERROR)
    assert depth(qm, target) == 0
    assert qmgr.queues[target].output_count == 1  # (outq's: MQPUT1 closed its own)


def test_no_message_got_yet_fails_2098(qm, queues):
    """A Context handle opened with MQOO_SAVE_ALL_CONTEXT that has got no message yet has
    no context to pass: MQRC_CONTEXT_NOT_AVAILABLE, nothing put."""
    source, target = queues
    inq = open_q(qm, source, SAVE)
    outq = open_q(qm, target, OUT | CMQC.MQOO_PASS_ALL_CONTEXT)
    with pytest.raises(pymqi.MQMIError) as info:
        outq.put(b"x", pymqi.MD(), pymqi.PMO(Options=PASS_ALL, Context=inq.get_handle().hobj))
    check_reason(info, CMQC.MQRC_CONTEXT_NOT_AVAILABLE)
    assert depth(qm, target) == 0


def test_a_browse_after_the_get_leaves_no_context_2098(qm, queues):
    """When the last successful MQGET of the Context handle was a browse, there is no
    context to pass (2098); the next destructive get saves one again."""
    source, target = queues
    inq = open_q(qm, source, SAVE | CMQC.MQOO_BROWSE)
    outq = open_q(qm, target, OUT | CMQC.MQOO_PASS_ALL_CONTEXT)
    pmo = pymqi.PMO(Options=PASS_ALL, Context=inq.get_handle().hobj)
    get_msg(inq)
    get_msg(inq, gmo=pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    with pytest.raises(pymqi.MQMIError) as info:
        outq.put(b"x", pymqi.MD(), pmo)
    check_reason(info, CMQC.MQRC_CONTEXT_NOT_AVAILABLE)
    assert get_msg(inq, gmo=pymqi.GMO(Options=CMQC.MQGMO_MSG_UNDER_CURSOR)) == b"second"
    outq.put(b"second", pymqi.MD(), pmo)
    md = pymqi.MD()
    assert get_msg(open_q(qm, target, IN), md) == b"second"
    assert md.UserIdentifier == b"bob".ljust(12)
