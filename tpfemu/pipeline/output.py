"""Atomic output directories: a job writes into a hidden sibling of ``--out`` and renames it
into place when everything is written, so a failed or interrupted job leaves no half-written
output (and an existing ``--out`` is replaced only by a complete new one)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["AtomicDir", "OutputError", "check_out"]


class OutputError(ValueError):
    """The output directory cannot be made or written (the message names it)."""


def check_out(out: str | os.PathLike, inputs: list[str]) -> None:
    """Refuse an output directory that is, holds or lies inside an input: replacing it
    would destroy the input. (Inputs that are URIs are not checked.)

    :raises OutputError: naming both.
    """
    target = Path(out).resolve()
    for given in inputs:
        if "://" in given and not given.startswith("file://"):
            continue
        source = Path(given.removeprefix("file://")).resolve()
        if target == source or source.is_relative_to(target) or target.is_relative_to(source):
            raise OutputError(f"{out}: the output directory would replace the input "
                              f"{given}; choose another --out")


class AtomicDir:
    """``with AtomicDir(out) as tmp:`` write into ``tmp``; on success it becomes ``out``."""

    def __init__(self, out: str | os.PathLike) -> None:
        self.out = Path(out).resolve()
        self.tmp: Path | None = None

    def __enter__(self) -> Path:
        """Make the hidden sibling; :class:`OutputError` (naming ``out``) when ``out`` is
        a file, or its parent cannot be made or written."""
        for path in (self.out, *self.out.parents):
            if path.exists() and not path.is_dir():
                raise OutputError(f"{self.out}: {path} exists and is not a directory")
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.partial-",
                                             dir=self.out.parent))
        except OSError as exc:
            raise OutputError(f"{self.out}: cannot write the output directory here "
                              f"({exc.strerror or exc})") from None
        return self.tmp

    def __exit__(self, exc_type, exc, tb) -> None:
        assert self.tmp is not None
        if exc_type is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            return
        os.chmod(self.tmp, 0o755)
        old = None
        if self.out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.old-", dir=self.out.parent))
            os.rmdir(old)
            os.rename(self.out, old)
        os.rename(self.tmp, self.out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
