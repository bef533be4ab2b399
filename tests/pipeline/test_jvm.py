"""How a pipeline command starts its JVM (tpfemu.pipeline.jvm): C1 only for small local
inputs, a class-data archive mapped when there is one and written when there is none,
moved into place only once complete, and a damaged one removed."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from journaldata import T0, row, write

from tpfemu.pipeline import jvm
from tpfemu.pipeline.sources import Inputs

MAGIC = (0xF00BABA8).to_bytes(4, sys.byteorder)


@pytest.fixture
def cache(tmp_path):
    return tmp_path / "cache"


def test_small_local_inputs_run_c1_only(cache):
    """At most SMALL_INPUT bytes on a local master: C1 only; larger, unknown (URIs) or
    on a cluster: both JITs."""
    assert "-XX:TieredStopAtLevel=1" in jvm.launch_options(1000, cache=cache).options
    assert "-XX:TieredStopAtLevel=1" in jvm.launch_options(jvm.SMALL_INPUT, cache=cache).options
    for size, local in ((jvm.SMALL_INPUT + 1, True), (None, True), (1000, False)):
        assert "TieredStopAtLevel" not in jvm.launch_options(size, cache=cache,
                                                             local=local).options


def test_no_archive_yet_the_jvm_writes_one_of_its_own(cache):
    """No archive: the JVM writes one at exit to a file named by this process, which
    finish() moves into place later; an archive present is mapped instead."""
    launch = jvm.launch_options(None, cache=cache)
    final = jvm.archive_path(cache)
    assert final is not None and final.parent == cache and final.suffix == ".jsa"
    assert launch.uses is None and launch.writes is not None
    temporary, target = launch.writes
    assert target == final and temporary.parent == cache
    assert str(os.getpid()) in temporary.name
    assert launch.options == f"-XX:ArchiveClassesAtExit={temporary}"
    final.write_bytes(MAGIC + b"archive")
    launch = jvm.launch_options(None, cache=cache)
    assert launch.options == (f"-XX:SharedArchiveFile={final} "
                              f"-XX:ErrorFile={cache}/hs_err_pid%p.log")
    assert launch.uses == final and launch.writes is None
    (cache / "hs_err_pid7.log").write_text("crash")
    jvm.discard(launch)  # (what the command does when the JVM cannot start with it)
    assert not final.exists() and not list(cache.glob("hs_err*"))


def test_a_file_that_is_no_archive_is_replaced(cache):
    """A file without the archive's magic number (the JVM would skip it silently, and
    keep it for good) is removed, and the JVM writes a new archive."""
    final = jvm.archive_path(cache)
    cache.mkdir()
    final.write_bytes(b"not an archive")
    launch = jvm.launch_options(None, cache=cache)
    assert launch.uses is None and launch.writes is not None and not final.exists()


def test_cache_location_and_off(monkeypatch, tmp_path):
    """TPFEMU_JVM_CACHE names the directory, 'off' turns the archive off; else
    XDG_CACHE_HOME/tpfemu."""
    monkeypatch.setenv("TPFEMU_JVM_CACHE", "off")
    assert jvm.cache_dir() is None
    assert jvm.launch_options(None).options == ""
    monkeypatch.setenv("TPFEMU_JVM_CACHE", str(tmp_path / "c"))
    assert jvm.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("TPFEMU_JVM_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert jvm.cache_dir() == tmp_path / "x" / "tpfemu"


def test_an_unwritable_cache_runs_without_an_archive(tmp_path):
    """A cache directory that cannot be made (a file is in the way): no archive options,
    and the command runs."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert jvm.launch_options(None, cache=blocker / "cache").options == ""


def test_the_archive_name_follows_the_java_and_pyspark(cache, monkeypatch, tmp_path):
    """Another java (JAVA_HOME) gives another archive; no java, none at all."""
    first = jvm.archive_path(cache)
    fake = tmp_path / "jdk" / "bin" / "java"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    other = jvm.archive_path(cache)
    assert other is not None and other != first
    import pyspark

    assert other.name.startswith(f"spark-{pyspark.__version__}-")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert jvm.archive_path(cache) is None
    assert jvm.launch_options(None, cache=cache).options == ""


def test_input_bytes_are_the_inputs_as_given(tmp_path):
    """Inputs.local_bytes: the Parquet files found (a directory's, a file given alone)
    and a journal's files, before conversion; a URI makes the size unknown."""
    write([row("put", "Q", T0)], tmp_path / "d" / "a.parquet")
    write([row("put", "Q", T0)], tmp_path / "d" / "sub" / "b.parquet")
    write([row("put", "Q", T0)], tmp_path / "f.parquet")
    (tmp_path / "j" / "journal").mkdir(parents=True)
    (tmp_path / "j" / "journal" / "x.arrows").write_bytes(b"x" * 11)
    sizes = sum(p.stat().st_size for p in (tmp_path / "d" / "a.parquet",
                                           tmp_path / "d" / "sub" / "b.parquet",
                                           tmp_path / "f.parquet"))
    inputs = Inputs([tmp_path / "d", f"file://{tmp_path / 'f.parquet'}", tmp_path / "j"])
    assert inputs.local_bytes() == sizes + 11
    assert Inputs([tmp_path / "f.parquet", "s3a://bucket/x"]).local_bytes() is None


def test_stale_temporaries_are_removed(cache):
    """A temporary archive left by a command killed an hour ago goes; a recent one
    (a command still writing it) stays."""
    final = jvm.archive_path(cache)
    cache.mkdir()
    old, new = cache / f"{final.name}.1.tmp", cache / f"{final.name}.2.tmp"
    old.write_bytes(b"x")
    new.write_bytes(b"x")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    jvm.launch_options(None, cache=cache)
    assert not old.exists() and new.exists()


def test_the_archive_is_moved_into_place_only_after_its_writer_ended(tmp_path):
    """The waiter that finish() starts (python -m tpfemu.pipeline.jvm PID TMP FINAL)
    leaves the file alone while its writer runs, and moves it once the writer has
    ended; an empty file (a JVM that wrote nothing) is removed, not moved."""
    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(2)"])
    temporary, final = tmp_path / "a.jsa.9.tmp", tmp_path / "a.jsa"
    temporary.write_bytes(b"classes")
    waiter = subprocess.Popen([sys.executable, "-m", "tpfemu.pipeline.jvm", str(writer.pid),
                               str(temporary), str(final)])
    time.sleep(1)
    assert temporary.exists() and not final.exists()
    writer.wait()
    assert waiter.wait(timeout=30) == 0
    assert final.read_bytes() == b"classes" and not temporary.exists()
    empty = tmp_path / "b.jsa.9.tmp"
    empty.write_bytes(b"")
    done = subprocess.run([sys.executable, "-m", "tpfemu.pipeline.jvm", str(writer.pid),
                           str(empty), str(tmp_path / "b.jsa")], timeout=30)
    assert done.returncode == 0
    assert not empty.exists() and not (tmp_path / "b.jsa").exists()
