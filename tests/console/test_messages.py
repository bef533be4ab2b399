"""The console message catalogue: well-formed identifiers, defined once, all documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from tpfemu.console import messages as m

DOCS = Path(__file__).resolve().parents[2] / "docs" / "console.md"


def test_identifiers_are_well_formed():
    """Every identifier is four letters, four digits and I, W or E, and matches its entry."""
    for identifier, msg in m.MESSAGES.items():
        assert m.MESSAGE_ID.match(f"{identifier} B ")
        assert msg.id == identifier and msg.severity in "IWE"


def test_numbers_are_defined_once():
    """Defining a message number a second time is refused."""
    with pytest.raises(ValueError, match="twice"):
        m._msg(10, "I", "again", "a duplicate")


def test_every_message_is_documented():
    """docs/console.md lists every console message and every queue-manager message."""
    text = DOCS.read_text()
    for identifier in [*m.MESSAGES, *m.QMGR_MESSAGES]:
        assert f"| {identifier} |" in text, identifier


def test_lines_are_single_and_short():
    """A message line holds no line break and shortens long operator values."""
    line = m.NOT_FOUND.line("B", obj="QL", name="x\ny" + "z" * 500, hint="")
    assert "\n" not in line and len(line) < 120 and "x?y" in line
    assert line.startswith("MQSC0015E B ")
