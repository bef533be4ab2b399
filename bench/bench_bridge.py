"""Benchmarks of the ROUTC bridge (issue 27), in one process, beside baselines of the same run.

Run with ``.venv/bin/python -m pytest bench/bench_bridge.py -p no:randomly``.

One round sends ``REQUESTS`` nonpersistent 40-byte requests and collects every reply (by
MQGET on the reply queue, the requester's side, the same in each variant):

- **subject, bridged**: ``system.bridge.deliver`` as the fast receiver calls it; one entry
  per request runs CMQB, CUIW, COA4 and the application, which answers with ROUTC; the
  bridge puts the MQ reply (MQPUT1).
- **baseline, MQ application, one server loop**: the requester puts the requests on a
  queue; one server loop serves them with MQGET + MQPUT (CorrelId = MsgId), no entries.
- **baseline, MQ application, one entry per request**: the same server, as a TPF MQ
  application: TRIGTYPE EVERY starts one entry per request, which MQGETs it and MQPUTs
  the reply (the bridge also runs one entry per request).
- **floor, one entry + reply per request**: the least any bridge must do here: one
  CREEC entry per request whose program MQPUTs the reply on a queue kept open, as the
  bridge does (no CUIW, COA4, AM0SG, WGTA, RCPL).

The issue's speed goal (at least 20 000 bridged request/replies a second over a fast
channel between two processes) is measured by ``bench_bridge_wire.py``, beside its floor
and baseline.
"""

from __future__ import annotations

import itertools
import threading

import pytest

import tpfemu
import tpfemu.mqi as pymqi
from ecb import Ecb, Level
from tpfemu.bridge import Am0sg, Rcpl
from tpfemu.mq.headers import TMC2
from tpfemu.mqi import CMQC

REQUESTS = 2_000
ROUNDS = 5
TEXT = b"AVL 0815 12DEC".ljust(40)
_ids = itertools.count()


def _avl1(ecb: Ecb) -> None:
    """The bridged application: answer the AM0SG on D0 by ROUTC."""
    block = ecb.block(Level.D0)
    message = Am0sg.unpack(block)
    rcpl = Rcpl.unpack(ecb.ebw[0:16])
    block[:] = Am0sg(b"SEATS 042 " + message.text[:20]).pack()
    ecb.routc(rcpl.reply(), Level.D0)


def _mq_server(ecb: Ecb) -> None:
    """The MQ application started per request (TRIGTYPE EVERY, MQTMC2 on D0): MQGET one
    request, MQPUT its reply."""
    qm = pymqi.connect("TPF1")
    tm = TMC2().unpack(bytes(ecb.block(Level.D0)[:732]))
    q = pymqi.Queue(qm, bytes(tm.QName).strip().decode(), CMQC.MQOO_INPUT_SHARED)
    md = pymqi.MD()
    try:
        data = q.get(None, md)
    except pymqi.MQMIError:
        return
    qm.put1(md.ReplyToQ, b"SEATS 042 " + data[:20],
            pymqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId))


_FLOOR: dict = {}


def _floor(ecb: Ecb) -> None:
    """The floor's program: MQPUT the reply on the queue kept open, nothing else."""
    with _FLOOR["lock"]:
        _FLOOR["queue"].put(b"SEATS 042 " + TEXT[:20],
                            pymqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=bytes(ecb.ebw[0:24])))


@pytest.fixture(scope="module")
def system():
    with tpfemu.System.start(name="TPF1", istreams=2) as system:
        for command in ("ZMQSC DEF MQP", "ZMQSC DEF QL-BENCH.REPLY", "ZMQSC DEF QL-BENCH.REQ",
                        "ZMQSC DEF PROC-BENCH.PROC APPLID-QSV1",
                        "ZMQSC DEF QL-BENCH.TRIG TRIGGER TRIGTYPE-EVERY PROCESS-BENCH.PROC",
                        "ZBRDG DEF LN-0A0101 APPL-AVL1 RQ-* RQM-TPF1"):
            response = system.console(command)
            assert "E " not in response[:10], response
        system.programs.load("AVL1", _avl1)
        system.programs.load("QSV1", _mq_server)
        system.programs.load("FLR1", _floor)
        floor_qm = pymqi.connect("TPF1")  # outside any entry: it lasts, as the bridge's
        _FLOOR.update(lock=threading.Lock(),
                      queue=pymqi.Queue(floor_qm, "BENCH.REPLY", CMQC.MQOO_OUTPUT))
        yield system
        assert not system.dispatcher.dumps, system.dispatcher.dumps[0].text


@pytest.fixture(scope="module")
def requester(system):
    qm = pymqi.connect("TPF1")
    replies = pymqi.Queue(qm, "BENCH.REPLY", CMQC.MQOO_INPUT_SHARED)
    yield qm, replies
    replies.close()
    qm.disconnect()


def _collect(replies, count: int) -> None:
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10_000)
    for _ in range(count):
        replies.get(None, pymqi.MD(), gmo)


def _run(benchmark, fn):
    return benchmark.pedantic(fn, rounds=ROUNDS, iterations=1, warmup_rounds=1)


def test_bridged_request_reply(benchmark, tag, system, requester):
    """Requests through deliver(), answered by ROUTC, replies got by the requester."""
    benchmark.group = "bridge request/reply (in process)"
    tag("subject", ops=REQUESTS)
    deliver, replies = system.bridge.deliver, requester[1]

    def run():
        for _ in range(REQUESTS):
            md = pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT, ReplyToQ=b"BENCH.REPLY",
                          ReplyToQMgr=b"TPF1", MsgId=b"%024d" % next(_ids))
            deliver("BENCH.FAST", md, TEXT)
        _collect(replies, REQUESTS)

    _run(benchmark, run)


def test_mq_application_server_loop(benchmark, tag, requester):
    """Baseline: the requester MQPUTs, one server loop MQGETs and MQPUTs each reply."""
    benchmark.group = "bridge request/reply (in process)"
    tag("baseline", ops=REQUESTS)
    qm, replies = requester
    out = pymqi.Queue(qm, "BENCH.REQ", CMQC.MQOO_OUTPUT)
    server_in = pymqi.Queue(qm, "BENCH.REQ", CMQC.MQOO_INPUT_SHARED)

    def run():
        for _ in range(REQUESTS):
            out.put(TEXT, pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT,
                                   ReplyToQ=b"BENCH.REPLY", MsgId=b"%024d" % next(_ids)))
        for _ in range(REQUESTS):
            md = pymqi.MD()
            data = server_in.get(None, md)
            qm.put1(md.ReplyToQ, b"SEATS 042 " + data[:20],
                    pymqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId))
        _collect(replies, REQUESTS)

    _run(benchmark, run)
    out.close()
    server_in.close()


def test_mq_application_entry_per_request(benchmark, tag, requester):
    """Baseline: TRIGTYPE EVERY starts one MQ application entry per request."""
    benchmark.group = "bridge request/reply (in process)"
    tag("baseline", ops=REQUESTS)
    qm, replies = requester
    out = pymqi.Queue(qm, "BENCH.TRIG", CMQC.MQOO_OUTPUT)

    def run():
        for _ in range(REQUESTS):
            out.put(TEXT, pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT,
                                   ReplyToQ=b"BENCH.REPLY", MsgId=b"%024d" % next(_ids)))
        _collect(replies, REQUESTS)

    _run(benchmark, run)
    out.close()


def test_floor_entry_and_reply_per_request(benchmark, tag, system, requester):
    """Floor: one CREEC entry per request that only MQPUT1s the reply."""
    benchmark.group = "bridge request/reply (in process)"
    tag("baseline", ops=REQUESTS)
    creec, replies = system.dispatcher.creec, requester[1]
    block = Am0sg(TEXT).pack()

    def run():
        for _ in range(REQUESTS):
            creec("FLR1", block, b"%024d" % next(_ids))
        _collect(replies, REQUESTS)

    _run(benchmark, run)
