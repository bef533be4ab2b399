"""``tpfemu cc``: build a C program as a shared object the emulator loads.

The compiler line (what ``tpfemu cc -o qzz1.so qzz1.c`` runs; ``compiler_line`` prints it
for a makefile)::

    cc -std=gnu11 -fPIC -shared -O2 -g -Wall -Wextra -Werror -I<tpfemu>/native/include \\
       -Wl,--wrap=exit -Wl,--wrap=abort -o qzz1.so qzz1.c [extra flags, -lLIB ...]

- ``-I``: the shipped headers (``<cmqc.h>``, ``<tpf/cmqc.h>``, ``<tpf/tpfapi.h>``);
- ``-shared -fPIC``: a shared object; the MQI and TPF symbols stay undefined in it and
  bind, when it is loaded, to the runtime (``tpfemu._cprog``);
- ``--wrap=exit``: a program's ``exit()`` is EXITC (or, in a ``main()`` program run by
  ``tpfemu exec``, the end of main) instead of the end of the emulator's process;
  ``--wrap=abort``: a program's ``abort()`` ends its entry with a dump (one raised in
  the C library, as by a failed assert(), goes to the same handler).

The compiler is ``$CC`` or ``cc``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path

from tpfemu import errors

__all__ = ["INCLUDE", "BuildError", "compile_program", "compiler_line"]

#: The shipped headers.
INCLUDE = Path(__file__).resolve().parents[2] / "native" / "include"
FLAGS = ("-std=gnu11", "-fPIC", "-shared", "-O2", "-g", "-Wall", "-Wextra", "-Werror")
LINK = ("-Wl,--wrap=exit", "-Wl,--wrap=abort")


class BuildError(errors.TpfEmuError):
    """The compiler refused the program; the message holds its diagnostics."""


def compiler_line(sources: Sequence[str | os.PathLike[str]], output: str | os.PathLike[str],
                  extra: Sequence[str] = ()) -> list[str]:
    """The command that builds ``sources`` into the shared object ``output``; ``extra``
    flags come last, where libraries (``-lname``) must be."""
    cc = shlex.split(os.environ.get("CC", "cc"))
    return [*cc, *FLAGS, f"-I{INCLUDE}", *LINK, "-o", str(output), *map(str, sources),
            *extra]


def compile_program(sources: Sequence[str | os.PathLike[str]],
                    output: str | os.PathLike[str], extra: Sequence[str] = ()) -> Path:
    """Build ``sources`` into ``output``; return its path.

    :raises BuildError: with the compiler's messages when it fails (or is missing).
    """
    line = compiler_line(sources, output, extra)
    try:
        done = subprocess.run(line, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise BuildError(f"cannot run the C compiler {line[0]!r}: {exc}") from None
    if done.returncode != 0:
        raise BuildError(f"{shlex.join(line)} failed (exit {done.returncode}):\n"
                         f"{done.stderr.strip()}")
    return Path(output)
