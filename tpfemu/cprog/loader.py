"""Loading C programs: a shared object bound to a 4-character program name.

``system.programs.load_shared("QZZ1", "qzz1.so")`` loads ``qzz1.so`` and binds program
QZZ1 to its entry function, which every entry to QZZ1 then calls on its ECB (a new entry,
ENTRC, ENTNC, a trigger, a ZINET server...).

**The entry function is named as the program**: ``void QZZ1(void)`` in upper case, as
TPF names a C segment after its 4-character program name. It takes no argument (the
program reaches its ECB with ``ecbptr()``); returning from it is BACKC after an ENTRC,
else EXITC. A ``main()`` program (``int main(int argc, char **argv)``) is run by
``tpfemu exec`` instead (:mod:`tpfemu.cprog.execute`).

Every load copies the shared object to a private file first and loads the copy, so that
loading a rebuilt file again gives a new version of the program (as loading a segment
does on TPF); entries already in the old version go on running it.

Load errors (:class:`ProgramLoadError`) name the file: a missing file, one that is not a
shared object of this machine (wrong architecture, not ELF), a symbol the runtime does
not provide, or no entry function of the program's name.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ecb import Ecb, check_name
from tpfemu import errors
from tpfemu._lowlevel import cprog as runtime
from tpfemu.cprog import calls
from tpfemu.mq.structs import GMO, MD, PMO

__all__ = ["CProgram", "ProgramLoadError", "ensure_runtime", "load_program"]

_ready = False


class ProgramLoadError(errors.TpfEmuError, OSError):
    """A C program could not be loaded; the message names the file and why."""


def _fields(cls: Any) -> list[tuple[str, int, int, int]]:
    return [(f.name, f.offset, f.size, f.since) for f in cls.FIELDS]


def ensure_runtime() -> None:
    """Hand the runtime its Python side, once (it checks cmqc.h's layouts against
    tpfemu.mq.structs and refuses to run on any difference)."""
    global _ready
    if not _ready:
        runtime.setup(calls, (MD, GMO, PMO), (_fields(MD), _fields(GMO), _fields(PMO)))
        _ready = True


class CProgram:
    """A program of a shared object: calling it with an ECB runs its entry function."""

    __slots__ = ("address", "name", "path", "symbol")

    def __init__(self, name: str, path: Path, symbol: str, address: int) -> None:
        self.name = name
        self.path = path
        self.symbol = symbol
        self.address = address

    def __call__(self, ecb: Ecb) -> None:
        runtime.run(self.address, ecb, None)

    def main(self, ecb: Ecb, argv: list[str]) -> int:
        """Run ``main(argc, argv)`` on ``ecb``; its exit code (or exit()'s)."""
        return int(runtime.run(self.address, ecb, list(argv)))

    def __repr__(self) -> str:
        return f"<CProgram {self.name} {self.path}:{self.symbol}>"


def _private_copy(path: Path) -> Path:
    directory = Path(tempfile.gettempdir()) / f"tpfemu-programs-{os.getuid()}"
    directory.mkdir(mode=0o700, exist_ok=True)
    fd, copy = tempfile.mkstemp(prefix=path.stem + "-", suffix=".so", dir=directory)
    os.close(fd)
    shutil.copyfile(path, copy)
    return Path(copy)


def load_program(name: str, path: str | os.PathLike[str], symbol: str | None = None
                 ) -> CProgram:
    """Load the shared object ``path`` for program ``name``; its entry function is
    ``symbol`` (default: the program's name).

    :raises ValueError: a bad program name.
    :raises ProgramLoadError: naming the file and what is wrong with it.
    """
    check_name(name)
    ensure_runtime()
    path = Path(path).resolve()
    symbol = symbol or name
    if not path.is_file():
        raise ProgramLoadError(f"cannot load program {name}: no file {path}")
    copy = _private_copy(path)
    try:
        address = runtime.load(str(copy), symbol)
    except LookupError:
        raise ProgramLoadError(
            f"cannot load program {name} from {path}: it has no entry function {symbol} "
            f"(a C program's entry function is named as the program: void {name}(void))"
        ) from None
    except OSError as exc:
        why = str(exc).replace(str(copy), str(path))
        raise ProgramLoadError(f"cannot load program {name} from {path}: {why}") from None
    finally:
        copy.unlink(missing_ok=True)  # (the loaded image stays mapped)
    return CProgram(name, path, symbol, address)
