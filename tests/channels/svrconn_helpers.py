"""Helpers for the SVRCONN tests: a System serving clients, client programs in other
processes."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mca_helpers import ok, unique

import tpfemu
import tpfemu.mqi

ROOT = Path(__file__).resolve().parents[2]
QUEUE = "APP.Q"


def serving(name: str | None = None, channels: str = "CHL-APP.SVRCONN CHLTYPE-SVRCONN",
            home=None) -> tuple[tpfemu.System, int]:
    """A started System with the MQS listener (CMQL) on a free loopback port, the SVRCONN
    channel ``channels`` defines and local queue APP.Q; returns (system, port)."""
    system = tpfemu.System.start(name=name or unique("SV"), home=home)
    ok(system, "ZMQSC DEF MQP")
    ok(system, "ZINET ADD S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8 IP-127.0.0.1")
    ok(system, "ZINET START S-MQS")
    if channels:
        ok(system, f"ZMQSC DEF {channels}")
    ok(system, f"ZMQSC DEF QL-{QUEUE}")
    return system, system.inetd.servers["MQS"].port


def depth(system: tpfemu.System, queue: str = QUEUE,
          selector: int = tpfemu.mqi.CMQC.MQIA_CURRENT_Q_DEPTH) -> int:
    """The queue's committed depth (or another integer attribute), read in process."""
    qm = tpfemu.mqi.connect(system.qmgr.name)
    try:
        return tpfemu.mqi.Queue(qm, queue, tpfemu.mqi.CMQC.MQOO_INQUIRE).inquire(selector)
    finally:
        qm.disconnect()


def visible(system: tpfemu.System, queue: str = QUEUE) -> int:
    """How many committed messages an in-process reader sees on the queue (a browse)."""
    mqi = tpfemu.mqi
    qm = mqi.connect(system.qmgr.name)
    q = mqi.Queue(qm, queue, mqi.CMQC.MQOO_BROWSE)
    gmo, count = mqi.GMO(Options=mqi.CMQC.MQGMO_BROWSE_NEXT), 0
    try:
        while True:
            q.get(None, mqi.MD(), gmo)
            count += 1
    except mqi.MQMIError as exc:
        assert exc.reason == mqi.CMQC.MQRC_NO_MSG_AVAILABLE, exc
    finally:
        q.close()
        qm.disconnect()
    return count


def later_message_stays(system: tpfemu.System, timeout: float = 5) -> None:
    """A client that was waiting in MQGET is gone (killed or silent): its handle closes
    within ``timeout`` seconds, a message put afterwards stays on the queue (the dead
    get took nothing), and the log says the connection was lost."""
    from mca_helpers import wait_for

    mqi = tpfemu.mqi
    wait_for(lambda: depth(system, selector=mqi.CMQC.MQIA_OPEN_INPUT_COUNT) == 0,
             timeout=timeout, what="the gone client's handle to close")
    local = mqi.connect(system.qmgr.name)
    mqi.Queue(local, QUEUE).put(b"for the living")
    local.disconnect()
    assert visible(system) == 1
    assert any("CONNECTION LOST" in line for line in system.log)


_HEARTBEAT_CLIENT = """
import sys, time
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC, CMQXC
cd = pymqi.CD(ChannelName=b"{channel}", ConnectionName=sys.argv[2].encode(),
              ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP,
              HeartbeatInterval=1)
qm = pymqi.QueueManager(None)
qm.connect_with_options(sys.argv[1], cd=cd)
q = pymqi.Queue(qm, "APP.Q", CMQC.MQOO_INPUT_AS_Q_DEF)
"""


def heartbeat_client(channel: str, then: str) -> str:
    """A client program's code (arguments: the queue manager and the connection name)
    that connects through ``channel`` offering HeartbeatInterval 1, opens APP.Q for input
    as ``q``, then runs ``then`` (code, dedented here)."""
    return _HEARTBEAT_CLIENT.replace("{channel}", channel) + textwrap.dedent(then)


def python(code: str, *args: str) -> subprocess.Popen:
    """A Python process of this tree running ``code`` (dedented), stdout a pipe."""
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args],
                            stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True,
                            cwd=ROOT)


@contextlib.contextmanager
def raises_mq(reason: int, comp: int = tpfemu.mqi.CMQC.MQCC_FAILED):
    """Expect an MQMIError with exactly this completion code and reason."""
    with pytest.raises(tpfemu.mqi.MQMIError) as info:
        yield info
    got = (info.value.comp, info.value.reason)
    assert got == (comp, reason), f"expected {comp}/{reason}, got {got}: {info.value}"


class WaitingGets:
    """Which client MQGETs wait in the server (the Watches that have looked at their
    connection at least once: a get looks after its first step of waiting), so that a
    test acts on a get that is surely waiting, not one still on its way."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import threading

        from tpfemu.channels import svrconn_wait

        self.watches: set[int] = set()
        self._lock = threading.Lock()
        look = svrconn_wait.Watch.look

        def looked(watch) -> None:
            with self._lock:
                self.watches.add(id(watch))
            look(watch)

        monkeypatch.setattr(svrconn_wait.Watch, "look", looked)

    def wait(self, count: int, timeout: float = 10.0) -> None:
        """Return once ``count`` gets wait; fail after ``timeout`` seconds."""
        from mca_helpers import wait_for

        wait_for(lambda: len(self.watches) >= count, timeout=timeout,
                 what=f"{count} client MQGET(s) to wait")
