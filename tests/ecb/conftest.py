"""Fixtures for the ECB runtime tests: a program table, a console sink and dispatchers."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from ecb_helpers import Console

from ecb import Dispatcher, Ecb, Programs, Storage


@pytest.fixture
def programs() -> Programs:
    return Programs()


@pytest.fixture
def console() -> Console:
    return Console()


@pytest.fixture
def storage() -> Storage:
    return Storage()


@pytest.fixture
def make_dispatcher(
    programs: Programs, console: Console, storage: Storage
) -> Iterator[Callable[..., Dispatcher]]:
    """Build dispatchers sharing the test's programs, console and storage; stop them after."""
    made: list[Dispatcher] = []

    def make(istreams: int = 1, *, start: bool = True, **kwargs) -> Dispatcher:
        kwargs.setdefault("storage", storage)
        disp = Dispatcher(programs, istreams=istreams, console=console, **kwargs)
        made.append(disp)
        if start:
            disp.start()
        return disp

    yield make
    for disp in made:
        disp.stop(timeout=1.0)


@pytest.fixture
def disp(make_dispatcher) -> Dispatcher:
    """A started dispatcher with one I-stream (deterministic order)."""
    return make_dispatcher(1)


@pytest.fixture
def make_ecb(programs: Programs, storage: Storage) -> Callable[..., Ecb]:
    """Build a standalone ECB (no dispatcher) on the test's programs and storage."""

    def make(**kwargs) -> Ecb:
        return Ecb(programs, storage, **kwargs)

    return make
