"""ZMQSC DISPLAY: every attribute and the live state, generic names, an aligned layout."""

from __future__ import annotations

import re

import pytest
from console_helpers import ids, ok, refused

import tpfemu.mqi as pymqi
from tpfemu.console import display
from tpfemu.console import messages as m
from tpfemu.mqi import CMQC
from tpfemu.qmgr.objects import DEFINITION_TYPES

TWO = re.compile(r"^(\S+)\s+(.*?)\s{3,}([A-Z][A-Z0-9]*)(?: +(.*))?$")


def rows(response: str) -> dict[str, str]:
    """The KEYWORD -> value pairs of a single-object display."""
    pairs: dict[str, str] = {}
    for line in response.splitlines()[1:]:
        if not line.startswith(m.DISPLAY_ROW.id):
            continue
        body = line.split(" ", 2)[2].strip()
        two = TWO.match(body)
        if two is not None:  # two columns, three or more blanks apart
            pairs[two.group(1)] = two.group(2)
            pairs[two.group(3)] = (two.group(4) or "").strip()
        else:
            key, _, value = body.partition(" ")
            pairs[key] = value.strip()
    return pairs


def test_display_ql_shows_every_attribute_and_live_state(mqp):
    """DISPLAY QL shows every QL keyword plus CURDEPTH, IPPROCS, OPPROCS and triggers."""
    ok(mqp, "ZMQSC DEF QL-APP.IN MAXDEPTH-100 DESCR-'Payroll input'")
    qm = pymqi.connect(mqp.qmgr.name)
    out = pymqi.Queue(qm, "APP.IN", CMQC.MQOO_OUTPUT)
    out2 = pymqi.Queue(qm, "APP.IN", CMQC.MQOO_OUTPUT)
    inp = pymqi.Queue(qm, "APP.IN", CMQC.MQOO_INPUT_SHARED)
    for _ in range(3):
        out.put(b"x")
    shown = rows(ok(mqp, "ZMQSC DISP QL-APP.IN"))
    for keyword in DEFINITION_TYPES["QL"].ATTRS:
        assert keyword.upper() in shown
    assert shown["CURDEPTH"] == "3" and shown["OPPROCS"] == "2" and shown["IPPROCS"] == "1"
    assert shown["TRIGFIRED"] == "0" and shown["TRIGLAST"] == "NONE"
    assert shown["MAXDEPTH"] == "100" and shown["DESCR"] == "'Payroll input'"
    for queue in (out, out2, inp):
        queue.close()
    qm.disconnect()


def test_trigger_counters_are_shown(mqp):
    """The triggering layer's counters (fired, last, armed) appear in the display."""
    ok(mqp, "ZMQSC DEF QL-T")
    state = mqp.qmgr.queues["T"].trigger_state
    state.update(fired=4, last=1_700_000_000_000_000, armed=True)
    shown = rows(ok(mqp, "ZMQSC DISP QL-T"))
    assert shown["TRIGFIRED"] == "4"
    assert shown["TRIGLAST"] == "2023-11-14 22:13:20"
    assert shown["TRIGARMED"] == "YES"


@pytest.mark.parametrize("obj", ["MQP", "QA", "QR", "PROC", "CHL"])
def test_display_shows_every_attribute(mqp, obj):
    """DISPLAY of each object type shows every one of its keywords."""
    define = {"MQP": None, "QA": "QA-A TARGQ-X", "QR": "QR-R RQMNAME-QM2",
              "PROC": "PROC-P APPLID-QZZ1", "CHL": "CHL-C CHLTYPE-RCVR"}[obj]
    if define:
        ok(mqp, f"ZMQSC DEF {define}")
    target = define.split()[0] if define else "MQP"
    shown = rows(ok(mqp, f"ZMQSC DISP {target}"))
    for keyword in DEFINITION_TYPES[obj].ATTRS:
        assert keyword.upper() in shown


def test_generic_display(mqp):
    """A generic name shows every match (and only those), then how many."""
    for name in ("APP.A", "APP.B", "OTHER"):
        ok(mqp, f"ZMQSC DEF QL-{name}")
    response = ok(mqp, "ZMQSC DISP QL-APP.*")
    heads = [line for line in response.splitlines() if line.startswith(m.DISPLAY_HEAD.id)]
    assert [h.split()[-1] for h in heads] == ["APP.A", "APP.B"]
    assert ids(response)[-1] == m.DISPLAY_COUNT.id and "2 QL" in response.splitlines()[-1]


@pytest.mark.parametrize("pattern", ["*", "ALL", None])
def test_display_all(mqp, pattern):
    """QL-*, QL-ALL and QL alone show every local queue."""
    ok(mqp, "ZMQSC DEF QL-MINE")
    target = "QL" if pattern is None else f"QL-{pattern}"
    response = ok(mqp, f"ZMQSC DISP {target}")
    assert "3 QL OBJECT(S)" in response  # with the profile's two queues


def test_display_q_shows_every_queue_type(mqp):
    """DISP Q-* shows QL, QA and QR definitions together, each headed by its type."""
    ok(mqp, "ZMQSC DEF QA-APP.A TARGQ-X")
    ok(mqp, "ZMQSC DEF QR-APP.R RQMNAME-QM2")
    ok(mqp, "ZMQSC DEF QL-APP.L")
    heads = [line.split()[2:] for line in ok(mqp, "ZMQSC DISP Q-APP.*").splitlines()
             if line.startswith(m.DISPLAY_HEAD.id)]
    assert heads == [["QA", "APP.A"], ["QL", "APP.L"], ["QR", "APP.R"]]


def test_generic_display_without_match_warns(mqp):
    """A generic name that matches nothing is a warning, not an error."""
    response = mqp.console("ZMQSC DISP QL-NOPE.*")
    assert ids(response) == [m.NONE_MATCH.id]


def test_bad_generic_name_refused(mqp):
    """An asterisk anywhere but at the end is refused."""
    refused(mqp, "ZMQSC DISP QL-A*B", "GENERIC")


def test_display_takes_no_keywords(mqp):
    """DISPLAY with a keyword is refused."""
    refused(mqp, "ZMQSC DISP QL-* MAXDEPTH-5", "MAXDEPTH")


def test_quoted_values_can_be_typed_back(mqp):
    """A displayed text value is shown so that typing it back stores the same text."""
    ok(mqp, "ZMQSC DEF QL-A DESCR-'It''s  Mixed'")
    shown = rows(ok(mqp, "ZMQSC DISP QL-A"))["DESCR"]
    assert shown == "'It''s  Mixed'"
    ok(mqp, f"ZMQSC DEF QL-B DESCR-{shown}")
    assert mqp.qmgr.catalog.get("QL", "B").descr == "It's  Mixed"


def test_two_columns_are_aligned(mqp):
    """Values and the second column start at the same place on every row."""
    ok(mqp, "ZMQSC DEF QL-A")
    keys = {k.upper() for k in DEFINITION_TYPES["QL"].ATTRS} | {
        "CURDEPTH", "IPPROCS", "OPPROCS", "TRIGFIRED", "TRIGLAST"}
    second_keys, values = set(), set()
    for line in ok(mqp, "ZMQSC DISP QL-A").splitlines()[1:]:
        words = [(match.start(), match.group()) for match in re.finditer(r"\S+", line)][2:]
        assert words[0][1] in keys
        values.add(words[1][0])
        if len(words) > 2:
            assert words[2][1] in keys
            second_keys.add(words[2][0])
    assert len(second_keys) == 1 and len(values) == 1


def test_layout_puts_long_values_on_their_own_rows():
    """layout pairs short values in two columns and gives long ones their own rows."""
    lines = display.layout([("A", "1"), ("BB", "22"), ("LONG", "x" * 30), ("C", "3")])
    assert lines == ["A    1   BB   22", "C    3", "LONG " + "x" * 30]


def test_text_value_quoting():
    """Plain upper-case text is shown bare; anything else quoted with quotes doubled."""
    assert display.text_value("APP.IN") == "APP.IN"
    assert display.text_value("") == "''"
    assert display.text_value("a b") == "'a b'"
    assert display.text_value("O'K") == "'O''K'"


def test_display_lines_have_no_control_characters(mqp):
    """A description holding a newline (set through the API) stays on one display row."""
    mqp.qmgr.catalog.define("QL", "NL", descr="two\nlines")
    response = ok(mqp, "ZMQSC DISP QL-NL")
    ids(response)  # every line is still a console message
    assert "two?lines" in response


def test_display_mqp_and_qmgr(mqp):
    """DISPLAY MQP shows the profile; DISPLAY QMGR the queue manager and its profile."""
    assert rows(ok(mqp, "ZMQSC DISP MQP"))["QDT"] == "60"
    shown = rows(ok(mqp, "ZMQSC DISP QMGR"))
    assert shown["CPU"] == mqp.cpu and shown["STATUS"] == "ACTIVE" and shown["QL"] == "2"


def test_display_channel_shows_requests(mqp):
    """DISPLAY CHL shows the channel's status and the last recorded request (a receiver
    is INACTIVE until its sender connects, STOPPED after STOP CHL: issue 25)."""
    ok(mqp, "ZMQSC DEF CHL-C CHLTYPE-RCVR")
    shown = rows(ok(mqp, "ZMQSC DISP CHL-C"))
    assert shown["REQSTATE"] == "NONE" and shown["STATUS"] == "INACTIVE"
    ok(mqp, "ZMQSC STOP CHL-C MODE-FORCE")
    shown = rows(ok(mqp, "ZMQSC DISP CHL-C"))
    assert shown["STATUS"] == "STOPPED"
    assert shown["REQSTATE"] == "STOPPED" and shown["STOPMODE"] == "FORCE"
