"""The program table of a System: Python callables and C programs in shared objects."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ecb import Programs

if TYPE_CHECKING:
    from tpfemu.cprog.loader import CProgram

__all__ = ["SharedPrograms"]


class SharedPrograms(Programs):
    """:class:`ecb.Programs` with :meth:`load_shared` (the runtime of C programs is
    loaded on the first C program)."""

    def load_shared(self, name: str, path: str | os.PathLike[str]) -> CProgram:
        """Load the C program ``name`` from the shared object ``path``: its entry
        function ``void NAME(void)`` runs on every entry to ``name``. Loading a name
        again replaces it with a new version (tpfemu.cprog.loader).

        :raises ValueError: a bad program name.
        :raises ProgramLoadError: naming the file and what is wrong with it.
        """
        from tpfemu.cprog.loader import load_program

        program = load_program(name, path)
        self.load(name, program)
        return program
