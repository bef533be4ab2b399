"""Fixtures of the C program tests: the test programs compiled once per session (with
-Wall -Wextra -Werror against the shipped headers, into a temporary directory), and a
System per test with RESULT.Q, where the programs report."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cprog_helpers import PROGRAMS

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.cprog.build import compile_program
from tpfemu.mqi import CMQC

_ids = itertools.count(1)


@pytest.fixture(scope="session")
def build(tmp_path_factory) -> Callable[[str], Path]:
    """build("mqcalls") -> the shared object of tests/cprog/programs/mqcalls.c."""
    out = tmp_path_factory.mktemp("cprog")
    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            built[name] = compile_program([PROGRAMS / f"{name}.c"], out / f"{name}.so")
        return built[name]

    return get


@pytest.fixture
def system() -> Iterator[tpfemu.System]:
    """A started System (in memory) with its profile and RESULT.Q; stopped after."""
    s = tpfemu.System.start(name=f"CPQ{next(_ids)}")
    s.console("ZMQSC DEF MQP")
    s.console("ZMQSC DEF QL-RESULT.Q")
    yield s
    s.stop()


class Results:
    """The messages the programs of a test put on RESULT.Q."""

    def __init__(self, system: tpfemu.System) -> None:
        self.system = system
        self.qm = pymqi.connect(system.name)
        self.q = pymqi.Queue(self.qm, "RESULT.Q", CMQC.MQOO_INPUT_SHARED)

    def next(self, timeout_ms: int = 5000) -> bytes:
        """The next result (waits for it)."""
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=timeout_ms)
        return self.q.get(None, pymqi.MD(), gmo)

    def rc(self) -> tuple[str, int, int]:
        """A (call, CompCode, Reason) result."""
        data = self.next()
        return (data[:16].decode().strip(), int.from_bytes(data[16:20], "little", signed=True),
                int.from_bytes(data[20:24], "little", signed=True))

    def empty(self) -> bool:
        """No result is left (after the entries ended)."""
        assert self.system.dispatcher.wait_idle(5)
        return self.system.qmgr.queues["RESULT.Q"].core.depth == 0


@pytest.fixture
def results(system) -> Results:
    return Results(system)

