"""ZBRDG, the operator command of the bridge's tables (ours; docs/console.md)."""

from __future__ import annotations

import pytest

from tpfemu.console import messages


def test_define_display_alter_delete(system):
    """DEF makes a terminal with its route, DISP shows it, ALT changes it, DEL removes it."""
    assert system.console("ZBRDG DEF LN-0A0101 APPL-BAL1 RQ-REPLY.Q RQM-QM2") == \
        "MQSC0142I B LNIATA 0A0101 DEFINED"
    shown = system.console("ZBRDG DISP")
    assert "0A0101  BAL1  NO  OPERATOR" in shown and "REPLY.Q@QM2" in shown
    assert shown.endswith("MQSC0147I B 1 TERMINAL(S) DISPLAYED")
    assert system.console("ZBRDG ALT LN-0A0101 MQ-YES APPL-NONE").startswith("MQSC0143I")
    detail = system.console("ZBRDG DISP LN-0A0101")
    assert "MQ      YES" in detail and "APPL    NONE" in detail
    assert "WGTA    0A0101C040404040" in detail
    assert system.console("ZBRDG DEL LN-0A0101").startswith("MQSC0144I")
    assert system.console("ZBRDG DISP LN-0A0101") == "MQSC0145E B LNIATA 0A0101 NOT FOUND"


@pytest.mark.parametrize(("command", "expected"), [
    ("ZBRDG", "MQSC0140E B ZBRDG NO VERB GIVEN"),
    ("ZBRDG SHOW", "MQSC0140E B ZBRDG UNKNOWN VERB SHOW"),
    ("ZBRDG DEF APPL-BAL1", "MQSC0140E B ZBRDG ZBRDG DEF NEEDS LN-<LNIATA>"),
    ("ZBRDG DEF LN-0A0101 COLOR-RED", "MQSC0140E B ZBRDG COLOR IS NOT A ZBRDG DEF KEYWORD"),
    ("ZBRDG DEF LN-0A0101 LN-0A0102", "MQSC0140E B ZBRDG LN IS GIVEN TWICE"),
    ("ZBRDG DEF LN-0A01", "MQSC0141E B ZBRDG DEF REFUSED: LNIATA '0A01' is not 6 hex"),
    ("ZBRDG DEF LN-0A0101 APPL-TOOLONG", "MQSC0141E B ZBRDG DEF REFUSED: program name"),
    ("ZBRDG DEF LN-0A0101 MQ-MAYBE", "MQSC0141E B ZBRDG DEF REFUSED: MQ-MAYBE: USE YES OR NO"),
    ("ZBRDG DEF LN-0A0101 RQ-A", "MQSC0141E B ZBRDG DEF REFUSED: RQ- needs RQM-"),
    ("ZBRDG ALT LN-0A0101", "MQSC0140E B ZBRDG ZBRDG ALT HAS NOTHING TO CHANGE"),
    ("ZBRDG ALT LN-0A0109 MQ-YES", "MQSC0145E B LNIATA 0A0109 NOT FOUND"),
    ("ZBRDG POOL COUNT-X", "MQSC0141E B ZBRDG POOL REFUSED: COUNT-X is not a number"),
    ("ZBRDG POOL FIRST-FFFFFF COUNT-2", "MQSC0141E B ZBRDG POOL REFUSED: pool of 2"),
])
def test_bad_commands_are_refused_and_change_nothing(system, command, expected):
    """Each bad command gets one E message naming the fault; the tables are unchanged."""
    before = (system.bridge.operator.terminals(), system.bridge.operator.pool())
    response = system.console(command)
    assert response.startswith(expected) and "\n" not in response
    assert (system.bridge.operator.terminals(), system.bridge.operator.pool()) == before


def test_quoted_names_keep_their_case(system):
    """A quoted RQ/RQM keeps its case; unquoted text is upper-cased."""
    system.console("ZBRDG DEF LN-0A0101 RQ-'replies' RQM-qm2")
    assert system.bridge.operator.terminal("0A0101")["routes"] == ["replies@QM2"]


def test_pool_display_and_change(system):
    """POOL without keywords shows the default allocation; with them it changes it."""
    assert system.console("ZBRDG POOL") == \
        "MQSC0148I B POOL FIRST-FE0000 COUNT-256 APPL-NONE - 0 ALLOCATED"
    assert system.console("ZBRDG POOL FIRST-E00000 COUNT-4 APPL-BAL1") == \
        "MQSC0148I B POOL FIRST-E00000 COUNT-4 APPL-BAL1 - 0 ALLOCATED"


def test_log_shows_and_clears_a_terminal_log(system):
    """LOG lists an ordinary terminal's output as EBCDIC text; CLEAR-YES empties it."""
    from tpfemu.bridge import Lniata

    system.console("ZBRDG DEF LN-0B0001")
    system.bridge.terminals.log_output(Lniata.parse("0B0001"), "FLIGHT 12".encode("cp037"),
                                       1, "APP1")
    assert system.console("ZBRDG LOG LN-0B0001").splitlines() == [
        "MQSC0149I B TERMINAL 0B0001 LOG - 1 MESSAGE(S)", "MQSC0146I B   FLIGHT 12"]
    assert system.console("ZBRDG LOG LN-0B0001 CLEAR-YES").startswith("MQSC0150I")
    assert system.bridge.terminal_log("0B0001") == []


def test_every_zbrdg_message_is_in_the_catalog():
    """The ZBRDG responses come from the console's catalog (MQSC0140-0152)."""
    ids = {f"MQSC{n:04d}{s}" for n, s in [(140, "E"), (141, "E"), (142, "I"), (143, "I"),
                                          (144, "I"), (145, "E"), (146, "I"), (147, "I"),
                                          (148, "I"), (149, "I"), (150, "I"), (151, "E"),
                                          (152, "I")]}
    assert ids <= set(messages.MESSAGES)
