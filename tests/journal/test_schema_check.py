"""The journal schema is stated once (tpfemu/journal/schema.py): the C encoder's columns
are checked against it when tpfemu.journal.rows is imported."""

from __future__ import annotations

import subprocess
import sys

import pyarrow as pa
import pytest

from tpfemu.journal import rows
from tpfemu.journal.schema import SEGMENT_SCHEMA


def test_the_c_encoder_writes_the_schema():
    """The C encoder's columns are the segment schema's, in order, with their types and
    nullability."""
    assert rows.encoder_columns() == [(f.name, str(f.type), f.nullable)
                                      for f in SEGMENT_SCHEMA]


def test_a_column_that_differs_is_named():
    """check_encoder refuses a schema whose column differs from C's, naming the column."""
    changed = SEGMENT_SCHEMA.set(SEGMENT_SCHEMA.get_field_index("priority"),
                                 pa.field("priority", pa.int64()))
    with pytest.raises(ImportError, match=r"column 6: C writes \('priority', 'int8'"):
        rows.check_encoder(rows.encoder_columns(), changed)
    with pytest.raises(ImportError, match="writes 20 columns, .* has 21"):
        rows.check_encoder(rows.encoder_columns(),
                           SEGMENT_SCHEMA.append(pa.field("extra", pa.string())))


def test_a_changed_schema_fails_the_import():
    """A column added to schema.py alone makes importing the journal's writer fail with
    a clear error."""
    code = (
        "import pyarrow as pa\n"
        "import tpfemu.journal.schema as s\n"
        "s.SEGMENT_SCHEMA = s.SEGMENT_SCHEMA.append(pa.field('site', pa.string()))\n"
        "import tpfemu.journal.writer\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode != 0
    assert "ImportError: the journal's C encoder (native/src/journal_ipc.c) writes 20 " \
           "columns, tpfemu/journal/schema.py has 21" in run.stderr
