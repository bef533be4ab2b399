"""The tpfemu command with bad input: one-line errors, exit 2 for bad usage and 1 for
failure, never a traceback; options are checked before any work starts."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tpfemu import cli

ROOT = Path(__file__).resolve().parents[2]


def _commands(group: click.Group = cli.main, path: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], click.Command]]:
    """Every subcommand of tpfemu (those added later too), with its command path."""
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _commands(command, path + (name,))
        else:
            yield path + (name,), command


COMMANDS = list(_commands())


def _bad_values(param: click.Parameter, tmp: Path) -> list[str]:
    """Values that the parameter must refuse (by its type, or by its name)."""
    kind = param.type
    if param.name == "cpu":
        return ["7", "BB", ""]
    if param.name == "name":
        return ["bad name", "X" * 49]
    if isinstance(kind, click.Choice):
        return ["no-such-choice"]
    if isinstance(kind, (click.IntRange, click.FloatRange)):
        return ["many", "-1"]
    if isinstance(kind, click.types.IntParamType | click.types.FloatParamType):
        return ["many"]
    if isinstance(kind, click.Path):
        a_file = tmp / "a-file"
        a_file.write_text("not a directory\n")
        if kind.exists:
            return [str(tmp / "missing" / "nothing")]
        if not kind.file_okay:
            return [str(a_file)]
    if isinstance(kind, click.File):
        return [str(tmp / "missing.mqsc")]
    return []


def _good_arguments(command: click.Command, tmp: Path) -> list[str]:
    """Values for the required arguments and options (so that one bad value is the error)."""
    args: list[str] = []
    for param in command.params:
        if not param.required:
            continue
        kind = param.type
        if isinstance(kind, click.Path):
            value = str(tmp / "missing-input") if not kind.exists else str(tmp)
            value = str(tmp / f"out-{param.name}") if not kind.exists else value
        else:
            value = str(tmp / "missing-input")
        if isinstance(param, click.Option):
            args += [param.opts[0], value]
        else:
            args.append(value)
    return args


def _cases(tmp: Path) -> Iterator[tuple[list[str], str]]:
    for path, command in COMMANDS:
        base = [*path, *_good_arguments(command, tmp)]
        yield [*path, "--no-such-option"], "an unknown option"
        for param in command.params:
            for bad in _bad_values(param, tmp):
                if isinstance(param, click.Option):
                    yield [*base, param.opts[0], bad], f"{param.opts[0]} {bad!r}"
                else:
                    args = list(base)
                    if param.required:
                        args.remove(_good_arguments(command, tmp)[0])
                    yield [*path, bad, *args[len(path):]], f"{param.name} {bad!r}"


def test_every_subcommand_is_driven_with_bad_values(tmp_path):
    """Each subcommand, with each bad value of each option: exit 2 (usage) or 1 (failure),
    an error that names the problem in one line, and no traceback."""
    runner = CliRunner()
    seen = set()
    for args, what in _cases(tmp_path):
        result = runner.invoke(cli.main, args)
        seen.add(args[0])
        label = f"tpfemu {' '.join(args)} ({what})"
        assert result.exit_code in (1, 2), f"{label}: exit {result.exit_code}\n{result.output}"
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            f"{label}: {result.exception!r}"
        assert "Traceback" not in result.output, label
        errors = [line for line in result.output.splitlines()
                  if line.startswith(("Error:", "tpfemu "))]
        assert len(errors) == 1, f"{label}: no one-line error in\n{result.output}"
        if what.startswith("-"):  # an option's value is checked before any work
            assert what.split()[0] in errors[0] or "No such option" in errors[0], \
                f"{label}: the error does not name the option: {errors[0]}"
    assert {"run", "cmd", "demo", "journal"} <= seen


@pytest.mark.parametrize(("args", "exit_code", "message"), [
    (["--cpu", "7"], 2, "'7' is not a processor ID: give one letter A-Z"),
    (["--cpu", "BB"], 2, "'BB' is not a processor ID"),
    (["--name", "two words"], 2, "a queue manager name is 1 to 48 characters"),
    (["--home", "/proc/no/such/home"], 2, "cannot create the home '/proc/no/such/home'"),
])
def test_the_real_command_answers_bad_options_in_one_line(args, exit_code, message):
    """`tpfemu run` as a process: the cases the issue measured end in one line on stderr,
    before the system boots, with no traceback."""
    done = subprocess.run([sys.executable, "-m", "tpfemu", "run", *args], cwd=str(ROOT),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == exit_code, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr + done.stdout
    assert done.stdout == ""  # nothing ran


def test_a_new_home_is_made_silently_with_create_and_announced_without(tmp_path):
    """--create makes a new home quietly; without it the new home is announced on stderr,
    so a mistyped path does not pass unnoticed; an existing home is used quietly."""
    runner = CliRunner()
    made = runner.invoke(cli.main, ["cmd", "ZMQSC DISP QMGR", "--home",
                                    str(tmp_path / "new"), "--create"])
    assert made.exit_code == 0 and made.stderr == ""
    announced = runner.invoke(cli.main, ["cmd", "ZMQSC DISP QMGR", "--home",
                                         str(tmp_path / "typo")])
    assert announced.exit_code == 0
    assert f"tpfemu: new home {tmp_path / 'typo'} created" in announced.stderr
    again = runner.invoke(cli.main, ["cmd", "ZMQSC DISP QMGR", "--home", str(tmp_path / "typo")])
    assert again.exit_code == 0 and again.stderr == ""


def test_cpu_is_taken_in_lower_case_and_shown_in_the_prompt():
    """--cpu c is processor C: the echo prompt and the responses name it."""
    result = CliRunner().invoke(cli.main, ["run", "--cpu", "c", "--name", "LOWC"],
                                input="ZMQSC DISP QMGR\n")
    assert result.exit_code == 0, result.output
    assert "LOWC/C> ZMQSC DISP QMGR" in result.output and "MQSC0020I C QMGR LOWC" in \
        result.output


def test_run_echo_and_verify_options():
    """-e leaves out the echo of piped commands; -v checks the syntax and runs nothing."""
    quiet = CliRunner().invoke(cli.main, ["run", "-e", "--name", "ECHO1"],
                               input="ZMQSC DEF MQP\n")
    assert quiet.exit_code == 0 and "ECHO1/B>" not in quiet.output
    assert "MQSC0017I" in quiet.output
    verify = CliRunner().invoke(cli.main, ["run", "-v", "--name", "VRFY1"],
                                input="ZMQSC DEF MQP\nZMQSC DEF QL(X)\nZMQSC STOP QMGR\n"
                                      "ZMQSC DISP QMGR\n")
    assert verify.exit_code == 0
    assert verify.output.count("CONS0005I B SYNTAX OK - NOT RUN") == 3
    assert "MQSC0004E" in verify.output and "MQSC0017I" not in verify.output


def test_a_defect_is_one_line_unless_debugging(monkeypatch):
    """An unexpected exception in a command is one line naming it, exit 1; with
    TPFEMU_DEBUG set the exception propagates with its traceback."""

    @click.command()
    @cli.translate_errors
    def broken() -> None:
        raise RuntimeError("defect in a command")

    monkeypatch.delenv("TPFEMU_DEBUG", raising=False)
    result = CliRunner().invoke(broken, [])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "Error: internal error: RuntimeError('defect in a command')" in result.output
    monkeypatch.setenv("TPFEMU_DEBUG", "1")
    assert isinstance(CliRunner().invoke(broken, []).exception, RuntimeError)
