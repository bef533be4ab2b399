"""Fixtures for the store's tests: homes on the real disk, small maps."""

from __future__ import annotations

from pathlib import Path

import pytest

from tpfemu.store import CheckpointStore, RecoveryLog
from tpfemu.store.tpfcs import Tpfcs


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A system home directory (under pytest's tmp_path, on the real disk)."""
    return tmp_path / "home"


@pytest.fixture
def log(home: Path):
    """An open recovery log in ``home``, closed after the test."""
    with RecoveryLog(home, map_size=4 << 20) as log:
        yield log


@pytest.fixture
def ckpt(home: Path):
    """An open checkpoint store in ``home``, closed after the test."""
    with CheckpointStore.open(home, map_size=4 << 20) as store:
        yield store


@pytest.fixture
def store(tmp_path: Path):
    """A TPFCS-like store (not synced to disk) with the data store MQS, closed after."""
    with Tpfcs.open(tmp_path, durable=False) as s:
        s.create_data_store("MQS")
        yield s
