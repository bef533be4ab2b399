"""The channels' everyday paths: a receiver puts a plain message (one little-endian segment,
MQMD version 1) by its destination's put plan with the MQMD as it came, and a sender's
batch ends with CONFIRM_REQUEST on its last message however many segments that has. Two
Systems in one process over real TCP."""

from __future__ import annotations

import pytest
from mca_helpers import depth, drain, ok, put, receiving, sending, start, status, unique, wait_for

from tpfemu.channels import destination
from tpfemu.mqi import CMQC


@pytest.fixture
def pair():
    """Systems A and B; channel A.TO.B (BATCHSZ 50), defined but not started; REMOTE.Q on
    A is LOCAL.Q on B."""
    qa, qb = unique("PA"), unique("PB")
    a, b = start(qa), start(qb)
    try:
        port = receiving(b, ("A.TO.B",))
        ok(b, "ZMQSC DEF QL-LOCAL.Q")
        sending(a, "A.TO.B", port, qb)
        ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{qb} XMITQ-{qb}")
        yield a, b
    finally:
        a.stop()
        b.stop()


def test_plain_messages_take_the_plan_and_arrive_as_by_the_full_path(pair, monkeypatch):
    """After the first message of a batch (full path, which makes the plan) the others are
    put by the plan's raw entry, and every one arrives with the same MQMD but its MsgId,
    PutTime and Expiry, each its own."""
    a, b = pair
    served = []
    raw = destination.plans.planned_put_raw

    def counting(*args):
        done = raw(*args)
        served.append(done)
        return done

    monkeypatch.setattr(destination.plans, "planned_put_raw", counting)
    fields = dict(CorrelId=b"C" * 24, Priority=6, MsgType=CMQC.MQMT_REQUEST,
                  ReplyToQ=b"REPLY.Q", Format=CMQC.MQFMT_STRING, Expiry=900_000,
                  Report=CMQC.MQRO_PASS_MSG_ID, Feedback=7, CodedCharSetId=819)
    sent = [put(a.name, "REMOTE.Q", b"m%d" % i, MsgId=b"%024d" % i, **fields)
            for i in range(20)]
    ok(a, "ZMQSC START CHL-A.TO.B")
    wait_for(lambda: depth(b, "LOCAL.Q") == 20, what="20 messages on LOCAL.Q")
    got = drain(b.name, "LOCAL.Q")
    assert [data for data, _ in got] == [b"m%d" % i for i in range(20)]
    assert [md.MsgId for _, md in got] == [md.MsgId for md in sent]
    assert served.count(True) >= 19  # all but the first (the plan was not made yet)

    def context(md):
        values = md.get()
        values.pop("MsgId")
        values.pop("Expiry")  # reduced by the time on the way: compared below
        values.pop("PutTime")  # each message's own: compared below
        return values

    first = context(got[0][1])
    assert all(context(md) == first for _, md in got[1:])
    assert first["CorrelId"] == b"C" * 24 and first["Priority"] == 6
    assert first["PutDate"] == sent[0].PutDate and first["Feedback"] == 7
    assert all(0 < md.Expiry <= 900_000 for _, md in got)
    assert [md.PutTime for _, md in got] == [md.PutTime for md in sent]


def test_a_batch_ending_with_a_long_message_confirms_on_its_last_segment(pair):
    """A message longer than the transmission size (sent in several segments) as the last
    of a batch, and one in the middle, arrive whole; the batches are confirmed (the
    transmission queue empties and the channel counts them)."""
    a, b = pair
    sizes = [10, 100_000, 10, 10, 70_000]
    for i, size in enumerate(sizes):
        put(a.name, "REMOTE.Q", bytes([65 + i]) * size)
    ok(a, "ZMQSC START CHL-A.TO.B")
    wait_for(lambda: depth(b, "LOCAL.Q") == len(sizes), what="all messages on LOCAL.Q")
    wait_for(lambda: depth(a, b.name) == 0, what="the xmitq emptied")
    got = [data for data, _ in drain(b.name, "LOCAL.Q")]
    assert got == [bytes([65 + i]) * size for i, size in enumerate(sizes)]
    wait_for(lambda: a.channels.status("A.TO.B").seq == len(sizes), what="5 confirmed")
    assert status(a, "A.TO.B") == "RUNNING"
