"""Console HELP and Tab completion: generated from the tables that validate commands, so
they cannot drift from them (tpfemu.console.help, tpfemu.console.completion)."""

from __future__ import annotations

import re

import pytest
from console_helpers import ids

from tpfemu.console import parser, zmqsc
from tpfemu.console.completion import candidates
from tpfemu.console.help import help_lines
from tpfemu.qmgr.objects import DEFINITION_TYPES, AttrSpec


def test_help_lists_every_verb_spelling_and_the_console_commands(system):
    """HELP names every ZMQSC verb and abbreviation of the parser's table, ZMQSC and ZINET,
    and END/EXIT; every line is a console message."""
    response = system.console("help")
    assert set(ids(response)) == {"CONS0010I"}
    for spelling in parser.VERBS:
        assert f" {spelling} " in response or f" {spelling}\n" in response, spelling
    assert "ZINET, ZMQSC" in response and "END" in response and "EXIT" in response
    assert system.console("ZMQSC HELP") == response


def _columns(response: str) -> dict[str, tuple[str, str]]:
    """A help table read back by its heading's columns: keyword -> (accepts, default);
    the first row of a keyword that is also a switch, wrapped ACCEPTS text joined."""
    lines = [line.split(" ", 2)[2] for line in response.splitlines()]
    head = next(line for line in lines if line.lstrip().startswith("KEYWORD"))
    at, until = head.index("ACCEPTS"), head.index("DEFAULT")
    rows: dict[str, tuple[str, str]] = {}
    keyword = ""
    for line in lines[lines.index(head) + 1:]:
        name = line[:at].strip()
        accepts, default = line[at:until].strip(), line[until:].strip()
        if name:
            keyword = name
            if name not in rows:
                rows[name] = (accepts, default)
        elif keyword in rows:  # ACCEPTS wrapped onto a line of its own
            rows[keyword] = (rows[keyword][0] + " " + accepts, rows[keyword][1])
    return rows


@pytest.mark.parametrize("obj", ["MQP", "QL", "QA", "QR", "PROC", "CHL"])
def test_help_def_shows_each_keyword_what_it_accepts_and_its_default(system, obj):
    """HELP DEF <type> lists every attribute spec's keyword with its accepted values and
    default, exactly as the catalog's specs state them."""
    rows = _columns(system.console(f"help DEF {obj}"))
    for spec in DEFINITION_TYPES[obj].ATTRS.values():
        accepts, default = rows[spec.keyword]
        assert accepts == spec.accepted, spec.keyword
        if spec.required:
            assert default == "(required)", spec.keyword
        else:
            assert default == ("''" if spec.default == "" else str(spec.default)), spec.keyword
    assert "REPLACE" in rows


def test_help_of_channel_verbs_comes_from_their_operand_specs(system):
    """HELP STOP CHL shows MODE with its values and default; RESOLVE shows ACTION required."""
    assert "QUIESCE or FORCE" in system.console("help STOP CHL")
    assert "ACTION" in system.console("help RESOLVE") and "(required)" in \
        system.console("help RESOLVE CHL")


def test_help_for_an_unknown_topic_is_an_error_line(system):
    """HELP of a word that is no verb, and of an object the verb does not take, say so."""
    assert ids(system.console("help FROB")) == ["CONS0011E"]
    assert "CLEAR TAKES NO OBJECT PROC" in system.console("help CLEAR PROC")


def test_help_zinet_lists_its_verbs_and_each_verbs_keywords(system):
    """HELP ZINET names ZINET's verbs; HELP ZINET ADD its keywords and their aliases."""
    assert "ADD" in system.console("help ZINET") and "START" in system.console("help ZINET")
    add = system.console("help ZINET ADD")
    assert "S/SERVER" in add and "PORT" in add and "PROC/PROCID" in add


def test_a_verb_object_and_keyword_added_to_the_tables_show_in_help_and_completion(
        system, monkeypatch):
    """A new verb, object type and operand added to the command tables appear in HELP and
    are completed, with no change to the help or completion code."""
    monkeypatch.setitem(parser.VERBS, "PING", "PING")
    monkeypatch.setitem(parser.VERB_OBJECTS, "PING", ("CHL",))
    monkeypatch.setitem(zmqsc._CHANNEL_OPERANDS, "PING",
                        {"count": AttrSpec("COUNT", "int", default=3, low=1, high=9)})
    assert "PING" in system.console("help")
    assert re.search(r"COUNT +1 to 9 +3$", system.console("help PING CHL"))
    assert candidates(system, "ZMQSC PI") == ["PING"]
    assert candidates(system, "ZMQSC PING CHL-X CO") == ["COUNT-"]


def test_completion_offers_verbs_objects_keywords_values_and_names(mqp):
    """Completion of each word: command, verb, object type, object name, keyword, value."""
    mqp.console("ZMQSC DEF QL-APP.IN")
    mqp.console("ZMQSC DEF QL-APP.OUT")
    assert candidates(mqp, "") == ["END", "EXIT", "HELP", "ZBRDG", "ZINET", "ZMQSC", "ZOLDR"]
    assert candidates(mqp, "zm") == ["ZMQSC"]
    assert candidates(mqp, "ZMQSC DIS") == ["DIS", "DISP", "DISPLAY"]
    assert candidates(mqp, "ZMQSC CLEAR ") == ["QL-"]
    assert candidates(mqp, "ZMQSC DISP Q") == ["Q-", "QA-", "QL-", "QMGR", "QR-"]
    assert candidates(mqp, "ZMQSC DISP QL-APP.") == ["QL-APP.IN", "QL-APP.OUT"]
    assert candidates(mqp, "ZMQSC ALT QL-APP.IN MAXD") == ["MAXDEPTH-"]
    assert candidates(mqp, "ZMQSC ALT QL-APP.IN TRIGTYPE-E") == ["TRIGTYPE-EVERY"]
    assert candidates(mqp, "ZMQSC DEF QL-X MAXDEPTH-5 MAXD") == []  # given already
    assert "NOTRIGGER" in candidates(mqp, "ZMQSC DEF QL-X NO")
    assert candidates(mqp, "ZMQSC SWQ QL-APP.IN QL-APP.O") == ["QL-APP.OUT"]
    assert candidates(mqp, "ZINET ADD MOD") == ["MODEL-"]
    assert candidates(mqp, "help DEF") == ["DEF", "DEFINE"]
    assert candidates(mqp, "FROB ") == []


def test_help_lines_are_plain_console_messages_for_any_processor():
    """help_lines works without a system, and each line names the processor given."""
    lines = help_lines("Q", "DEF QL")
    assert lines and all(line.startswith("CONS0010I Q ") for line in lines)
