"""An idle client conversation whose client vanishes without closing its socket (its
host down, its network cut) is found by TCP keepalive and ended, its unit of work backed
out, as IBM's KAINT(AUTO) does: keepalive from the agreed heartbeat interval plus 60
seconds (shortened here, with the probes' timings, so that the test takes seconds).

Real parts: the client runs in a network namespace of its own, joined to the System's
listener by a veth pair; the cut is its end of the pair set down, so the server's
probes go unanswered as a vanished host leaves them. (This needs root, as the tests run
in CI and in the sessions.)
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time

import pytest
from mca_helpers import ok, unique, wait_for
from svrconn_helpers import QUEUE, ROOT, heartbeat_client, serving, visible

import tpfemu
import tpfemu.mqi as pymqi
import tpfemu.wire.link as link
from tpfemu.channels import svrconn
from tpfemu.mqi import CMQXC

SUFFIX = os.getpid() % 10_000
NETNS = f"tpfemu-ka{SUFFIX}"
HOST_IF, CLIENT_IF = f"tka{SUFFIX}h", f"tka{SUFFIX}c"
NET = f"10.213.{os.getpid() % 250}"
SERVER_IP, CLIENT_IP = f"{NET}.1", f"{NET}.2"

CLIENT = heartbeat_client("KA.SVRCONN", """
    got = q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    print("got", got.decode(), flush=True)
    time.sleep(120)
""")


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@pytest.fixture
def netns():
    """A network namespace for the client, joined to this one by a veth pair."""
    subprocess.run(["ip", "netns", "del", NETNS], capture_output=True)
    subprocess.run(["ip", "link", "del", HOST_IF], capture_output=True)
    _ip("netns", "add", NETNS)
    try:
        _ip("link", "add", HOST_IF, "type", "veth", "peer", "name", CLIENT_IF)
        _ip("link", "set", CLIENT_IF, "netns", NETNS)
        _ip("addr", "add", f"{SERVER_IP}/30", "dev", HOST_IF)
        _ip("link", "set", HOST_IF, "up")
        _ip("netns", "exec", NETNS, "ip", "addr", "add", f"{CLIENT_IP}/30", "dev", CLIENT_IF)
        _ip("netns", "exec", NETNS, "ip", "link", "set", CLIENT_IF, "up")
        yield
    finally:
        subprocess.run(["ip", "link", "del", HOST_IF], capture_output=True)
        subprocess.run(["ip", "netns", "del", NETNS], capture_output=True)


def test_a_vanished_idle_client_is_found_by_keepalive_and_its_work_backed_out(
        netns, monkeypatch):
    """A client in another network namespace gets a message in syncpoint and goes idle;
    its network is cut. Within seconds of keepalive's probes the conversation ends, the
    console says the connection was lost, and the message is back on the queue."""
    monkeypatch.setattr(svrconn, "KAINT_AUTO_EXTRA", 0)
    monkeypatch.setattr(link, "KEEPALIVE_INTERVAL", 1)
    monkeypatch.setattr(link, "KEEPALIVE_PROBES", 2)
    system = tpfemu.System.start(name=unique("KA"))
    proc = None
    try:
        ok(system, "ZMQSC DEF MQP")
        ok(system, f"ZINET ADD S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8 IP-{SERVER_IP}")
        ok(system, "ZINET START S-MQS")
        ok(system, "ZMQSC DEF CHL-KA.SVRCONN CHLTYPE-SVRCONN HBINT-1")
        ok(system, f"ZMQSC DEF QL-{QUEUE}")
        local = pymqi.connect(system.qmgr.name)
        pymqi.Queue(local, QUEUE).put(b"kept safe")
        local.disconnect()
        port = system.inetd.servers["MQS"].port
        proc = subprocess.Popen(
            ["ip", "netns", "exec", NETNS, sys.executable, "-c", textwrap.dedent(CLIENT),
             system.qmgr.name, f"{SERVER_IP}({port})"],
            stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "got kept safe"
        assert visible(system) == 0  # (got in the client's unit of work)
        conversation, = svrconn._live[system.channels]["KA.SVRCONN"]
        raw = conversation.link.sock
        assert raw.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        assert raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == 1
        # (the client's kernel acknowledges the reply within its delayed-ACK time, at most
        # 200 ms: an unacknowledged reply would be retransmitted, not probed)
        time.sleep(1.0)
        _ip("netns", "exec", NETNS, "ip", "link", "set", CLIENT_IF, "down")
        wait_for(lambda: svrconn.instances(system.channels, "KA.SVRCONN") == 0,
                 timeout=20, what="keepalive to end the conversation")
        assert visible(system) == 1
        assert any("CONNECTION LOST" in line and "BACKED OUT" in line
                   for line in system.log)
    finally:
        if proc is not None:
            proc.kill()
            proc.wait()
        system.stop()


def test_no_keepalive_without_heartbeats():
    """HBINT 0 agreed: no channel keepalive (KAINT(AUTO) gives 0), the stack's setting
    stays."""
    system, port = serving(channels="CHL-APP.SVRCONN CHLTYPE-SVRCONN HBINT-0")
    try:
        cd = pymqi.CD(ChannelName=b"APP.SVRCONN", ConnectionName=f"127.0.0.1({port})".encode(),
                      ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP,
                      HeartbeatInterval=0)
        qm = pymqi.QueueManager(None)
        qm.connect_with_options(system.qmgr.name, cd=cd)
        conversation, = svrconn._live[system.channels]["APP.SVRCONN"]
        raw = conversation.link.sock
        assert raw.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 0
        qm.disconnect()
    finally:
        system.stop()
