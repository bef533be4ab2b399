"""The compiled core imports, and its constants are IBM's and reachable from Python."""

import re
from pathlib import Path

from tpfemu import _lowlevel, errors

HEADER = Path(__file__).resolve().parents[2] / "native" / "include" / "tpf" / "mqdefs.h"


def test_every_reason_code_in_the_header_is_reachable():
    """Every MQRC_* the C header defines is readable from Python with the same number."""
    defined = dict(
        (m.group(1), int(m.group(2)))
        for m in re.finditer(r"#define\s+(MQRC_\w+)\s+(\d+)", HEADER.read_text())
    )
    assert defined, "no MQRC_ definitions found in the header"
    assert dict(_lowlevel.MQRC) == defined


def test_reason_codes_have_ibm_numbers():
    """A few reason codes carry the numbers of IBM's cmqc.h."""
    assert _lowlevel.MQRC["MQRC_NO_MSG_AVAILABLE"] == 2033
    assert _lowlevel.MQRC["MQRC_Q_FULL"] == 2053
    assert _lowlevel.MQRC["MQRC_TRUNCATED_MSG_FAILED"] == 2080
    assert _lowlevel.MQGMO["MQGMO_BROWSE_FIRST"] == 0x10
    assert _lowlevel.MQMO["MQMO_MATCH_CORREL_ID"] == 0x2


def test_internal_codes_are_clear_of_ibm_ranges():
    """The core's own codes start at 9000, outside IBM's MQRC and MQRCCF ranges."""
    assert _lowlevel.TPF_RC and all(v >= 9000 for v in _lowlevel.TPF_RC.values())


def test_reason_names_are_registered():
    """Errors name the mnemonic of every reason the core can return."""
    for name, number in _lowlevel.MQRC.items():
        assert errors.reason_name(number) == name
