"""``tpfemu demo --channels``: two TPF systems doing request/reply over channels, with a cut
connection and its recovery.

System B (queue manager TPFB) serves requests on BANK.REQUEST; system A (TPFA) sends them
through REMOTE.REQUEST over channel A.TO.B and takes the replies from its BANK.REPLY over
B.TO.A (the reply-to rule fills in ReplyToQMgr). Half way, B's end of A.TO.B is cut while
a batch is on its way: A's sender retries, the two ends resynchronise, and every request
is answered exactly once. The System is handed in (``start(name)``), so this module needs
nothing above the channels' layer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.mq.structs import GMO, MD, OD, PMO
from tpfemu.mqi import api as mqi

__all__ = ["run"]

_A = ("ZMQSC DEF MQP", "ZMQSC DEF QL-BANK.REPLY", "ZMQSC DEF QL-TPFB USAGE-XMITQ",
      "ZMQSC DEF QR-REMOTE.REQUEST RNAME-BANK.REQUEST RQMNAME-TPFB XMITQ-TPFB",
      "ZINET ADD S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8",
      "ZINET START S-MQS", "ZMQSC DEF CHL-B.TO.A CHLTYPE-RCVR")
_B = ("ZMQSC DEF MQP", "ZMQSC DEF QL-BANK.REQUEST", "ZMQSC DEF QL-TPFA USAGE-XMITQ",
      "ZINET ADD S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8",
      "ZINET START S-MQS", "ZMQSC DEF CHL-A.TO.B CHLTYPE-RCVR")


def _wait(check: Callable[[], bool], timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _serve(qmgr: str, count: int, stop: Callable[[], bool]) -> int:
    """B's application: answer each request to its ReplyToQ at its ReplyToQMgr."""
    qm = mqi.connect(qmgr)
    served = 0
    try:
        requests = mqi.Queue(qm, "BANK.REQUEST", cmqc.MQOO_INPUT_AS_Q_DEF)
        while served < count and not stop():
            md = MD()
            try:
                data = requests.get(None, md, GMO(Options=cmqc.MQGMO_WAIT, WaitInterval=200))
            except errors.MQMIError as exc:
                if exc.reason == cmqc.MQRC_NO_MSG_AVAILABLE:
                    continue
                raise
            reply = MD(MsgType=cmqc.MQMT_REPLY, CorrelId=md.MsgId,
                       Persistence=md.Persistence)
            od = OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr)
            qm.put1(od, b"BALANCE OF " + data + b": 100.00", reply)
            served += 1
    finally:
        qm.disconnect()
    return served


def run(start: Callable[[str], Any], say: Callable[[str], None], count: int = 20) -> bool:
    """Run the demo; ``start(name)`` boots a System. Returns True when every request was
    answered exactly once."""
    import threading

    a, b = start("TPFA"), start("TPFB")
    try:
        say("1. Two TPF systems: TPFA (requests) and TPFB (the bank application)")
        for system, commands in ((a, _A), (b, _B)):
            for command in commands:
                say(f"   {system.name}> {command}")
                for line in system.console(command).splitlines():
                    say(f"   {line}")
        port_a, port_b = a.inetd.servers["MQS"].port, b.inetd.servers["MQS"].port
        for system, text in (
                (a, f"ZMQSC DEF CHL-A.TO.B CHLTYPE-SDR CONNAME-'127.0.0.1({port_b})' "
                    "XMITQ-TPFB BATCHSZ-5 SHORTTMR-1"),
                (b, f"ZMQSC DEF CHL-B.TO.A CHLTYPE-SDR CONNAME-'127.0.0.1({port_a})' "
                    "XMITQ-TPFA BATCHSZ-5 SHORTTMR-1"),
                (a, "ZMQSC START CHL-A.TO.B"), (b, "ZMQSC START CHL-B.TO.A")):
            say(f"   {system.name}> {text}")
            for line in system.console(text).splitlines():
                say(f"   {line}")
        _wait(lambda: a.channels.status("A.TO.B").state == "RUNNING"
              and b.channels.status("B.TO.A").state == "RUNNING")
        say(f"2. TPFA sends {count} requests to REMOTE.REQUEST; TPFB answers each")
        done = threading.Event()
        served: list[int] = []
        server = threading.Thread(target=lambda: served.append(
            _serve("TPFB", count, done.is_set)), daemon=True)
        server.start()
        qm = mqi.connect("TPFA")
        out = mqi.Queue(qm, "REMOTE.REQUEST", cmqc.MQOO_OUTPUT)
        sent = []
        for i in range(count):
            md = MD(MsgType=cmqc.MQMT_REQUEST, ReplyToQ=b"BANK.REPLY",
                    Persistence=cmqc.MQPER_PERSISTENT)
            out.put(b"ACCOUNT %04d" % i, md, PMO())
            sent.append(bytes(md.MsgId))
            if i == count // 2:
                say("3. The connection of A.TO.B is cut while requests flow")
                receiver = b.channels.receivers.get("A.TO.B")
                if receiver is not None:
                    receiver.link.shutdown()
        replies = mqi.Queue(qm, "BANK.REPLY", cmqc.MQOO_INPUT_AS_Q_DEF)
        got: dict[bytes, bytes] = {}
        for _ in range(count):
            md = MD()
            try:
                data = replies.get(None, md, GMO(Options=cmqc.MQGMO_WAIT, WaitInterval=20000))
            except errors.MQMIError:
                break
            got.setdefault(bytes(md.CorrelId), data)
        done.set()
        server.join(5)
        qm.disconnect()
        say("4. What the consoles said about the channel")
        for system in (a, b):
            for line in system.log:
                if line.startswith("CHNL"):
                    say(f"   {system.name}: {line}")
        for line in a.console("ZMQSC DISP CHL-A.TO.B").splitlines()[:5]:
            say(f"   {line}")
        ok = sorted(got) == sorted(sent) and served == [count]
        say(f"5. Requests {count}, replies matched by CorrelId {len(got)}, served once each: "
            f"{'yes' if ok else 'NO'}")
        return ok
    finally:  # the senders first: neither then retries towards a system already gone
        a.console("ZMQSC STOP CHL-A.TO.B")
        b.console("ZMQSC STOP CHL-B.TO.A")
        a.stop()
        b.stop()
