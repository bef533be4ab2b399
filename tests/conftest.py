"""Run-wide test settings. ``make test`` runs the suite on two pytest-xdist workers
(``-n 2 --dist loadgroup``). Every test marked ``spark`` goes to one of them (one xdist
group), so the run starts one JVM and shares its SparkSession
(tests/pipeline/conftest.py), while the other worker takes the tests that mostly wait on
sockets, processes and disks."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("spark") is not None:
            item.add_marker(pytest.mark.xdist_group("spark"))
