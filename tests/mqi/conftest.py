"""Fixtures for the MQI tests: a running queue manager with a profile, and a connection."""

import itertools

import pytest

import tpfemu.mqi as pymqi
from tpfemu.qmgr.manager import QueueManager

_names = itertools.count(1)


@pytest.fixture
def qmgr():
    """A started queue manager (unique name) with its profile (DEF MQP) defined."""
    manager = QueueManager(f"QM{next(_names)}").start()
    manager.catalog.define("MQP")
    yield manager
    manager.stop()


@pytest.fixture
def qm(qmgr):
    """A pymqi-style connection to ``qmgr``."""
    conn = pymqi.connect(qmgr.name)
    yield conn
    if conn.is_connected:
        conn.disconnect()


@pytest.fixture
def local_queue(qmgr):
    """A local queue APP.Q with default attributes; returns its name."""
    qmgr.catalog.define("QL", "APP.Q")
    return "APP.Q"
