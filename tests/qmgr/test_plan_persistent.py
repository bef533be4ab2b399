"""Persistent messages in the put and get plans (issues 24, 25): a persistent message
put or got with an MD through a handle's plan is logged by the plan's put or get in C
(native/python/logput.c), with the same record, the same unit-of-work rules and the same
durability as the full path.

Each test checks that the plan served the put (``plans.planned_put`` returned True) or
the get (``plans.planned_get`` returned the data), then kills the process with SIGKILL
(or stops the system) and restarts on the same home.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr import plans

ROOT = Path(__file__).resolve().parents[2]
IO = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE

# Run in a child: boots a system on HOME, puts through the plan, then kills itself.
_CHILD = textwrap.dedent("""
    import os, signal, sys
    import tpfemu, tpfemu.mqi as pymqi
    from tpfemu.mqi import CMQC
    from tpfemu.qmgr import plans
    home, mode = sys.argv[1], sys.argv[2]
    system = tpfemu.System.start("PLANP", home, "B", journal="off")
    system.console("ZMQSC DEF MQP")
    system.console("ZMQSC DEF QL-APP.Q")
    conn = pymqi.connect("PLANP")
    q = pymqi.Queue(conn, "APP.Q", CMQC.MQOO_OUTPUT)
    q.put(b"first", pymqi.MD())  # by the full path: it leaves the plan
    h = q.get_handle()
    syncpoint = CMQC.MQPMO_SYNCPOINT if mode != "outside" else CMQC.MQPMO_NO_SYNCPOINT
    for i in range(20):
        md = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT, CorrelId=b"c%d" % i, Priority=i % 10)
        assert plans.planned_put(h.put_plan, b"m%d" % i, md, pymqi.PMO(Options=syncpoint))
    if mode == "commit":
        conn.commit()
    print("DONE", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def _killed_after(child: str, home: Path, mode: str) -> None:
    """Run ``child`` on ``home`` in ``mode``; it must end killed by SIGKILL after DONE."""
    out = subprocess.run([sys.executable, "-c", child, str(home), mode], cwd=ROOT,
                         capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         timeout=120)  # fmt: skip
    assert out.returncode == -9, out.stderr.decode()[-2000:]
    assert out.stdout == b"DONE\n"


def _killed_after_planned_puts(home: Path, mode: str) -> None:
    _killed_after(_CHILD, home, mode)


def _drained_after_restart(home: Path, row: Callable[[bytes, Any], Any]) -> list[Any]:
    """``row(data, md)`` of each message on APP.Q after a restart, in get order (rows
    that are None left out)."""
    system = tpfemu.System.start("PLANP", home, "B", journal="off")
    try:
        conn = pymqi.connect("PLANP")
        q = pymqi.Queue(conn, "APP.Q", IO)
        found = []
        while True:
            md = pymqi.MD()
            try:
                data = q.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
            except pymqi.MQMIError as exc:
                assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                break
            if (r := row(data, md)) is not None:
                found.append(r)
        q.close()
        conn.disconnect()
        return found
    finally:
        system.stop()


def _persistent_after_restart(home: Path) -> list[tuple[bytes, bytes, int]]:
    """(data, CorrelId, Priority) of each persistent message on APP.Q after a restart."""
    return _drained_after_restart(home, lambda data, md: (
        (data, md.CorrelId.rstrip(b"\0"), md.Priority)
        if md.Persistence == CMQC.MQPER_PERSISTENT else None))


def _padless(value: object) -> object:
    """A field's value without the blanks or nulls that pad it to its width."""
    return value.rstrip(b" \0") if isinstance(value, bytes) else value


def _expected() -> list[tuple[bytes, bytes, int]]:
    """The 20 messages the child puts, in delivery order (priority, then put order)."""
    made = [(b"m%d" % i, b"c%d" % i, i % 10) for i in range(20)]
    return sorted(made, key=lambda m: -m[2])


def test_planned_persistent_puts_outside_syncpoint_survive_sigkill(tmp_path):
    """A persistent put the plan served outside syncpoint is durable when MQPUT returns:
    all 20 come back after a SIGKILL, with their CorrelId and priority."""
    _killed_after_planned_puts(tmp_path, "outside")
    assert _persistent_after_restart(tmp_path) == _expected()


def test_planned_persistent_puts_committed_survive_sigkill(tmp_path):
    """Persistent puts the plan served in syncpoint are durable once MQCMIT returns."""
    _killed_after_planned_puts(tmp_path, "commit")
    assert _persistent_after_restart(tmp_path) == _expected()


def test_planned_persistent_puts_not_committed_are_gone_after_sigkill(tmp_path):
    """Persistent puts the plan served in a unit of work that never committed are backed
    out by the restart: none comes back."""
    _killed_after_planned_puts(tmp_path, "uncommitted")
    assert _persistent_after_restart(tmp_path) == []


def test_planned_persistent_put_keeps_its_context_across_a_restart(tmp_path):
    """A persistent message the plan put comes back after a stop and start with the same
    MsgId, CorrelId, context fields, put date and time as the MD said after the put."""
    system = tpfemu.System.start("PLANP", tmp_path, "B", journal="off")
    try:
        system.console("ZMQSC DEF MQP")
        system.console("ZMQSC DEF QL-APP.Q")
        conn = pymqi.connect("PLANP")
        q = pymqi.Queue(conn, "APP.Q", CMQC.MQOO_OUTPUT)
        q.put(b"first", pymqi.MD())  # by the full path: it leaves the plan
        q.get_handle().queue.core.purge()
        md = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING,
                      ReplyToQ=b"REPLY.Q", CorrelId=b"corr", Expiry=600_000)
        assert plans.planned_put(q.get_handle().put_plan, b"body", md, None)
        put = md.get()
        q.close()
        conn.disconnect()
    finally:
        system.stop()
    system = tpfemu.System.start("PLANP", tmp_path, "B", journal="off")
    try:
        conn = pymqi.connect("PLANP")
        q = pymqi.Queue(conn, "APP.Q", IO)
        got = pymqi.MD()
        assert q.get(None, got) == b"body"
        got = got.get()
        assert got["ReplyToQMgr"].strip() == b"PLANP"  # (IBM's rule for a blank one)
        for name in ("MsgId", "CorrelId", "Format", "ReplyToQ", "PutDate", "PutTime",
                     "PutApplName", "UserIdentifier", "Persistence"):
            assert _padless(got[name]) == _padless(put[name]), name
        assert 0 < got["Expiry"] <= 600_000
        conn.disconnect()
    finally:
        system.stop()


# -- persistent gets by the plan (its log port: native/python/logput.c, logput_get) -------

# Run in a child: 20 persistent messages committed, then 10 got through the get plan
# (outside syncpoint, or in syncpoint then committed or not), then a SIGKILL.
_GET_CHILD = textwrap.dedent("""
    import os, signal, sys
    import tpfemu, tpfemu.mqi as pymqi
    from tpfemu.mqi import CMQC
    from tpfemu.qmgr import plans
    home, mode = sys.argv[1], sys.argv[2]
    system = tpfemu.System.start("PLANP", home, "B", journal="off")
    system.console("ZMQSC DEF MQP")
    system.console("ZMQSC DEF QL-APP.Q")
    conn = pymqi.connect("PLANP")
    q = pymqi.Queue(conn, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"first", pymqi.MD())
    q.get(None, pymqi.MD())  # by the full path: it leaves the plan
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    for i in range(20):
        q.put(b"m%d" % i, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT, CorrelId=b"c%d" % i),
              pmo)
    conn.commit()
    h = q.get_handle()
    syncpoint = CMQC.MQGMO_SYNCPOINT if mode != "outside" else CMQC.MQGMO_NO_SYNCPOINT
    for i in range(10):
        md = pymqi.MD()
        got = plans.planned_get(h.get_plan, None, md, pymqi.GMO(Options=syncpoint))
        assert got == b"m%d" % i and md.Persistence == CMQC.MQPER_PERSISTENT, (got, i)
    if mode == "commit":
        conn.commit()
    print("DONE", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def _killed_after_planned_gets(home: Path, mode: str) -> None:
    _killed_after(_GET_CHILD, home, mode)


def _after_restart_with_backouts(home: Path) -> list[tuple[bytes, int]]:
    """(data, BackoutCount) of each message on APP.Q after a restart."""
    return _drained_after_restart(home, lambda data, md: (data, md.BackoutCount))


def test_planned_persistent_gets_outside_syncpoint_are_final_after_sigkill(tmp_path):
    """A persistent get the plan served outside syncpoint is durable when MQGET returns:
    after a SIGKILL only the 10 messages not got come back, none twice."""
    _killed_after_planned_gets(tmp_path, "outside")
    assert _after_restart_with_backouts(tmp_path) == [(b"m%d" % i, 0) for i in range(10, 20)]


def test_planned_persistent_gets_committed_are_final_after_sigkill(tmp_path):
    """Persistent gets the plan served in syncpoint are final once MQCMIT returns."""
    _killed_after_planned_gets(tmp_path, "commit")
    assert _after_restart_with_backouts(tmp_path) == [(b"m%d" % i, 0) for i in range(10, 20)]


def test_planned_persistent_gets_not_committed_come_back_after_sigkill(tmp_path):
    """Persistent gets the plan served in a unit of work that never committed are backed
    out by the restart: all 20 messages come back, in order. (Their backout counts stay
    0 here: the unit's Get records wait for its Commit, so none reached the disk.)"""
    _killed_after_planned_gets(tmp_path, "uncommitted")
    assert _after_restart_with_backouts(tmp_path) == [(b"m%d" % i, 0) for i in range(20)]
