"""The sender keeps two batches on the wire: the second asks for confirmation before the
first one's STATUS is read, with both recorded in doubt; a break then leaves both in
doubt, and the next start settles each by RESYNC without losing or doubling a message."""

from __future__ import annotations

from mca_helpers import depth, drain, ok, put, receiving, sending, start, status, unique, wait_for
from mca_proxy import CuttingProxy

from tpfemu import mqi
from tpfemu.channels.syncstore import SyncRecord, SyncStore
from tpfemu.mqi import CMQC


def _durable_record(system, channel: str) -> SyncRecord:
    qm = mqi.connect(system.name)
    try:
        store = SyncStore(qm)
        try:
            return store.read(channel)
        finally:
            store.close()
    finally:
        qm.disconnect()


def test_two_batches_in_doubt_are_settled_at_the_next_start():
    """With the first batch's STATUS dropped and the connection cut, the sender stops with
    both batches in its durable record (the second as in doubt, the first as prior); the
    next start removes what the receiver committed and sends the rest: 6 messages arrive
    once each."""
    a, b = start(unique("WA")), start(unique("WB"))
    try:
        port = receiving(b, ("W.TO.B",))
        ok(b, "ZMQSC DEF QL-LOCAL.Q")
        proxy = CuttingProxy(("127.0.0.1", port), cuts=1, modes=("before_status",), after=12)
        sending(a, "W.TO.B", proxy.port, "XQ", batchsz=3, extra="SHORTRTY-0 LONGRTY-0")
        ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{b.name} XMITQ-XQ")
        for i in range(6):
            put(a.name, "REMOTE.Q", b"w%d" % i, Persistence=CMQC.MQPER_PERSISTENT)
        ok(a, "ZMQSC START CHL-W.TO.B")
        wait_for(lambda: status(a, "W.TO.B") == "STOPPED"
                 and not a.channels.is_running("W.TO.B"), what="the sender's end")
        assert proxy.made == ["before_status"]
        record = _durable_record(a, "W.TO.B")
        assert record.indoubt and record.has_prior and record.seq == 0
        assert (record.prior_seq, record.cur_seq) == (3, 6)
        assert len(record.prior_ids) == len(record.msg_ids) == 3
        assert depth(a, "XQ") == 6  # nothing committed at the sender
        ok(a, "ZMQSC START CHL-W.TO.B")
        wait_for(lambda: depth(a, "XQ") == 0 and not a.channels.status("W.TO.B").indoubt,
                 timeout=30, what="the batches settled and sent")
        got = sorted(data for data, _ in drain(b.name, "LOCAL.Q", wait=2.0))
        assert got == [b"w%d" % i for i in range(6)]
        assert not _durable_record(a, "W.TO.B").has_prior
        proxy.close()
    finally:
        a.stop()
        b.stop()


def test_sync_record_keeps_a_prior_batch():
    """A record with a prior in-doubt batch packs and unpacks to itself; settling it
    clears both batches."""
    record = SyncRecord("X", 3, b"a" * 8, True, 9, b"b" * 8, 0, (b"1" * 24, b"2" * 24),
                        6, b"c" * 8, (b"3" * 24,))
    assert SyncRecord.unpack("X", record.pack()) == record and record.has_prior
    settled = record.settled(9, b"b" * 8)
    assert (settled.seq, settled.luwid, settled.indoubt, settled.has_prior) == (
        9, b"b" * 8, False, False)
    assert SyncRecord.unpack("X", settled.pack()) == settled
