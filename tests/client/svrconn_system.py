"""A System serving APP.SVRCONN on a loopback port, with one local queue, for the
client tests; and a client's connection to it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager

import tpfemu
import tpfemu.mqi as pymqi

_names = itertools.count()


@contextmanager
def serving(prefix: str, queue: str) -> Iterator[tpfemu.System]:
    """A System named ``prefix`` + a number, with local queue ``queue`` and its MQS
    listener serving channel APP.SVRCONN on 127.0.0.1 (stopped after the block)."""
    system = tpfemu.System.start(name=f"{prefix}{next(_names)}", journal="off")
    try:
        for command in ("ZMQSC DEF MQP", f"ZMQSC DEF QL-{queue}",
                        "ZINET ADD S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8 IP-127.0.0.1",
                        "ZINET START S-MQS", "ZMQSC DEF CHL-APP.SVRCONN CHLTYPE-SVRCONN"):
            system.console(command)
        yield system
    finally:
        system.stop()


def connect_client(system: tpfemu.System) -> pymqi.QueueManager:
    """A client connection to ``system`` over APP.SVRCONN (TCP, loopback)."""
    port = system.inetd.servers["MQS"].port
    return pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
