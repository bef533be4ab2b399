"""Fixtures of the queue-manager tests: a fresh System per test, and the trigger environment."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
from trigger_helpers import Env

import tpfemu

_ids = itertools.count(1)


@pytest.fixture
def system() -> Iterator[tpfemu.System]:
    """A started System with its MQ profile defined; stopped after the test."""
    s = tpfemu.System.start(name=f"TGQ{next(_ids)}")
    s.qmgr.catalog.define("MQP")
    yield s
    s.stop()


@pytest.fixture
def env(system: tpfemu.System) -> Env:
    return Env(system)
