"""Benchmarks of the MQI (issue 4), each beside baselines from the same run.

Run with ``make bench`` (or ``.venv/bin/python -m pytest bench/bench_mqi.py``).

Goals (issue 4):
- MQI put+get of 1 KB, non-persistent, through ``Queue.put``/``Queue.get``: at least 1.0x
  ``queue.PriorityQueue`` put+get measured in the same run — full MQ semantics no slower
  than a bare Python priority queue.
- IBM's RR-BB shape in process (request put; server get; reply put with CorrelId = the
  request's MsgId; requester get by CorrelId): round trips per second on one core, beside
  IBM MQ 9.3's published figure of about 33 000 round trips per second per core
  (performance-anchors.md, §1: 1 034 401 RT/s on 32 cores). Goal: at least 4x that.
"""

from __future__ import annotations

import itertools
import queue

import pytest

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr.manager import QueueManager

PAYLOAD = b"x" * 1024
PAIRS = 5_000
ROUNDS = 15
IBM_RT_PER_CORE = 1_034_401 / 32  # IBM MQ 9.3 xLinux RR-BB 2 KB, non-persistent


@pytest.fixture(scope="module")
def qmgr():
    manager = QueueManager("BENCHQM").start()
    manager.catalog.define("MQP")
    for name in ("BENCH.Q", "BENCH.REQ", "BENCH.REPLY"):
        manager.catalog.define("QL", name)
    yield manager
    manager.stop()


@pytest.fixture
def bench_q(qmgr):
    """A connection and BENCH.Q opened on it for output and input, closed after."""
    qm = pymqi.connect(qmgr.name)
    q = pymqi.Queue(qm, "BENCH.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    yield qm, q
    q.close()
    qm.disconnect()


def _run(benchmark, fn, rounds=ROUNDS):
    return benchmark.pedantic(fn, rounds=rounds, iterations=1, warmup_rounds=1)


def test_mqi_put_get(benchmark, tag, bench_q):
    """Queue.put + Queue.get of 1 KB, non-persistent, no MD: one MQI call each."""
    benchmark.group = "MQI put+get 1KB"
    tag("subject", ops=PAIRS, goal=1.0, goal_vs="priorityqueue")
    q = bench_q[1]
    put, get = q.put, q.get

    def run():
        for _ in range(PAIRS):
            put(PAYLOAD)
            get()

    _run(benchmark, run)


def test_mqi_put_get_with_md(benchmark, tag, bench_q):
    """The same with an MD on each call (priority in, MsgId/CorrelId and context out):
    shown beside the same baseline; the issue's goal is the call without one."""
    benchmark.group = "MQI put+get 1KB"
    tag("subject", ops=PAIRS)
    q = bench_q[1]

    def run():
        for i in range(PAIRS):
            q.put(PAYLOAD, pymqi.MD(Priority=i % 10))
            q.get(None, pymqi.MD())

    _run(benchmark, run)


def test_mqi_put_get_with_md_pmo_gmo(benchmark, tag, bench_q):
    """The same with an MD, a PMO and a GMO on each call, as pymqi programs usually
    write it (MQPMO_NEW_MSG_ID | MQPMO_NO_SYNCPOINT, MQGMO_NO_SYNCPOINT), one MD reused
    for the puts: shown beside the same baseline."""
    benchmark.group = "MQI put+get 1KB"
    tag("subject", ops=PAIRS)
    q = bench_q[1]
    md = pymqi.MD()
    pmo = pymqi.PMO(Options=CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_NO_SYNCPOINT)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)

    def run():
        for i in range(PAIRS):
            md.Priority = i % 10
            q.put(PAYLOAD, md, pmo)
            q.get(None, pymqi.MD(), gmo)

    _run(benchmark, run)


def test_mqi_put_get_in_syncpoint(benchmark, tag, bench_q):
    """A unit of work per pair, as a transactional server runs: MQGET of the waiting
    message and MQPUT of the next, both in syncpoint (an MD, a PMO and a GMO), then
    MQCMIT; shown beside the same baseline."""
    benchmark.group = "MQI put+get 1KB"
    tag("subject", ops=PAIRS)
    qm, q = bench_q
    md = pymqi.MD()
    pmo = pymqi.PMO(Options=CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_SYNCPOINT)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    commit = qm.commit
    q.put(PAYLOAD)  # the message the first get takes

    def run():
        for _ in range(PAIRS):
            q.get(None, pymqi.MD(), gmo)
            q.put(PAYLOAD, md, pmo)
            commit()

    _run(benchmark, run)
    q.get()  # the queue empty again for the next benchmark


def test_priorityqueue(benchmark, tag):
    """Baseline: queue.PriorityQueue put((priority, seq, payload)) + get()."""
    benchmark.group = "MQI put+get 1KB"
    tag("baseline", ops=PAIRS)
    pq, counter = queue.PriorityQueue(), itertools.count()
    put, get = pq.put, pq.get

    def run():
        for i in range(PAIRS):
            put((-(i % 10), next(counter), PAYLOAD))
            get()

    _run(benchmark, run)


ROUND_TRIPS = 2_000


def test_rr_bb_round_trips(benchmark, tag, qmgr, external):
    """RR-BB in one process: request put, server get, reply put (CorrelId = request
    MsgId), requester get by CorrelId; 2 KB messages, non-persistent."""
    benchmark.group = "RR-BB round trip, 2KB"
    tag("subject", ops=ROUND_TRIPS)
    qm = pymqi.connect(qmgr.name)
    req_out = pymqi.Queue(qm, "BENCH.REQ", CMQC.MQOO_OUTPUT)
    req_in = pymqi.Queue(qm, "BENCH.REQ", CMQC.MQOO_INPUT_SHARED)
    rep_out = pymqi.Queue(qm, "BENCH.REPLY", CMQC.MQOO_OUTPUT)
    rep_in = pymqi.Queue(qm, "BENCH.REPLY", CMQC.MQOO_INPUT_SHARED)
    payload = b"r" * 2048
    gmo = pymqi.GMO(Version=CMQC.MQGMO_VERSION_2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)

    def run():
        for _ in range(ROUND_TRIPS):
            req_md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"BENCH.REPLY")
            req_out.put(payload, req_md)
            server_md = pymqi.MD()
            request = req_in.get(None, server_md)
            rep_out.put(request, pymqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=server_md.MsgId))
            rep_in.get(None, pymqi.MD(CorrelId=req_md.MsgId), gmo)

    result = _run(benchmark, run, rounds=7)
    del result
    stats = benchmark.stats.stats
    per_rt_ns = stats.median * 1e9 / ROUND_TRIPS
    external("RR-BB round trip per core", "tpfemu MQI, in process", per_rt_ns,
             "IBM MQ 9.3 published, per core", 1e9 / IBM_RT_PER_CORE)
    for q in (req_out, req_in, rep_out, rep_in):
        q.close()
    qm.disconnect()
