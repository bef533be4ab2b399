"""Console scripts (tpfemu.console.script): how a script file becomes command lines."""

from tpfemu.console.script import script_commands


def test_script_commands_follow_the_console_rules():
    """Scripts skip * and # comment lines and join lines ending in +."""
    lines = ["* comment", "# also", "", "ZMQSC DEF QL-A +", "   MAXDEPTH-5", "ZMQSC DISP QMGR"]
    assert script_commands(lines) == ["ZMQSC DEF QL-A MAXDEPTH-5", "ZMQSC DISP QMGR"]


def test_a_last_line_ending_in_plus_is_still_a_command():
    """A continuation with nothing after it still yields the command, without the +."""
    assert script_commands(["ZMQSC DISP +", "  "]) == ["ZMQSC DISP"]
