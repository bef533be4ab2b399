"""One SparkSession for the whole test run (a JVM costs about 5 s to start)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    from tpfemu.pipeline.session import get_session

    session = get_session("local[2]", test=True)
    yield session
    session.stop()
