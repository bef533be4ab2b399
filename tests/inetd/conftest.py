"""Fixtures for the Internet daemon tests: a running system and loopback clients."""

import itertools

import pytest

import tpfemu

_names = itertools.count(1)


@pytest.fixture
def system():
    """A started System with a unique queue-manager name, stopped afterwards."""
    running = tpfemu.System.start(name=f"INETD{next(_names)}")
    yield running
    running.stop(timeout=2.0)
