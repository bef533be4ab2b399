"""Write-behind: the journal's segments go to disk and leave the page cache as they are
written (tpfemu.journal.writer.advise_behind), their bytes unchanged."""

from __future__ import annotations

import ctypes
import mmap
import os

import pytest

import tpfemu.mqi as pymqi
from tpfemu import journal
from tpfemu.journal.writer import advise_behind
from tpfemu.mqi import CMQC

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


def cached_pages(path) -> tuple[int, int]:
    """(pages of the file in the page cache, pages of the file), by mincore(2) on a
    mapping of it (which reads nothing)."""
    size = os.path.getsize(path)
    pages = -(-size // mmap.PAGESIZE)
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap failed")
        try:
            vec = ctypes.create_string_buffer(pages)
            if _libc.mincore(addr, size, vec) != 0:
                raise OSError(ctypes.get_errno(), "mincore failed")
            return sum(b & 1 for b in vec.raw), pages
        finally:
            _libc.munmap(addr, size)
    finally:
        os.close(fd)


def test_what_is_written_behind_leaves_the_page_cache_unchanged_on_disk(tmp_path):
    """Written bytes stay cached until advise_behind drops them, after starting their
    write-back (waited for here, so that every page of the range is clean when it is
    dropped); the file reads back the same."""
    path = tmp_path / "segment"
    data = os.urandom(4 << 20)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        os.write(fd, data[: 2 << 20])
        advise_behind(fd, 0, 2 << 20, 0, 0)  # write-back started, nothing dropped
        os.write(fd, data[2 << 20:])
        assert cached_pages(path) == (1024, 1024)
        advise_behind(fd, 2 << 20, 4 << 20, 0, 2 << 20, wait=True)  # the first half dropped
        assert cached_pages(path) == (512, 1024)
        advise_behind(fd, 4 << 20, 4 << 20, 2 << 20, 4 << 20, wait=True)
        assert cached_pages(path) == (0, 1024)
    finally:
        os.close(fd)
    assert path.read_bytes() == data


def test_write_behind_names_bad_arguments(tmp_path):
    """advise_behind refuses ranges that end before they start, negative offsets, missing
    arguments and a file descriptor that is not one."""
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT)
    try:
        with pytest.raises(ValueError, match="a range ends before it starts"):
            advise_behind(fd, 10, 5, 0, 0)
        with pytest.raises(ValueError, match="not negative: -1"):
            advise_behind(fd, 0, 0, -1, 0)
        with pytest.raises(TypeError, match="missing 2 required"):
            advise_behind(fd, 0, 0)
        with pytest.raises(TypeError):
            advise_behind("fd", 0, 0, 0, 0)
    finally:
        os.close(fd)


def test_a_journal_keeps_its_segments_out_of_the_page_cache(start_system):
    """A running journal drops what it wrote two cycles before; a stopped one, all of its
    segment. Its events read back whole."""
    system = start_system()
    qm = pymqi.connect(system.name)
    q = pymqi.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    payload = b"p" * 1024
    segment = system.journal.segment
    for _ in range(6):  # six write cycles of 5 000 pairs (about 1.8 MB of rows each)
        for _ in range(5000):
            q.put(payload)
            q.get()
        assert system.journal.flush()
    cached, pages = cached_pages(segment)  # (at most the last two cycles: about 1/3)
    assert pages > 600 and cached < pages * 0.45
    q.close()
    qm.disconnect()
    system.stop()
    assert cached_pages(segment)[0] == 0
    events = list(journal.read_events(system.home, events=["put", "get"]))
    assert len(events) == 60_000
    assert {e.payload_hash for e in events} == {journal.schema.payload_hash(payload)}
