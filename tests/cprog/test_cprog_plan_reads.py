"""What the plans' raw entries (a C program's MQPUT and MQGET, tpf/plan_raw.h) read at
every call is read afresh: the attributes the gate checks (a generation's ``current``, the
event bus's ``active``, a queue's ``waiters`` and ``expiring``) are read from the slot or
instance dict their type keeps them in, the last value of a dict kept while the dict is
unchanged (native/python/fastattr.h). Each test lets the raw entry read a value, changes
it, and shows the next call acting on the new one."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr import plans

IO = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED
ROOM = 4 * 1024 * 1024  # a get buffer as long as the queue's MAXMSGL (as mqi.c asks)


@pytest.fixture
def queue(system) -> Any:
    """PLAN.Q opened for output and input, its plans made by a first put and get."""
    system.console("ZMQSC DEF QL-PLAN.Q")
    system.console("ZMQSC DEF QL-REPORTS.Q")
    qm = pymqi.connect(system.name)
    q = pymqi.Queue(qm, "PLAN.Q", IO)
    q.put(b"warm", pymqi.MD())
    q.get(None, pymqi.MD())
    yield q
    q.close()
    qm.disconnect()


def raw_put(q: Any, data: bytes, md: Any = None) -> bool:
    """MQPUT by the handle's put plan through the raw entry (MQMD and MQPMO in C layout)."""
    md_buf = bytearray((md or pymqi.MD()).pack())
    return plans.planned_put_raw(q.get_handle().put_plan, data, md_buf,
                                 bytearray(pymqi.PMO().pack()))


def raw_get(q: Any) -> bytes | None:
    """MQGET by the handle's get plan through the raw entry: the data, None if declined."""
    buffer = bytearray(ROOM)
    length = plans.planned_get_raw(q.get_handle().get_plan, bytearray(pymqi.MD().pack()),
                                   bytearray(pymqi.GMO().pack()), buffer)
    return None if length is None else bytes(buffer[:length])


def test_a_listener_subscribed_after_a_raw_put_takes_the_next_one_off_the_plan(
        system, queue):
    """With nobody listening the raw put is served; once a listener subscribes, the next
    raw put is declined (the full path tells the listener); after it leaves, served
    again."""
    assert raw_put(queue, b"one") is True
    heard: list[Any] = []
    system.qmgr.events.subscribe(heard.append)
    assert raw_put(queue, b"two") is False
    system.qmgr.events.unsubscribe(heard.append)
    assert raw_put(queue, b"three") is True
    assert [raw_get(queue) for _ in range(2)] == [b"one", b"three"]


def test_a_raw_put_wakes_a_getter_that_began_waiting_after_the_last_one(system, queue):
    """The raw put and get run with no getter waiting; then a getter waits (another
    connection, another thread), and the next raw put wakes it."""
    assert raw_put(queue, b"before") is True and raw_get(queue) == b"before"
    reader = pymqi.Queue(pymqi.connect(system.name), "PLAN.Q", CMQC.MQOO_INPUT_SHARED)
    got: list[bytes] = []
    wait = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000)
    t = threading.Thread(target=lambda: got.append(reader.get(None, pymqi.MD(), wait)))
    t.start()
    local = queue.get_handle().queue
    for _ in range(500):  # until the reader waits
        if local.waiters:
            break
        time.sleep(0.01)
    assert local.waiters
    started = time.monotonic()
    assert raw_put(queue, b"wake up") is True
    t.join(5)
    assert got == [b"wake up"]
    assert time.monotonic() - started < 2.5, "woken by the put, not by the wait's end"
    reader.close()


def test_a_raw_get_reports_what_expired_on_a_queue_that_began_expiring_after_it(
        system, queue):
    """A raw get on a queue where nothing could expire; then a message that expires is
    put there, and the next raw get reports it expired (to its ReplyToQ), as the full
    path does."""
    assert raw_put(queue, b"before") is True and raw_get(queue) == b"before"
    queue.put(b"short-lived", pymqi.MD(Expiry=1, Report=CMQC.MQRO_EXPIRATION,
                                       ReplyToQ=b"REPORTS.Q"))
    assert raw_put(queue, b"lasting") is True
    time.sleep(0.15)
    assert raw_get(queue) == b"lasting"
    report = pymqi.MD()
    reports = pymqi.Queue(pymqi.connect(system.name), "REPORTS.Q")
    reports.get(None, report)
    assert report.MsgType == CMQC.MQMT_REPORT
    assert report.Feedback == CMQC.MQFB_EXPIRATION


def test_a_plan_of_a_retired_generation_is_declined(system, queue):
    """A raw put by the plan is served; after a catalog change (a new generation) the
    same plan declines it, and the full path makes a new one."""
    plan = queue.get_handle().put_plan
    assert raw_put(queue, b"one") is True
    system.console("ZMQSC DEF QL-OTHER.Q")
    md_buf, pmo_buf = bytearray(pymqi.MD().pack()), bytearray(pymqi.PMO().pack())
    assert plans.planned_put_raw(plan, b"two", md_buf, pmo_buf) is False
    queue.put(b"two", pymqi.MD())
    assert queue.get_handle().put_plan is not plan
    assert raw_put(queue, b"three") is True
