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
"""

from __future__ import annotations

import sys

import tpfemu
from ecb import Ecb, Level
from tpfemu import mqi
from tpfemu.bridge import Am0sg, Rcpl
from tpfemu.mqi import CMQC

EBCDIC = "cp037"
REQUESTER_QMGR = "TPF1"  # with a fast channel, the partner queue manager's name
REPLY_QUEUE = "INQ.REPLY"
CHANNEL = "PARTNER.TO.TPF1"


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


def setup(system: tpfemu.System) -> None:
    """The operator's part: the profile, the reply queue, AVL1 and its terminal."""
    system.console("ZMQSC DEF MQP")
    system.console(f"ZMQSC DEF QL-{REPLY_QUEUE}")
    system.programs.load("AVL1", avl1)
    system.console(f"ZBRDG DEF LN-0A0101 APPL-AVL1 RQ-* RQM-{REQUESTER_QMGR}")


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


def main(argv: list[str]) -> int:
    count = int(argv[1]) if len(argv) > 1 else 100
    with tpfemu.System.start(name="TPF1") as system:
        setup(system)
        matched = run(system, count)
        print(system.console("ZBRDG DISP LN-0A0101"))
    print(f"{matched} of {count} replies matched their requests")
    return 0 if matched == count else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
