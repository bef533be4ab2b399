"""An availability inquiry driven through the ROUTC bridge: the legacy program AVL1 makes
no MQ call; a requester sends MQ requests and matches every reply to its request.

AVL1 is written as a traditional TPF application: its input message is an AM0SG on data
level D0, in EBCDIC, such as ``AVL 0815 12DEC``; it reads the RCPL at EBW000 to learn the
terminal (LNIATA) that sent it, builds the answer in the same block and returns it with
ROUTC to that terminal, which releases the level. The ROUTC bridge turns the answer into
an MQ reply whose CorrelId is the request's MsgId.

Run ``python examples/bridge/inquiry.py [count]``: it starts a system, has the operator
route replies for its requester to terminal 0A0101 (``ZBRDG``), hands ``count`` requests
to the bridge as the fast receiver channel does (``system.bridge.deliver``), and checks
that every reply matches its request. It exits 1 if any does not.

Run ``python examples/bridge/inquiry.py --wire [count]`` (or ``tpfemu demo --bridge``) to
drive AVL1 from a second system over real channels: system PARTNER sends the requests to
its remote queue AVL.INQUIRY over FAST channel PARTNER.TO.TPF1; TPF1's fast receiver hands
each one to the bridge (it appears on no queue of TPF1), and the ROUTC answers travel back
over channel TPF1.TO.PARTNER to PARTNER's INQ.REPLY, where each is matched to its request.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import tpfemu
from ecb import Ecb, Level
from tpfemu import mqi
from tpfemu.bridge import Am0sg, Rcpl
from tpfemu.mqi import CMQC

EBCDIC = "cp037"
REQUESTER_QMGR = "TPF1"  # with a fast channel, the partner queue manager's name
REPLY_QUEUE = "INQ.REPLY"
CHANNEL = "PARTNER.TO.TPF1"
PARTNER = "PARTNER"
RETURN_CHANNEL = "TPF1.TO.PARTNER"
REMOTE_QUEUE = "AVL.INQUIRY"


def seats_left(flight: str, date: str) -> int:
    """A deterministic made-up seat count for a flight on a date."""
    return sum(map(ord, flight + date)) * 13 % 180


def avl1(ecb: Ecb) -> None:
    """AVL1: answer ``AVL <flight> <date>`` with the seats left, by ROUTC."""
    block = ecb.block(Level.D0)
    assert block is not None, "AVL1 is started with its input message on D0"
    request = Am0sg.unpack(block).text.decode(EBCDIC).split()
    if len(request) == 3 and request[0] == "AVL":
        _, flight, date = request
        answer = f"AVL {flight} {date} SEATS {seats_left(flight, date):03d}"
    else:
        answer = f"ERR FORMAT {' '.join(request)[:40]}"
    rcpl = Rcpl.unpack(ecb.ebw[0:16])
    block[:] = Am0sg(answer.encode(EBCDIC), program="AVL1").pack()
    ecb.routc(rcpl.reply(), Level.D0)


def setup(system: tpfemu.System, requester: str = REQUESTER_QMGR) -> None:
    """The operator's part: the profile, the reply queue, AVL1 and its terminal, which
    CUIW gives to the replies for queue manager ``requester``."""
    system.console("ZMQSC DEF MQP")
    system.console(f"ZMQSC DEF QL-{REPLY_QUEUE}")
    system.programs.load("AVL1", avl1)
    system.console(f"ZBRDG DEF LN-0A0101 APPL-AVL1 RQ-* RQM-{requester}")


def request(n: int) -> tuple[bytes, str]:
    """The MsgId and text of request ``n``."""
    return b"AVL-REQ-%016d" % n, f"AVL {100 + n % 900:04d} {1 + n % 28:02d}DEC"


def run(system: tpfemu.System, count: int) -> int:
    """Send ``count`` requests through the bridge; return how many replies matched."""
    assert system.bridge is not None
    for n in range(count):
        msg_id, text = request(n)
        md = mqi.MD(MsgId=msg_id, ReplyToQ=REPLY_QUEUE.encode(),
                    ReplyToQMgr=REQUESTER_QMGR.encode(), Format=CMQC.MQFMT_STRING,
                    CodedCharSetId=37, Persistence=CMQC.MQPER_NOT_PERSISTENT)
        system.bridge.deliver(CHANNEL, md, text.encode(EBCDIC))
    system.dispatcher.wait_idle(30)
    qm = mqi.connect(system.name)
    replies = mqi.Queue(qm, REPLY_QUEUE, CMQC.MQOO_INPUT_SHARED)
    matched = 0
    for n in range(count):
        msg_id, text = request(n)
        md = mqi.MD(CorrelId=msg_id)
        gmo = mqi.GMO(Version=2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        try:
            answer = replies.get(None, md, gmo).decode(EBCDIC)
        except mqi.MQMIError as exc:
            print(f"request {n} {text!r}: no reply ({exc.reason_name})")
            continue
        _, flight, date = text.split()
        if md.MsgType == CMQC.MQMT_REPLY and answer.startswith(f"AVL {flight} {date} SEATS"):
            matched += 1
            if n < 3:
                print(f"{text} -> {answer}")
        else:
            print(f"request {n} {text!r}: unexpected reply {answer!r}")
    replies.close()
    qm.disconnect()
    return matched


def _operator(system: tpfemu.System, commands: list[str], say: Callable[[str], None]) -> None:
    """Run the operator's commands on ``system``, showing each and its answer."""
    for command in commands:
        say(f"   {system.name}> {command}")
        for line in system.console(command).splitlines():
            say(f"   {line}")


def _wait_running(systems: list[tuple[tpfemu.System, str]], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while not all(s.channels.status(c).state == "RUNNING" for s, c in systems):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _connect(tpf: tpfemu.System, partner: tpfemu.System, say: Callable[[str], None]) -> bool:
    """The operators' part on both systems: listeners, channels both ways, AVL1 and its
    terminal on TPF1, the remote queue on PARTNER; True once both channels run."""
    listen = ["ZMQSC DEF MQP",
              "ZINET ADD S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8 IP-127.0.0.1",
              "ZINET START S-MQS"]
    _operator(tpf, listen, say)
    _operator(partner, listen, say)
    tpf_port = tpf.inetd.servers["MQS"].port
    partner_port = partner.inetd.servers["MQS"].port
    tpf.programs.load("AVL1", avl1)
    _operator(tpf, [
        f"ZMQSC DEF CHL-{CHANNEL} CHLTYPE-RCVR SPEED-FAST",
        f"ZMQSC DEF QL-{PARTNER} USAGE-XMITQ",
        f"ZMQSC DEF CHL-{RETURN_CHANNEL} CHLTYPE-SDR "
        f"CONNAME-'127.0.0.1({partner_port})' XMITQ-{PARTNER} SHORTTMR-1",
        f"ZBRDG DEF LN-0A0101 APPL-AVL1 RQ-* RQM-{PARTNER}",
        f"ZMQSC START CHL-{RETURN_CHANNEL}"], say)
    _operator(partner, [
        f"ZMQSC DEF QL-{REPLY_QUEUE}",
        f"ZMQSC DEF CHL-{RETURN_CHANNEL} CHLTYPE-RCVR",
        f"ZMQSC DEF QL-{tpf.name} USAGE-XMITQ",
        f"ZMQSC DEF QR-{REMOTE_QUEUE} RNAME-{REMOTE_QUEUE} RQMNAME-{tpf.name} "
        f"XMITQ-{tpf.name}",
        f"ZMQSC DEF CHL-{CHANNEL} CHLTYPE-SDR CONNAME-'127.0.0.1({tpf_port})' "
        f"XMITQ-{tpf.name} SPEED-FAST SHORTTMR-1",
        f"ZMQSC START CHL-{CHANNEL}"], say)
    return _wait_running([(partner, CHANNEL), (tpf, RETURN_CHANNEL)])


def _ask(partner: tpfemu.System, count: int, say: Callable[[str], None]) -> int:
    """PARTNER's requester: send ``count`` nonpersistent requests to AVL.INQUIRY, then
    get the reply of each by its CorrelId (the request's MsgId); returns how many
    replies answered their request."""
    qm = mqi.connect(partner.name)
    out = mqi.Queue(qm, REMOTE_QUEUE, CMQC.MQOO_OUTPUT)
    sent = []
    for n in range(count):
        _, text = request(n)
        md = mqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=REPLY_QUEUE.encode(),
                    Format=CMQC.MQFMT_STRING, CodedCharSetId=37,
                    Persistence=CMQC.MQPER_NOT_PERSISTENT)
        out.put(text.encode(EBCDIC), md)
        sent.append((bytes(md.MsgId), text))
    out.close()
    replies = mqi.Queue(qm, REPLY_QUEUE, CMQC.MQOO_INPUT_SHARED)
    matched = 0
    for n, (msg_id, text) in enumerate(sent):
        md = mqi.MD(CorrelId=msg_id)
        gmo = mqi.GMO(Version=2, Options=CMQC.MQGMO_WAIT, WaitInterval=15_000,
                      MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        try:
            answer = replies.get(None, md, gmo).decode(EBCDIC)
        except mqi.MQMIError as exc:
            say(f"   request {n} {text!r}: no reply ({exc.reason_name})")
            continue
        _, flight, date = text.split()
        if md.MsgType == CMQC.MQMT_REPLY and answer.startswith(f"AVL {flight} {date} SEATS"):
            matched += 1
            if n < 3:
                say(f"   {text} -> {answer}")
        else:
            say(f"   request {n} {text!r}: unexpected reply {answer!r}")
    replies.close()
    qm.disconnect()
    return matched


def _depth(system: tpfemu.System, queue: str) -> int:
    qm = mqi.connect(system.name)
    try:
        q = mqi.Queue(qm, queue, CMQC.MQOO_INQUIRE)
        found = q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        q.close()
        return int(found)
    finally:
        qm.disconnect()


def wire(count: int, say: Callable[[str], None] = print) -> bool:
    """The demo over real channels between two systems (see the module docstring);
    True when every request got its reply."""
    tpf = tpfemu.System.start(name="TPF1", journal="off")
    partner = tpfemu.System.start(name=PARTNER, journal="off")
    try:
        say("1. Two systems: TPF1 runs the legacy application AVL1; PARTNER asks it")
        if not _connect(tpf, partner, say):
            say("   the channels did not start")
            return False
        say(f"2. PARTNER sends {count} availability requests over FAST channel {CHANNEL}")
        matched = _ask(partner, count, say)
        say("3. On TPF1 the requests went to the bridge, not to a queue; 0A0101 answered")
        say(f"   queue {REMOTE_QUEUE} on TPF1: "
            f"{'defined' if tpf.qmgr.catalog.find_queue(REMOTE_QUEUE) else 'none'}; "
            f"dead-letter queue depth {_depth(tpf, 'DEAD.LETTER.QUEUE')}")
        for line in tpf.console("ZBRDG DISP LN-0A0101").splitlines()[:7]:
            say(f"   {line}")
        say(f"4. {matched} of {count} replies matched their requests")
        return matched == count
    finally:  # the senders first: neither then retries towards a system already gone
        partner.console(f"ZMQSC STOP CHL-{CHANNEL}")
        tpf.console(f"ZMQSC STOP CHL-{RETURN_CHANNEL}")
        partner.stop()
        tpf.stop()


def main(argv: list[str]) -> int:
    args = argv[1:]
    if args[:1] == ["--wire"]:
        return 0 if wire(int(args[1]) if len(args) > 1 else 100) else 1
    count = int(args[0]) if args else 100
    with tpfemu.System.start(name="TPF1") as system:
        setup(system)
        matched = run(system, count)
        print(system.console("ZBRDG DISP LN-0A0101"))
    print(f"{matched} of {count} replies matched their requests")
    return 0 if matched == count else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
