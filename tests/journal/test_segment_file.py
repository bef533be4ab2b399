"""SegmentFile: the end of a journal segment, staged and written at its offsets (with
O_DIRECT in whole blocks, the partial last one padded and cut off again), so the file
holds exactly what was appended after every flush, whichever way it is written."""

from __future__ import annotations

import os
import time

import pyarrow as pa
import pytest

import tpfemu.mqi as pymqi
from tpfemu import journal
from tpfemu._lowlevel import CoreQueue, EventLog, SegmentFile
from tpfemu.journal.schema import SEGMENT_SCHEMA
from tpfemu.mqi import CMQC

O_DIRECT = getattr(os, "O_DIRECT", 0)


def _open(path, direct: bool) -> int:
    """A new file open for writing, with O_DIRECT if asked (the test is skipped where the
    file system refuses it)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    if not direct:
        return os.open(path, flags)
    if not O_DIRECT:
        pytest.skip("no O_DIRECT here")
    try:
        return os.open(path, flags | O_DIRECT)
    except OSError as exc:
        pytest.skip(f"O_DIRECT refused here: {exc}")


@pytest.mark.parametrize("direct", [True, False], ids=["O_DIRECT", "buffered"])
def test_the_file_holds_exactly_what_was_appended_after_each_flush(tmp_path, direct):
    """Appends of odd sizes (one passing the size that makes whole blocks go out before
    the flush) leave the file, after each flush, byte for byte what was appended so far,
    its size exact; with O_DIRECT the partial last block is rewritten at each flush."""
    path = tmp_path / "segment"
    fd = _open(path, direct)
    try:
        seg = SegmentFile(fd)
        assert seg.direct is direct
        sent = bytearray()
        for i, size in enumerate([13, 4096, 1, 5000, 3 << 20, 7, 0, 8191, 4096 * 3]):
            chunk = os.urandom(size)
            seg.append(chunk)
            sent += chunk
            assert seg.size == len(sent)
            if i % 2:
                seg.flush()
                assert path.read_bytes() == sent
        seg.flush()
        assert path.read_bytes() == sent
        assert seg.direct is direct
    finally:
        os.close(fd)


def test_a_failed_write_keeps_the_bytes_staged(tmp_path):
    """A write that fails (a full disk: /dev/full) raises OSError and unstages nothing:
    once the segment's descriptor is back, flush writes every byte appended."""
    path = tmp_path / "segment"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    full = os.open("/dev/full", os.O_WRONLY)
    try:
        seg = SegmentFile(fd)
        seg.append(b"first ")
        seg.flush()
        seg.fd = full
        seg.append(b"second")
        with pytest.raises(OSError, match="No space left"):
            seg.flush()
        seg.fd = fd
        seg.flush()
        assert path.read_bytes() == b"first second"
    finally:
        os.close(full)
        os.close(fd)


def test_segment_file_names_bad_arguments():
    """A negative descriptor or size, or data that is not bytes-like, is refused with a
    clear error."""
    with pytest.raises(ValueError, match="not negative"):
        SegmentFile(-1)
    with pytest.raises(ValueError, match="not negative"):
        SegmentFile(0, -5)
    with pytest.raises(TypeError):
        SegmentFile(0).append("text")


@pytest.mark.parametrize("direct", [True, False], ids=["O_DIRECT", "buffered"])
def test_write_ipc_into_a_segment_file_writes_what_it_writes_to_a_descriptor(tmp_path,
                                                                            direct):
    """EventLog.write_ipc encoding into a SegmentFile (staged, then flushed) writes a
    stream of the size it writes to a plain descriptor, read back as the same rows."""
    q = CoreQueue("SEG.Q")
    logs = [EventLog(lambda: None), EventLog(lambda: None)]
    try:
        for i in range(2000):
            for log in logs:
                q.put(b"m%d" % i * 30, i % 10, 0, log)
                q.get_body(0, False, log)
    finally:
        q.close()
    plain, staged = tmp_path / "plain.arrows", tmp_path / "staged.arrows"
    head, tail = SEGMENT_SCHEMA.serialize().to_pybytes(), b"\xff\xff\xff\xff\x00\x00\x00\x00"
    fd = os.open(plain, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        os.write(fd, head)
        logs[0].write_ipc(fd, 0, "B", "QMS", 700, lambda items, seq0: None)
        os.write(fd, tail)
    finally:
        os.close(fd)
    fd = _open(staged, direct)
    try:
        seg = SegmentFile(fd)
        seg.append(head)
        logs[1].write_ipc(seg, 0, "B", "QMS", 700, lambda items, seq0: None)
        seg.append(tail)
        seg.flush()
    finally:
        os.close(fd)
    assert staged.stat().st_size == plain.stat().st_size
    tables = [pa.ipc.open_stream(p).read_all() for p in (plain, staged)]
    tables[1].validate(full=True)
    assert tables[1].num_rows == 4000
    # (the times and generated MsgIds differ: the two logs recorded apart)
    varying = ["event_time_us", "msg_id"]
    assert tables[1].drop(varying).equals(tables[0].drop(varying))


def test_a_journal_writes_its_segments_with_o_direct_where_it_can(start_system, tmp_path):
    """A journal on a file system that takes O_DIRECT writes its segment that way, and
    the segment reads back whole, cut to its true size at every cycle."""
    probe = tmp_path / "probe"
    os.close(_open(probe, True))
    system = start_system()
    assert system.journal._file.direct
    qm = pymqi.connect(system.name)
    q = pymqi.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    for i in range(3):
        for _ in range(1000 + i):
            q.put(b"d" * 100, pymqi.MD())
            q.get(None, pymqi.MD())
        assert system.journal.flush()
        assert os.path.getsize(system.journal.segment) == system.journal._size
    q.close()
    qm.disconnect()
    system.stop()
    events = list(journal.read_events(system.home, queue="APP.Q", events=["put", "get"]))
    assert len(events) == 2 * 3003


def test_zeros_after_the_last_message_read_as_the_end(start_system):
    """A segment as a crash between a cycle's padded direct write and its cut to size
    leaves it (its messages, no end-of-stream marker, then zeros to the block's end)
    reads back whole, and the next start resumes after its last event."""
    from tpfemu.journal.reader import last_seq

    system = start_system()
    qm = pymqi.connect(system.name)
    q = pymqi.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    for _ in range(100):
        q.put(b"x" * 10)
        q.get()
    assert system.journal.flush()
    segment = system.journal.segment
    written = segment.read_bytes()
    q.close()
    qm.disconnect()
    system.stop()
    segment.write_bytes(written + bytes(3000))
    events = list(journal.read_events(system.home, queue="APP.Q", events=["put", "get"]))
    assert len(events) == 200
    assert last_seq(segment) == max(e.seq for e in journal.read_events(system.home))


def test_cycles_between_flushes_leave_the_padding_and_a_flush_cuts_it(start_system, tmp_path,
                                                                      batch_journal):
    """The writer's cycles between flushes write every event (a direct-written segment
    then ends in its last block's zeros, which read as the end of the stream), without
    cutting the file at each cycle; a flush cuts it to its true size."""
    probe = tmp_path / "probe"
    os.close(_open(probe, True))
    system = start_system(queues=("PAD.Q",))
    jr, q = batch_journal(system, "PAD.Q")
    try:
        assert jr._file.direct
        for i in range(50):
            q.put(b"pad %d" % i, pymqi.MD())
            q.get(None, pymqi.MD())
        deadline = time.monotonic() + 10
        rows = 0
        while rows < 100 and time.monotonic() < deadline:  # (no flush asked)
            time.sleep(0.02)
            rows = sum(1 for _ in journal.read_events(tmp_path / "j", queue="PAD.Q"))
        assert rows == 100
        size = os.path.getsize(jr.segment)
        assert size % 4096 == 0 and size > jr._size
        assert jr.flush()
        assert os.path.getsize(jr.segment) == jr._size
        assert len(list(journal.read_events(tmp_path / "j", queue="PAD.Q"))) == 100
    finally:
        q.close()
        q._qmgr.disconnect()
        jr.stop()
