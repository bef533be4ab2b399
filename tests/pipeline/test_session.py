"""The pipeline session's settings that need no JVM."""

from __future__ import annotations

import os

import pytest

from tpfemu.pipeline import session

GIB = 1 << 30


@pytest.mark.parametrize(("total", "heap"), [(4 * GIB, "3g"), (15 * GIB, "5g"),
                                             (64 * GIB, "8g")])
def test_local_heap_is_a_third_of_memory_within_bounds(monkeypatch, total, heap):
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": total // 4096}
    monkeypatch.setattr(os, "sysconf", pages.__getitem__)
    assert session._local_memory() == heap


@pytest.mark.parametrize(("master", "cores"), [("local[2]", 2), ("local", 1),
                                               ("local[3,2]", 3), ("spark://h:7077", 0)])
def test_local_cores(master, cores):
    assert session._local_cores(master) == cores
