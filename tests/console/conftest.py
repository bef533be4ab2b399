"""Fixtures for the console tests: a running System, with or without its profile."""

from __future__ import annotations

import itertools

import pytest

from tpfemu.system import System

_names = itertools.count(1)


@pytest.fixture
def system():
    """A started System (unique queue manager name) without a profile."""
    started = System.start(name=f"ZMQ{next(_names)}")
    yield started
    started.stop()


@pytest.fixture
def mqp(system):
    """The system after ZMQSC DEF MQP (object commands are allowed)."""
    assert "MQSC0017I" in system.console("ZMQSC DEF MQP")
    return system

