"""Checks of the ``tpfemu`` command's options, made before any work starts.

Each check turns a bad value into a :class:`click.BadParameter` — one line naming the
option and what it accepts, exit status 2 — instead of a traceback from deep inside:

- ``--cpu``: one processor ID letter A-Z (:data:`CPU`, a click type; lower case is taken);
- ``--name``: a queue manager name, 1-48 characters of A-Z a-z 0-9 . / _ % (:func:`check_name`);
- every command's ``--cpu`` and queue manager ``--name`` (those of ``replay`` and of
  commands added later too) get these checks from :func:`check_common_options`;
- ``--home``: an existing directory, or a new one. A new home is made only when asked for
  (``--create``) or, without it, announced on standard error (``tpfemu: new home ...``) so
  that a mistyped path does not go unnoticed (:func:`prepare_home`). A path that is a
  file, or a directory that cannot be made, is refused.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import click

__all__ = ["CPU", "check_common_options", "check_name", "create_option", "prepare_home"]


class _CpuId(click.ParamType):
    """A processor ID: one letter A-Z."""

    name = "A-Z"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        text = str(value)
        if len(text) == 1 and text.isascii() and text.isalpha():
            return text.upper()
        self.fail(f"{text!r} is not a processor ID: give one letter A-Z", param, ctx)


CPU = _CpuId()

create_option = click.option(
    "--create", is_flag=True,
    help="Make HOME if it does not exist (without it, a new home is announced on stderr).")


def check_name(value: str, option: str = "--name") -> str:
    """A queue manager name, or :class:`click.BadParameter` saying what is wrong."""
    from tpfemu.qmgr.objects import name_problem

    problem = name_problem(value)
    if problem is not None:
        raise click.BadParameter(
            f"{value!r} {problem}; a queue manager name is 1 to 48 characters "
            "A-Z a-z 0-9 . / _ %", param_hint=option)
    return value


def prepare_home(home: str | None, *, create: bool,
                 announce: Callable[[str], None] | None = None) -> Path | None:
    """Check ``--home`` and make it if it is new.

    :param create: ``--create`` was given: a new home is made silently.
    :param announce: where to say that a new home is made without ``--create`` (default:
        standard error).
    :raises click.BadParameter: the path is not a directory, or cannot be made.
    """
    if home is None:
        return None
    path = Path(home).expanduser()
    if path.exists():
        if not path.is_dir():
            raise click.BadParameter(f"{home!r} is a file, not a home directory",
                                     param_hint="--home")
        if not os.access(path, os.R_OK | os.W_OK | os.X_OK):
            raise click.BadParameter(f"{home!r} cannot be read and written",
                                     param_hint="--home")
        return path
    try:
        path.mkdir(parents=True)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise click.BadParameter(f"cannot create the home {home!r}: {reason}",
                                 param_hint="--home") from None
    if not create:
        say = announce or (lambda text: click.echo(text, err=True))
        say(f"tpfemu: new home {path} created (use --create to make one without this note)")
    return path


def check_common_options(group: click.Group) -> None:
    """Give every ``--cpu`` option of ``group``'s commands (and subgroups') the A-Z check
    and every ``--name`` option that names a queue manager (its help says so) the
    queue-manager-name check, made before the command runs."""
    for command in group.commands.values():
        if isinstance(command, click.Group):
            check_common_options(command)
            continue
        for param in command.params:
            if not isinstance(param, click.Option):
                continue
            if "--cpu" in param.opts:
                param.type = CPU
            elif "--name" in param.opts and param.callback is None and \
                    "queue manager" in (param.help or "").lower():
                param.callback = lambda _ctx, _param, value: check_name(value)
