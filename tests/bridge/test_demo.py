"""The demo: a traditional availability inquiry served through the ROUTC bridge."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "bridge" / "inquiry.py"


def test_demo_matches_every_reply_to_its_request():
    """Run as a program, the demo's 200 requests each get the reply whose CorrelId is the
    request's MsgId and whose text answers it; it exits 0."""
    done = subprocess.run([sys.executable, str(DEMO), "200"], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "200 of 200 replies matched their requests" in done.stdout
    assert "AVL 0100 01DEC -> AVL 0100 01DEC SEATS 122" in done.stdout
    assert "OUTPUTS 200" in done.stdout


def test_avl1_answers_a_malformed_request_with_an_error(monkeypatch):
    """AVL1 answers a request it cannot read with ERR FORMAT, still by ROUTC."""
    monkeypatch.syspath_prepend(str(DEMO.parent))
    import inquiry

    import tpfemu
    from tpfemu import mqi
    from tpfemu.mqi import CMQC

    with tpfemu.System.start(name="TPF1") as system:
        inquiry.setup(system)
        system.bridge.deliver("X", mqi.MD(ReplyToQ=b"INQ.REPLY", ReplyToQMgr=b"TPF1",
                                          MsgId=b"Z" * 24), "HELLO".encode("cp037"))
        assert system.dispatcher.wait_idle(5)
        q = mqi.Queue(mqi.connect("TPF1"), "INQ.REPLY", CMQC.MQOO_INPUT_SHARED)
        md = mqi.MD()
        assert q.get(None, md).decode("cp037") == "ERR FORMAT HELLO"
        assert md.CorrelId == b"Z" * 24


@pytest.mark.parametrize("n", [0, 899, 900])
def test_request_ids_fit_a_msgid(n):
    """The demo's MsgIds are exactly 24 bytes, unique per request."""
    sys.path.insert(0, str(DEMO.parent))
    try:
        import inquiry
    finally:
        sys.path.remove(str(DEMO.parent))
    msg_id, _ = inquiry.request(n)
    assert len(msg_id) == 24 and msg_id.endswith(b"%d" % n)


def test_wire_demo_a_second_system_gets_every_reply_over_a_fast_channel():
    """Run as a program with --wire, the demo's partner system sends 60 requests over a
    FAST channel; each reaches AVL1 through the bridge (no queue and no dead letter on
    TPF1) and its reply comes back to the partner matched by CorrelId; it exits 0."""
    done = subprocess.run([sys.executable, str(DEMO), "--wire", "60"], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "ZMQSC DEF CHL-PARTNER.TO.TPF1 CHLTYPE-SDR" in out and "SPEED-FAST" in out
    assert "AVL 0100 01DEC -> AVL 0100 01DEC SEATS 122" in out
    assert "queue AVL.INQUIRY on TPF1: none; dead-letter queue depth 0" in out
    assert "INPUTS  60" in out and "OUTPUTS 60" in out
    assert "60 of 60 replies matched their requests" in out


def test_tpfemu_demo_bridge_runs_the_wire_demo():
    """`tpfemu demo --bridge` is the same demo from the command line: every reply of its
    requests is matched, and it exits 0."""
    exe = Path(sys.executable).with_name("tpfemu")
    done = subprocess.run([str(exe), "demo", "--bridge", "--requests", "25"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4. 25 of 25 replies matched their requests" in done.stdout
