"""The recovery log's record layout is stated once: log_records.py's struct formats are
checked against native/include/tpf/logrec.h's constants when log_records is imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tpfemu._lowlevel import header_constants
from tpfemu.store import log_records


def test_python_and_c_state_the_same_layout():
    """Every constant of logrec.h equals the offset or size log_records.py writes."""
    assert header_constants(list(log_records.layout())) == log_records.layout()
    assert log_records.layout()["TPF_LOG_REC_KEY"] == 24  # (the offsets are computed)


def test_a_constant_that_differs_is_named():
    """check_layout refuses a C side that differs in one constant, naming it and both
    values."""
    c_side = dict(log_records.layout(), TPF_LOG_DESC_LENGTH=88)
    with pytest.raises(ImportError, match="TPF_LOG_DESC_LENGTH is 88 in C, 84 here"):
        log_records.check_layout(c_side)


def test_a_changed_record_format_fails_the_import():
    """A record format changed in Python alone (here the descriptor grows a field) makes
    (re)importing log_records fail with the mismatch named."""
    code = (
        "import importlib, struct\n"
        "import tpfemu.store.message as m\n"
        "import tpfemu.store.log_records as lr\n"
        "m.DESC = struct.Struct('<Q24s24sBxxxqqIIII')\n"
        "importlib.reload(lr)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode != 0
    assert "ImportError" in run.stderr
    assert "disagrees with native/include/tpf/logrec.h" in run.stderr
    assert "TPF_MQ_PACKED_DESC is 88 in C, 92 here" in run.stderr
