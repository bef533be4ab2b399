"""How a pipeline command starts Spark's JVM: a class-data archive, and the JIT for small inputs.

A command on a small input spends most of its time warming the JVM up, not on the data.
Measured on the dev box (2 cores), from process start to the result, a compare of two
1,000-row captures took 45-51 s by default, of which about 10 s were Spark's start
(docs/pipeline.md, "Small inputs: the JVM's start"). Two start options cut that, and change
nothing in what Spark computes:

- **A class-data archive** (HotSpot's dynamic CDS): the classes a run loaded (Spark's,
  Scala's, Hadoop's: some 190 MB once mapped) are written when its JVM exits, and later
  JVMs map them instead of loading, parsing and verifying each class again. Spark's start
  went from about 10 s to about 5 s. The archive is kept in the cache directory
  (:func:`cache_dir`), one per Java and pyspark installation (:func:`archive_path`). A
  command that finds none has its JVM write one to a file of its own, which is moved
  into place (:func:`finish`) only once that JVM has exited, so no JVM maps a file still
  being written. HotSpot checks little of an archive before it maps it: a file that is
  no archive at all it skips (such a file is replaced here), and one cut short (a full
  disk, a JVM killed while writing) crashes it; the command then removes the archive
  (:func:`discard`) and starts again without it.
- **C1 only**, for inputs of at most :data:`SMALL_INPUT` bytes: the JIT then compiles
  quickly and never with C2, whose compiler threads compete with the job for the two
  cores. On small inputs that is faster (with the archive, the 1,000-row compare took
  24.9-29.2 s with C1 only, 34.8-35.2 s with both JITs); on large ones slower (a compare
  of 10M rows a side ran at about half speed), so larger inputs, and inputs of unknown
  size (URIs), keep both.

``TPFEMU_JVM_CACHE`` names the cache directory, or ``off`` for no archive.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SMALL_INPUT", "Launch", "archive_path", "cache_dir", "discard", "finish",
           "launch_options"]

#: Inputs up to this many bytes run with the C1 JIT only. Measured from process start:
#: 1,000-row captures (96 KB a side), 100,000 (8 MB) and 1M rows (75 MB) were faster
#: with C1 only (one run each: 32.3 against 43.1 s at 100,000 rows; 49.8 against 56.3 s
#: at 1M); 10M rows (741 MB a side) about twice as slow.
SMALL_INPUT = 160 * 2**20
#: A temporary archive older than this is a killed command's, and is removed.
_STALE_SECONDS = 3600.0
_C1_ONLY = "-XX:TieredStopAtLevel=1"
_MAGIC = 0xF00BABA8


@dataclass(frozen=True)
class Launch:
    """The driver JVM's start options, and the archive they read or write."""

    options: str
    #: the archive the JVM maps (None: it maps none)
    uses: Path | None = None
    #: the file the JVM writes its archive to when it exits, and where it then belongs
    writes: tuple[Path, Path] | None = None


def cache_dir() -> Path | None:
    """Where the class-data archive is kept: ``$TPFEMU_JVM_CACHE``, else
    ``$XDG_CACHE_HOME/tpfemu``, else ``~/.cache/tpfemu``; None for ``off``."""
    named = os.environ.get("TPFEMU_JVM_CACHE")
    if named is not None:
        return None if named.strip().lower() in ("", "off", "0", "no") else Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tpfemu"


def _java() -> Path | None:
    """The ``java`` that pyspark starts: ``$JAVA_HOME/bin/java``, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not found or not Path(found).exists():
        return None
    return Path(found).resolve()


def archive_path(cache: Path) -> Path | None:
    """The archive for this Java and this pyspark (None: no java found). Named by both,
    so that an upgrade of either makes a new one (a JVM refuses an archive made by
    another build, and one made with other jars maps only in part)."""
    import pyspark

    java = _java()
    if java is None:
        return None
    stat = java.stat()
    key = hashlib.blake2b(f"{java}|{stat.st_size}|{stat.st_mtime_ns}|{pyspark.__file__}".encode(),
                          digest_size=6).hexdigest()
    return cache / f"spark-{pyspark.__version__}-{key}.jsa"


def launch_options(size: int | None, *, cache: Path | None = None,
                   local: bool = True) -> Launch:
    """The start options of a driver JVM for a job on ``size`` bytes of input (None:
    unknown): C1 only for a small input on a local master, and the archive of ``cache``
    (from :func:`cache_dir` when not given), mapped if there is one, else written."""
    options = [_C1_ONLY] if local and size is not None and size <= SMALL_INPUT else []
    where = cache_dir() if cache is None else cache
    final = archive_path(where) if where is not None else None
    if where is None or final is None:
        return Launch(" ".join(options))
    if final.is_file() and not _looks_like_archive(final):
        final.unlink(missing_ok=True)  # (a JVM would ignore it, and none would replace it)
    if final.is_file():
        # (a damaged archive crashes the JVM: its crash report goes to the cache, not to
        # the user's working directory)
        crash = where / "hs_err_pid%p.log"
        return Launch(" ".join([*options, f"-XX:SharedArchiveFile={final}",
                                f"-XX:ErrorFile={crash}"]), uses=final)
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError:  # (a read-only home: run without an archive)
        return Launch(" ".join(options))
    _remove_stale(where)
    temporary = final.with_name(f"{final.name}.{os.getpid()}.tmp")
    return Launch(" ".join([*options, f"-XX:ArchiveClassesAtExit={temporary}"]),
                  writes=(temporary, final))


def _looks_like_archive(path: Path) -> bool:
    """Whether ``path`` starts as HotSpot's dynamic archives do (their magic number,
    0xf00baba8, in the machine's byte order). A file that does not is skipped by the
    JVM, silently; one that does but is damaged further on crashes it."""
    try:
        with path.open("rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return len(head) == 4 and int.from_bytes(head, sys.byteorder) == _MAGIC


def _remove_stale(cache: Path) -> None:
    """Remove the temporary archives of commands killed before they finished."""
    now = time.time()
    for tmp in cache.glob("*.jsa.*.tmp"):
        try:
            if now - tmp.stat().st_mtime > _STALE_SECONDS:
                tmp.unlink()
        except OSError:
            pass


def finish(launch: Launch, spark) -> None:
    """At the end of a command whose JVM writes an archive: have the archive moved into
    place once that JVM has written it and exited, without waiting for it (writing took
    about 24 s on two cores). The JVM exits, and writes, when this process has ended
    (its stdin closes); a small detached process waits for that and then moves the file.
    (A JVM killed while writing leaves a damaged archive, which the next command that
    cannot start with it removes: :func:`discard`.)"""
    import subprocess

    from pyspark import SparkContext

    if launch.writes is None:
        return
    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None) if gateway is not None else None
    if proc is None:
        return
    temporary, final = launch.writes
    subprocess.Popen(
        [sys.executable, "-m", "tpfemu.pipeline.jvm", str(proc.pid), str(temporary), str(final)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True)


def _adopt(pid: int, temporary: Path, final: Path, limit: float = 900.0) -> None:
    """Wait (at most ``limit`` seconds) for process ``pid`` to end, then move the archive
    it wrote to ``temporary`` into place as ``final``; remove it when it is empty."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        except PermissionError:  # (someone else's process: the pid was reused)
            break
        time.sleep(0.5)
    else:
        return
    try:
        if temporary.is_file() and temporary.stat().st_size > 0:
            os.replace(temporary, final)
        else:
            temporary.unlink(missing_ok=True)
    except OSError:
        pass


def discard(launch: Launch) -> None:
    """Remove the archive a JVM failed to start with, and the JVMs' crash reports beside
    it (the next command writes a new archive)."""
    if launch.uses is not None:
        launch.uses.unlink(missing_ok=True)
        for report in launch.uses.parent.glob("hs_err_pid*.log"):
            report.unlink(missing_ok=True)


if __name__ == "__main__":  # the waiter started by finish()
    _adopt(int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
