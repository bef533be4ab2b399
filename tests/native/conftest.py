"""Fixtures for the core's tests."""

import pytest

from tpfemu._lowlevel import CoreQueue


@pytest.fixture
def queue():
    """A fresh, unlimited core queue, closed after the test."""
    with CoreQueue("TEST.Q") as q:
        yield q
