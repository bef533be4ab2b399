"""One SparkSession for the whole test run (a JVM costs about 5 s to start)."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def jvm_cache(tmp_path_factory):
    """The pipeline commands the tests start in fresh processes keep their class-data
    archive (:mod:`tpfemu.pipeline.jvm`) in one temporary directory, not in the user's
    cache."""
    where = tmp_path_factory.mktemp("jvm-cache")
    before = os.environ.get("TPFEMU_JVM_CACHE")
    os.environ["TPFEMU_JVM_CACHE"] = str(where)
    yield where
    if before is None:
        os.environ.pop("TPFEMU_JVM_CACHE", None)
    else:
        os.environ["TPFEMU_JVM_CACHE"] = before


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    from tpfemu.pipeline.session import get_session

    session = get_session("local[2]", test=True)
    yield session
    session.stop()
