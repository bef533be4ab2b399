"""Console scripts (tpfemu.console.script): how a script file becomes command lines."""

from tpfemu.console.script import CommandReader, script_commands


def test_script_commands_follow_the_console_rules():
    """Scripts skip * and # comment lines and join lines ending in +."""
    lines = ["* comment", "# also", "", "ZMQSC DEF QL-A +", "   MAXDEPTH-5", "ZMQSC DISP QMGR"]
    assert script_commands(lines) == ["ZMQSC DEF QL-A MAXDEPTH-5", "ZMQSC DISP QMGR"]


def test_a_last_line_ending_in_plus_is_still_a_command():
    """A continuation with nothing after it still yields the command, without the +."""
    assert script_commands(["ZMQSC DISP +", "  "]) == ["ZMQSC DISP"]


def test_a_line_ending_in_a_dash_continues_from_the_next_lines_first_column():
    """As in MQSC scripts, a trailing - is removed and the next line joins as it is, so a
    quoted value can be split; comment lines between continued lines are skipped."""
    lines = ["ZMQSC DEF QL-A DESCR-'Payroll -", "* a comment", "input'  ",
             "ZMQSC DEF QL-B -", "  MAXDEPTH-5"]
    assert script_commands(lines) == ["ZMQSC DEF QL-A DESCR-'Payroll input'",
                                      "ZMQSC DEF QL-B   MAXDEPTH-5"]


def test_the_command_reader_returns_a_command_when_its_last_line_arrives():
    """CommandReader.feed returns None while a command is continued, then the command."""
    reader = CommandReader()
    assert reader.feed("ZMQSC DISP +") is None and reader.continuing
    assert reader.feed("  QMGR") == "ZMQSC DISP QMGR" and not reader.continuing
    assert reader.feed("# comment") is None and reader.finish() is None
