"""Assured delivery through faults: a cutting proxy drops the channel's connection in the
middle of a segment, before the receiver's STATUS reaches the sender, and right after it;
the sender retries at once and the two ends resynchronise. No persistent message is lost
or delivered twice; on a normal channel no nonpersistent message is delivered twice; on a
fast channel no nonpersistent message is sent again."""

from __future__ import annotations

import collections
import threading
import time

import pytest
from mca_helpers import depth, drain, ok, receiving, sending, start, status, unique, wait_for
from mca_proxy import CuttingProxy

from tpfemu import mqi
from tpfemu.mqi import CMQC


class Bridge:
    """Counts what a fast receiver hands to the bridge."""

    def __init__(self) -> None:
        self.got: list[bytes] = []
        self.lock = threading.Lock()

    def deliver(self, channel: str, md: mqi.MD, data: bytes) -> None:
        with self.lock:
            self.got.append(data)


def _produce(qmgr: str, proxy: CuttingProxy, backlog) -> list[tuple[bytes, int]]:
    """Put numbered messages (every third persistent) until the proxy made its cuts,
    keeping the transmission queue's backlog short."""
    sent: list[tuple[bytes, int]] = []
    qm = mqi.connect(qmgr)
    try:
        q = mqi.Queue(qm, "REMOTE.Q", CMQC.MQOO_OUTPUT)
        deadline = time.monotonic() + 90
        i = 0
        while proxy.cuts_left > 0 and time.monotonic() < deadline:
            if backlog() > 60:
                time.sleep(0.005)
                continue
            for _ in range(20):
                persistence = CMQC.MQPER_PERSISTENT if i % 3 == 0 else CMQC.MQPER_NOT_PERSISTENT
                data = b"%07d" % i
                q.put(data, mqi.MD(Persistence=persistence))
                sent.append((data, persistence))
                i += 1
    finally:
        qm.disconnect()
    return sent


def _run(cuts: int, speed: str) -> None:
    a, b = start(unique("CA")), start(unique("CB"))
    proxy = None
    try:
        port = receiving(b, ("C.TO.B",), speed=speed)
        ok(b, "ZMQSC DEF QL-LOCAL.Q MAXDEPTH-999999")
        bridge = Bridge()
        b.fast_delivery = bridge
        proxy = CuttingProxy(("127.0.0.1", port), cuts)
        sending(a, "C.TO.B", proxy.port, "XQ", speed=speed, batchsz=10,
                extra="SHORTRTY-999999 SHORTTMR-0")
        ok(a, "ZMQSC ALT QL-XQ MAXDEPTH-999999")
        ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{b.name} XMITQ-XQ")
        ok(a, "ZMQSC START CHL-C.TO.B")
        sent = _produce(a.name, proxy, lambda: depth(a, "XQ"))
        assert proxy.cuts_left <= 0, f"only {cuts - proxy.cuts_left} cuts in 90 s"
        wait_for(lambda: depth(a, "XQ") == 0 and status(a, "C.TO.B") == "RUNNING"
                 and not a.channels.status("C.TO.B").indoubt, timeout=60,
                 what="the transmission queue emptied")
        assert set(proxy.made) == {"mid", "before_status", "after_status"}
        got = collections.Counter(d for d, _ in drain(b.name, "LOCAL.Q"))
        got_bridge = collections.Counter(bridge.got)
        persistent = [d for d, p in sent if p == CMQC.MQPER_PERSISTENT]
        nonpersistent = [d for d, p in sent if p != CMQC.MQPER_PERSISTENT]
        assert all(got[d] == 1 for d in persistent), "a persistent message lost or doubled"
        assert not (got.keys() - set(persistent) - set(nonpersistent))
        if speed == "FAST":
            assert all(n == 1 for n in got_bridge.values()), "a fast message sent again"
            assert not any(got[d] for d in nonpersistent)
        else:
            assert all(got[d] == 1 for d in nonpersistent), "a nonpersistent message lost " \
                                                            "or doubled on a normal channel"
        assert any("IN-DOUBT BATCH" in line and "WAS COMMITTED" in line for line in a.log)
    finally:
        if proxy is not None:
            proxy.close()
        a.stop()
        b.stop()


@pytest.mark.parametrize("speed", ["NORMAL", "FAST"])
def test_twenty_cuts_lose_and_double_nothing(speed):
    """20 cuts at random points: every persistent message arrives once; on a normal channel
    every nonpersistent one too; on a fast one none is sent twice."""
    _run(20, speed)


@pytest.mark.slow
@pytest.mark.parametrize("speed", ["NORMAL", "FAST"])
def test_two_hundred_cuts_lose_and_double_nothing(speed):
    """200 cuts at random points, the same guarantees."""
    _run(200, speed)
