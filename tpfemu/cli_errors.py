"""How a command of the CLI ends on an error: one line and an exit status, no traceback.

Used by ``tpfemu.cli`` and the shell tools (``tpfemu.shelltools``) alike.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

import click

from tpfemu import errors

__all__ = ["translate_errors"]


def translate_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn tpfemu errors into click errors (exit status 1) with the MQ mnemonic."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except errors.TpfEmuError as exc:
            raise click.ClickException(str(exc)) from exc
        except OSError as exc:  # a file or directory the command needs: one line, exit 1
            raise click.ClickException(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(
                ": ")) from exc
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:  # a defect: one line; the traceback only when asked for
            if os.environ.get("TPFEMU_DEBUG"):
                raise
            raise click.ClickException(f"internal error: {exc!r} - please report it "
                                       "(TPFEMU_DEBUG=1 shows the traceback)") from exc

    return wrapper
