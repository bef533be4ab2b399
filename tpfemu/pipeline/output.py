"""Atomic output directories: a job writes into a hidden sibling of ``--out`` and renames it
into place when everything is written, so a failed or interrupted job leaves no half-written
output (and an existing ``--out`` is replaced only by a complete new one)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["AtomicDir"]


class AtomicDir:
    """``with AtomicDir(out) as tmp:`` write into ``tmp``; on success it becomes ``out``."""

    def __init__(self, out: str | os.PathLike) -> None:
        self.out = Path(out).resolve()
        self.tmp: Path | None = None

    def __enter__(self) -> Path:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.partial-",
                                         dir=self.out.parent))
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
