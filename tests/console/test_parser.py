"""The ZMQSC command-line reader: tokens, quoting, case, verbs, objects and names."""

from __future__ import annotations

import pytest
from console_helpers import ids

from tpfemu.console import messages as m
from tpfemu.console.parser import VERB_OBJECTS, VERBS, ParseError, Token, parse, tokenize

# -- tokens -------------------------------------------------------------------------------------


def test_unquoted_text_is_upper_cased():
    """Keywords and unquoted values are upper-cased."""
    assert tokenize("maxdepth-100 descr-abc") == [
        Token("maxdepth-100", "MAXDEPTH", "100"),
        Token("descr-abc", "DESCR", "ABC"),
    ]


def test_quoted_value_keeps_case_and_blanks():
    """A quoted value keeps its case and its blanks, and is marked quoted."""
    [token] = tokenize("DESCR-'Mixed  case Text'")
    assert token.value == "Mixed  case Text" and token.quoted


def test_doubled_quote_stands_for_one():
    """Two quotes inside a quoted value stand for one quote."""
    [token] = tokenize("DESCR-'Operator''s queue'")
    assert token.value == "Operator's queue"


def test_empty_quoted_value():
    """KEYWORD-'' is the empty value."""
    [token] = tokenize("DESCR-''")
    assert token.value == "" and token.quoted


def test_value_runs_from_the_first_dash():
    """A value may contain dashes: the keyword ends at the first one."""
    [token] = tokenize("CONNAME-ny-host.example.com(1415)")
    assert (token.key, token.value) == ("CONNAME", "NY-HOST.EXAMPLE.COM(1415)")


def test_word_without_dash_is_a_switch():
    """A word without a dash is a switch: key only, no value."""
    [token] = tokenize("trigger")
    assert token.key == "TRIGGER" and token.is_switch and token.value is None


def test_blanks_and_tabs_separate_tokens():
    """Several blanks or tabs between operands are one separator."""
    assert [t.key for t in tokenize("  DEF \t QL-A   PUT-ENABLED  ")] == ["DEF", "QL", "PUT"]


@pytest.mark.parametrize(
    ("text", "token", "problem"),
    [
        ("DESCR-'open", "DESCR-'open", "NOT CLOSED"),
        ("DESCR-'a'b", "DESCR-'a'b", "AFTER THE CLOSING QUOTE"),
        ("DESCR-ab'c'", "DESCR-ab'c'", "QUOTE MUST OPEN"),
        ("DESCR-", "DESCR-", "NO VALUE"),
        ("'DESCR'-X", "'DESCR'-X", "KEYWORD CANNOT BE QUOTED"),
        ("-X", "-X", "NO KEYWORD"),
        ("MAX$DEPTH-1", "MAX$DEPTH-1", "NOT A KEYWORD"),
        ("9LIVES-1", "9LIVES-1", "NOT A KEYWORD"),
    ],
)
def test_bad_tokens_are_named(text, token, problem):
    """A token that cannot be read raises a syntax error naming the token as typed."""
    with pytest.raises(ParseError) as info:
        tokenize(f"PUT-ENABLED {text} GET-ENABLED")
    line = info.value.line("B")
    assert line.startswith(f"{m.SYNTAX.id} B ")
    assert token in line and problem in line


@pytest.mark.parametrize("char", ["\x00", "\n", "\r", "\x1b", "\x7f", "\u2028"])
def test_control_characters_are_refused(char):
    """Control characters are refused anywhere, even inside quotes."""
    with pytest.raises(ParseError) as info:
        tokenize(f"DESCR-'a{char}b'")
    assert info.value.msg is m.SYNTAX
    assert "\n" not in info.value.line("B")


# -- commands -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("spelling", "verb"), sorted(VERBS.items()))
def test_verb_spellings(spelling, verb):
    """Every verb and abbreviation (DEF, ALT, DEL, DISP, DIS) stands for its verb."""
    obj = VERB_OBJECTS[verb][-1]
    name = "" if obj == "QMGR" else "-X"
    assert parse(f"{spelling.lower()} {obj}{name}").verb == verb


def test_parse_splits_object_name_and_operands():
    """parse gives the verb, object type, upper-cased name and the remaining operands."""
    command = parse("def ql-app.in maxdepth-5 TRIGGER")
    assert (command.verb, command.obj, command.name) == ("DEFINE", "QL", "APP.IN")
    assert [t.key for t in command.operands] == ["MAXDEPTH", "TRIGGER"]
    assert not command.name_quoted


def test_quoted_name_keeps_case():
    """A quoted object name keeps its case."""
    command = parse("DEF QL-'App.In'")
    assert command.name == "App.In" and command.name_quoted


def test_empty_command():
    """An empty command lists the verbs."""
    with pytest.raises(ParseError) as info:
        parse("   ")
    assert info.value.msg is m.EMPTY and "DEFINE" in info.value.line("B")


def test_unknown_verb_lists_verbs():
    """An unknown verb is named and the verbs are listed."""
    with pytest.raises(ParseError) as info:
        parse("FROB QL-X")
    line = info.value.line("B")
    assert info.value.msg is m.UNKNOWN_VERB and "FROB" in line and "SWQ" in line


def test_verb_with_a_value_is_not_a_verb():
    """DEF-X is not the verb DEF."""
    with pytest.raises(ParseError) as info:
        parse("DEF-X QL-A")
    assert info.value.msg is m.UNKNOWN_VERB


@pytest.mark.parametrize(
    "text", ["CLEAR QA-X", "RESET QL-X", "SWQ QR-X", "START QL-X", "DEF QMGR", "DEF Q-X",
             "DISP XX-Y", "DEF"],
)
def test_object_must_suit_the_verb(text):
    """An object type the verb does not act on is refused, listing those it does."""
    with pytest.raises(ParseError) as info:
        parse(text)
    assert info.value.msg is m.UNKNOWN_OBJECT


@pytest.mark.parametrize("text", ["DEF QL", "ALT QA", "DEL PROC", "CLEAR QL", "START CHL",
                                  "SWQ QL", "RESET CHL", "DEF CHL"])
def test_name_required(text):
    """Verbs that act on one object need its name."""
    with pytest.raises(ParseError) as info:
        parse(text)
    assert info.value.msg is m.NAME_NEEDED


@pytest.mark.parametrize("text", ["DISP QL", "DISP Q", "DISP PROC", "DEF MQP", "DISP QMGR",
                                  "START QMGR", "DEL MQP", "ALT MQP MAXMSGL-5"])
def test_name_optional(text):
    """DISPLAY without a name means all; MQP and QMGR need none."""
    assert parse(text).name is None


def test_qmgr_takes_no_name():
    """QMGR-name is refused: the queue manager is the one running here."""
    with pytest.raises(ParseError) as info:
        parse("DISP QMGR-OTHER")
    assert info.value.msg is m.NO_NAME_ALLOWED


def test_console_answers_parse_errors(system):
    """The console turns a parse error into one E line with the processor ID."""
    assert ids(system.console("ZMQSC DEF QL-'open")) == [m.SYNTAX.id]
    assert ids(system.console("ZMQSC")) == [m.EMPTY.id]
    assert system.console("ZMQSC FROB").split()[1] == system.cpu
