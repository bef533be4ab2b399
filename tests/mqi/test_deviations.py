"""Pins of docs/deviations.md that no other test holds: where tpfemu differs from IBM MQ
on purpose, each behaviour shown as it is (a change to one of them must change the
document too)."""

from __future__ import annotations

import struct
import time

import pytest
from mq_helpers import raises_mq

import tpfemu.mqi as pymqi
from tpfemu._lowlevel import CoreQueue
from tpfemu.mq.headers import XQH
from tpfemu.mqi import CMQC

IN_OUT = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_BROWSE


def test_generated_msgids_are_the_qmgr_prefix_and_a_counter(qmgr, qm, local_queue):
    """A generated MsgId is ``AMQ `` + the queue manager name (16 bytes, blank-padded)
    followed by an 8-byte big-endian counter that grows with each put."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    ids = []
    for _ in range(3):
        md = pymqi.MD()
        q.put(b"x", md)
        ids.append(bytes(md.MsgId))
    prefix = (b"AMQ " + qmgr.name.encode()).ljust(16)
    assert all(i[:16] == prefix for i in ids)
    counters = [struct.unpack(">Q", i[16:])[0] for i in ids]
    assert counters == sorted(counters) and len(set(counters)) == 3


def test_browse_with_syncpoint_is_outside_the_unit_of_work(qm, local_queue):
    """MQGMO_SYNCPOINT with a browse option is accepted and ignored: the browse takes no
    part in a unit of work, so a backout leaves the message as it was and it stays
    available to a get."""
    q = pymqi.Queue(qm, local_queue, IN_OUT)
    q.put(b"seen")
    gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_SYNCPOINT)
    assert q.get(None, pymqi.MD(), gmo) == b"seen"
    qm.backout()
    md = pymqi.MD()
    assert q.get(None, md) == b"seen" and md.BackoutCount == 0


def test_mark_skip_backout_is_accepted_and_changes_nothing(qm, local_queue):
    """MQGMO_MARK_SKIP_BACKOUT (IBM: z/OS only) is accepted with MQGMO_SYNCPOINT and the
    get is an ordinary syncpoint get: a backout reinstates the message, backout count
    raised, like any other."""
    q = pymqi.Queue(qm, local_queue, IN_OUT)
    q.put(b"marked")
    gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_MARK_SKIP_BACKOUT)
    assert q.get(None, pymqi.MD(), gmo) == b"marked"
    qm.backout()
    md = pymqi.MD()
    assert q.get(None, md) == b"marked" and md.BackoutCount == 1

def test_the_core_purge_removes_a_locked_message():
    """The core's purge (CLEAR QL below the queue manager) removes a committed message a
    cursor has locked and releases the lock; the queue manager refuses CLEAR before that
    (tests/console/test_zmqsc_clear.py)."""
    with CoreQueue("PURGE.Q") as q:
        q.put(b"locked")
        q.put(b"free")
        with q.cursor() as cursor:
            assert cursor.first(lock=True).data == b"locked"
            assert q.purge() == 2
            assert q.depth == 0


def test_mqbegin_warns_no_external_participants(qm):
    """MQBEGIN completes with a warning, MQRC_NO_EXTERNAL_PARTICIPANTS: there is no XA
    coordinator."""
    with raises_mq(CMQC.MQRC_NO_EXTERNAL_PARTICIPANTS, CMQC.MQCC_WARNING):
        qm.begin()


def test_xqh_embedded_expiry_is_not_decremented(qmgr, qm, local_queue):
    """A get from a transmission queue decrements the separate MQMD's Expiry but leaves
    the one in the MQXQH's embedded MQMD as it was put."""
    qmgr.catalog.define("QL", "OTHERQM", usage="XMITQ")
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    pymqi.Queue(qm, "RQ", CMQC.MQOO_OUTPUT).put(b"payload", pymqi.MD(Expiry=6000))
    time.sleep(0.35)
    md = pymqi.MD()
    data = pymqi.Queue(qm, "OTHERQM", CMQC.MQOO_INPUT_SHARED).get(None, md)
    inner = XQH().unpack(data[:CMQC.MQXQH_LENGTH_1]).MsgDesc
    assert md.Expiry < 6000
    assert inner.Expiry == 6000


@pytest.mark.parametrize("flags", [CMQC.MQMF_SEGMENTATION_ALLOWED, CMQC.MQMF_SEGMENT])
def test_no_segmentation(qm, local_queue, flags):
    """Messages are never segmented: a large message put with segmentation flags comes
    back whole, in one get, at offset 0."""
    q = pymqi.Queue(qm, local_queue, IN_OUT)
    body = bytes(range(256)) * 1024  # 256 KB
    q.put(body, pymqi.MD(MsgFlags=flags))
    md = pymqi.MD()
    assert q.get(None, md) == body
    assert md.Offset == 0
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        q.get()


def test_whole_message_get_with_accept_truncated_returns_the_message(qm, local_queue):
    """get(None, md, gmo) with MQGMO_ACCEPT_TRUNCATED_MSG returns the whole message; pymqi
    asks MQGET with a zero-length buffer in that case, which removes the message and
    warns 2079 with no data (deviations.md, "get(None) with MQGMO_ACCEPT_TRUNCATED_MSG")."""
    qm.put1(local_queue, b"0123456789")
    queue = pymqi.Queue(qm, local_queue)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
    assert queue.get(None, pymqi.MD(), gmo) == b"0123456789"
    queue.close()
