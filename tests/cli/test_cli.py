"""The tpfemu command: help, the demo, and how errors become exit statuses."""

import click
from click.testing import CliRunner

from tpfemu import cli, errors


def test_help_lists_commands():
    """`tpfemu --help` describes the tool and lists the demo."""
    result = CliRunner().invoke(cli.main, ["--help"])
    assert result.exit_code == 0
    assert "TPF" in result.output and "demo" in result.output


def test_demo_shows_each_layer_working():
    """The demo runs to the end and shows real results from the MQI and the ECB runtime."""
    result = CliRunner().invoke(cli.main, ["demo"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "DEAD.LETTER.QUEUE, SPECIAL.RECOVERY.QUEUE" in out
    assert "got in order: URGENT, high, routine 1, routine 2" in out
    assert "(priority 4 from its DEFPRTY); the reply by CorrelId: 'balance: 42'" in out
    assert "'order 17' is back, BackoutCount 1" in out
    assert "the depth is still 2" in out
    assert "Feedback 258 (MQFB_EXPIRATION) and data 'stale quote'" in out
    for i in range(3):
        assert f"QZZ1 saw order {i}" in out
    assert "entries created 3, completed 3, failed 0" in out


def test_tpfemu_errors_exit_1_with_the_mnemonic():
    """A tpfemu error in a command is a one-line message and exit status 1, not a traceback."""

    @click.command()
    @cli._translate_errors
    def failing() -> None:
        raise errors.error_for(2053, call="MQPUT", obj="APP.Q")

    result = CliRunner().invoke(failing, [])
    assert result.exit_code == 1
    assert "Reason 2053: FAILED: MQRC_Q_FULL (MQPUT on 'APP.Q')" in result.output
    assert "Traceback" not in result.output


def test_usage_errors_exit_2():
    """An unknown command is a usage error: exit status 2."""
    assert CliRunner().invoke(cli.main, ["no-such-command"]).exit_code == 2
