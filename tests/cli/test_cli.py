"""The tpfemu command: help, the demo, and how errors become exit statuses."""

import click
from click.testing import CliRunner

from tpfemu import cli, errors


def test_help_lists_commands():
    """`tpfemu --help` describes the tool and lists the demo."""
    result = CliRunner().invoke(cli.main, ["--help"])
    assert result.exit_code == 0
    assert "TPF" in result.output and "demo" in result.output


def test_demo_runs_the_legacy_application_end_to_end():
    """The demo defines objects by ZMQSC, shows the trigger kept while BNK1 is missing and
    the depth warning, then BNK1 answers every request, matched by CorrelId."""
    result = CliRunner().invoke(cli.main, ["demo", "--requests", "40"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "MQSC0017I B MQP TPF1 DEFINED" in out
    assert "PROGRAM BNK1 IS NOT LOADED - TRIGGER KEPT" in out
    assert "... and so for each of the 40 triggers, all kept" in out
    assert "MQSC0070W B QL BANK.REQUEST DEPTH 40 IS ABOVE QDEPTHHI 60% OF MAXDEPTH 50" in out
    assert "first reply: 'ACCOUNT 00001000 BALANCE" in out
    assert "requests sent 41, replies matched by CorrelId 41, requests left 0" in out
    assert "triggers fired 41, BNK1 entries 41, entries failed 0" in out


def test_run_executes_a_script_then_standard_input_until_stop(tmp_path):
    """tpfemu run runs its script, then commands from standard input until STOP QMGR."""
    script = tmp_path / "setup.mqsc"
    script.write_text("ZMQSC DEF MQP\nZMQSC DEF QL-APP.IN +\n MAXDEPTH-7\n")
    result = CliRunner().invoke(
        cli.main, ["run", str(script), "--name", "RUNQM"],
        input="ZMQSC DISP QL-APP.IN\nZMQSC STOP QMGR\nZMQSC DEF QL-NEVER\n",
    )
    assert result.exit_code == 0, result.output
    assert "MQSC0010I B QL APP.IN DEFINED" in result.output
    assert "MAXDEPTH  7" in result.output
    assert "NEVER" not in result.output.split("STOP QMGR", 1)[1]


def test_cmd_runs_one_command_and_fails_on_an_error_response():
    """tpfemu cmd prints the response; an E response exits with status 1."""
    ok = CliRunner().invoke(cli.main, ["cmd", "ZMQSC DEF MQP", "--name", "CMDQM"])
    assert ok.exit_code == 0 and "MQSC0017I" in ok.output
    bad = CliRunner().invoke(cli.main, ["cmd", "ZMQSC DEF QL-X", "--name", "CMDQM2"])
    assert bad.exit_code == 1 and "E B" in bad.output


def test_tpfemu_errors_exit_1_with_the_mnemonic():
    """A tpfemu error in a command is a one-line message and exit status 1, not a traceback."""

    @click.command()
    @cli.translate_errors
    def failing() -> None:
        raise errors.error_for(2053, call="MQPUT", obj="APP.Q")

    result = CliRunner().invoke(failing, [])
    assert result.exit_code == 1
    assert "Reason 2053: FAILED: MQRC_Q_FULL (MQPUT on 'APP.Q')" in result.output
    assert "Traceback" not in result.output


def test_usage_errors_exit_2():
    """An unknown command is a usage error: exit status 2."""
    assert CliRunner().invoke(cli.main, ["no-such-command"]).exit_code == 2
