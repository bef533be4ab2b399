"""The journal writer: a capture buffer in C and a background thread that writes.

Events are recorded, on the thread of the MQI call, in an
:class:`~tpfemu._lowlevel.EventLog` (native/python/eventlog.h) subscribed with
:meth:`~tpfemu.qmgr.events.EventBus.subscribe_capture`: the MQI's fast paths record their
put and get events in it in C (a fixed record; at level ``events`` the log holds the
put's data object, without a copy, and the writer hashes it; at level ``payload`` the data
is copied and hashed there; no Python object is made per event), and every other event
reaches it through its ``add``, a raw subscriber in C that keeps the event's fields and
the calling ECB. A writer thread wakes every ``interval``
seconds, when :meth:`Journal.flush` asks, or as soon as the log holds ``batch_events``
records (the log writes a byte to the writer's wake-up pipe: a busy application's events
are written a batch at a time as they come, on the second core, not an interval's worth
at once), and hands everything recorded to
``EventLog.write_ipc``: runs of the fast paths' records are encoded as Arrow record
batches of :data:`~tpfemu.journal.schema.SCHEMA` in C (native/src/journal_ipc.c) and
written with the GIL released, so the application's threads go on meanwhile; runs of
events emitted in Python are built column by column with pyarrow
(:meth:`Journal._write_emitted`). Both go, in order, to the current segment, an Arrow IPC
stream file ``<CPU>-<number:08d>.arrows``. A segment that has grown past
``segment_bytes`` at the end of a cycle is closed and the next one opened.

Every byte of a segment goes through one :class:`~tpfemu._lowlevel.SegmentFile`, which
stages appends and writes them with ``O_DIRECT`` where the file system takes it: in
whole blocks to the disk, not through the page cache (a buffered write and its
write-behind cost the kernel about five times the CPU), the partial last block written
again, padded, at each cycle's end and the file cut to its true size. Where ``O_DIRECT``
is refused, the bytes are written through the page cache and dropped from it behind the
writer (:func:`advise_behind`).

Durability: each write cycle writes the segment's new bytes (to the disk with
``O_DIRECT``, else to the operating system), so a crash of the process loses at most the
events still queued (about ``interval`` seconds' worth); a torn last batch is skipped by
the reader. Segments are not fsynced: a crash of the machine may lose what the disk (or
the operating system) had not stored yet.
"""

from __future__ import annotations

import json
import operator
import os
import select
import threading
import time
from collections.abc import Callable
from itertools import compress, repeat
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ecb import current as current_ecb
from ecb.linkage import watch_running
from tpfemu._lowlevel import NEVER, EventLog, SegmentFile, follow_running_ecbs, payload_hashes
from tpfemu.journal import rows
from tpfemu.journal.rows import RECORD
from tpfemu.journal.schema import LEVELS, SCHEMA, SCHEMA_VERSION, SEGMENT_SCHEMA, to_segment

__all__ = ["Journal", "DEFAULT_SEGMENT_BYTES", "check_level"]

DEFAULT_SEGMENT_BYTES = 64 << 20
#: At level ``payload``, a record batch ends once its message data passes this size.
MAX_BATCH_PAYLOAD = 256 << 20

#: Event fields that have a column of their own (everything else goes to ``detail``).
_COLUMN_FIELDS = frozenset({
    "msg_id", "correl_id", "group_id", "priority", "persistent", "expiry", "expires_us",
    "length", "uow", "data", "failed_ecb", "failed_program",
    "msg_type", "format", "reply_to_q", "reply_to_qmgr",
})
#: The event of a program run that ended with a system error (Journal.record_failure).
FAILED = "program-failed"
_NO_GROUP = bytes(24)
_dict_get = dict.get


def check_level(level: str) -> str:
    """Return ``level`` if it is a journal level, else raise ValueError naming them."""
    if level not in LEVELS:
        raise ValueError(
            f"journal level must be one of {', '.join(LEVELS)}, not {level!r}"
        )
    return level


def advise_behind(fd: int, start: int, end: int, drop_start: int, drop_end: int,
                  wait: bool = False) -> None:
    """Start writing bytes [start, end) of an appended file back to disk, and drop
    [drop_start, drop_end), whose write-back an earlier call started, from the page cache
    (with ``wait``, after waiting until the file is on disk). Advice for a file written
    once and read later (the journal's segments): where the system cannot take it, the
    file is left as it is.

    On Linux, POSIX_FADV_DONTNEED starts the write-back of the range's dirty pages without
    waiting and drops its clean ones, so the range written two cycles ago, on disk by now,
    leaves the cache (a page still being written stays, as it would in the page cache's
    own time).

    :raises ValueError: an offset is negative or a range ends before it starts.
    """
    fd = operator.index(fd)
    if min(start, end, drop_start, drop_end) < 0:
        raise ValueError(f"advise_behind: offsets are not negative: "
                         f"{min(start, end, drop_start, drop_end)}")
    if end < start or drop_end < drop_start:
        raise ValueError(f"advise_behind: a range ends before it starts: [{start}, {end}), "
                         f"[{drop_start}, {drop_end})")
    if not hasattr(os, "posix_fadvise"):  # pragma: no cover - not Linux
        return
    try:
        if end > start:
            os.posix_fadvise(fd, start, end - start, os.POSIX_FADV_DONTNEED)
        if drop_end > drop_start:
            if wait:
                os.fdatasync(fd)
            page = os.sysconf("SC_PAGESIZE")
            low, high = drop_start // page * page, -(-drop_end // page) * page
            os.posix_fadvise(fd, low, high - low, os.POSIX_FADV_DONTNEED)
    except OSError:  # advice: a file system that cannot take it is left as it is
        pass


def _open_direct(path: Path) -> int:
    """A new segment open for writing, with O_DIRECT where the file system takes it."""
    direct = getattr(os, "O_DIRECT", 0)
    if direct:
        try:
            return os.open(path, os.O_WRONLY | direct)
        except OSError:  # (EINVAL: a file system without direct I/O, tmpfs on old kernels)
            pass
    return os.open(path, os.O_WRONLY)


def segment_name(cpu: str, number: int) -> str:
    """The file name of segment ``number`` of processor ``cpu``."""
    return f"{cpu}-{number:08d}.arrows"


class Journal:
    """The event journal of one queue manager, written to ``directory``.

    :param qmgr: the :class:`~tpfemu.qmgr.manager.QueueManager` whose events to record.
    :param directory: where segments go (created if missing); a System uses HOME/journal.
    :param level: ``events`` or ``payload`` (``off`` is the caller's business: no Journal).
    :param segment_bytes: rotate to a new segment once the current one is this large.
    :param batch_events: most events in one Arrow record batch; also how many recorded
        events wake the writer before its interval is up.
    :param interval: most seconds between write cycles (a busy log wakes the writer
        sooner, see ``batch_events``; flush() and stop() at once).
    :param console: where a write failure is reported (one line).
    :param encoder: who encodes the fast paths' records: ``"c"`` (EventLog.write_ipc,
        the default) or ``"pyarrow"`` (:mod:`tpfemu.journal.rows`), the alternative
        bench_journal.py measures it against.
    :param hasher: who computes their payload hashes: ``"c"`` (EventLog, as it
        records; the default) or ``"xxhash"`` (the writer, with the xxhash package of the
        dev extra; the log then keeps every event's data; needs encoder ``"pyarrow"``),
        the alternative bench_journal.py measures it against.
    """

    def __init__(self, qmgr: Any, directory: str | Path, *, level: str = "events",
                 cpu: str | None = None, segment_bytes: int = DEFAULT_SEGMENT_BYTES,
                 batch_events: int = 8192, interval: float = 0.05,
                 console: Callable[[str], None] | None = None, encoder: str = "c",
                 hasher: str = "c") -> None:
        if encoder not in ("c", "pyarrow") or hasher not in ("c", "xxhash") or (
                hasher == "xxhash" and encoder != "pyarrow"):
            raise ValueError(f"no such journal encoder/hasher: {encoder!r}/{hasher!r}")
        self.encoder, self.hasher = encoder, hasher
        if check_level(level) == "off":
            raise ValueError("a journal at level 'off' writes nothing: do not start one")
        if segment_bytes <= 0 or batch_events <= 0 or interval <= 0:
            raise ValueError("segment_bytes, batch_events and interval must be positive")
        self.qmgr = qmgr
        self.directory = Path(directory)
        self.level = level
        self.cpu = (cpu or getattr(qmgr, "cpu", None) or "B").upper()
        self.segment_bytes = segment_bytes
        self.batch_events = batch_events
        self.interval = interval
        self._console = console or getattr(qmgr, "console", None) or (lambda line: None)
        #: The writer's wake-up pipe (start): a byte from the log (a batch's worth of
        #: events recorded), flush() or stop().
        self._wake_r = self._wake_w = -1
        #: Events not written yet, recorded in C (see the module docstring).
        follow_running_ecbs(watch_running)
        self._log = EventLog(current_ecb, payload=level == "payload", hashes=hasher == "c")
        self._cond = threading.Condition()
        self._flush_asked = 0
        self._flush_done = 0
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._file: SegmentFile | None = None  # the segment being written
        self._behind = (0, 0)  # where its last two write-behinds started (_write_behind)
        self._dropped = 0  # what of it has left the page cache
        self._segment: Path | None = None
        self._segment_number = 0
        self._seq = 0
        self.failed: BaseException | None = None
        #: Events written so far, and segments opened, by this journal.
        self.written = 0
        self.segments_opened: list[Path] = []

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> Journal:
        """Open the next segment and start recording the queue manager's events."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self._segment_number, self._seq = self._resume_point()
        self._open_segment()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        # (the log writes a byte to the pipe once it holds a batch's worth: _wait)
        self._log.wake_on(self._wake_w, self.batch_events)
        self._thread = threading.Thread(target=self._run, name=f"{self.cpu}-journal",
                                        daemon=True)
        self._thread.start()
        self.qmgr.events.subscribe_capture(self._log)
        return self

    def flush(self, timeout: float | None = 10.0) -> bool:
        """Write every event emitted before this call and flush the segment to the OS.

        Returns False if the writer did not finish in ``timeout`` seconds (or has failed).
        """
        thread = self._thread
        if thread is None or not thread.is_alive():
            return not len(self._log)
        with self._cond:
            self._flush_asked += 1
            ticket = self._flush_asked
            self._kick()
            done = self._cond.wait_for(lambda: self._flush_done >= ticket, timeout)
        return done and self.failed is None

    def stop(self, timeout: float = 10.0) -> None:
        """Stop recording, write what is queued and close the segment."""
        if self._thread is None:
            return
        self.qmgr.events.unsubscribe_capture(self._log)
        with self._cond:
            self._stopping = True
            self._kick()
        self._thread.join(timeout)
        if not self._thread.is_alive():  # (else the writer may still wait on the pipe)
            self._log.wake_on(-1, 0)
            os.close(self._wake_r)
            os.close(self._wake_w)
            self._wake_r = self._wake_w = -1
        self._thread = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def record_failure(self, program: str | None, ecb: int | None, code: str, error: str,
                       time_us: int | None = None) -> None:
        """Record that an entry of ``program`` (ECB ``ecb``) ended with the system error
        ``code`` (``SE-E0xxx NAME``) and ``error`` (the dump's error text) as a
        ``program-failed`` event, in order with the queue manager's events."""
        if time_us is None:
            time_us = time.time_ns() // 1000
        self._log.add(FAILED, "", time_us, {"failed_ecb": ecb, "failed_program": program,
                                            "code": code, "error": error})

    @property
    def segment(self) -> Path | None:
        """The segment now being written."""
        return self._segment

    # -- segments -------------------------------------------------------------------------

    def _resume_point(self) -> tuple[int, int]:
        """(number of the next segment, next seq): after this processor's last segment."""
        from tpfemu.journal.reader import last_seq, segment_key

        mine = [p for p in self.directory.glob(f"{self.cpu}-*.arrows")
                if segment_key(p)[0] == self.cpu]
        if not mine:
            return 1, 0
        mine.sort(key=segment_key)
        number = segment_key(mine[-1])[1]
        for path in reversed(mine):  # the newest segment may be empty or torn
            seq = last_seq(path)
            if seq is not None:
                return number + 1, seq + 1
        return number + 1, 0

    def _open_segment(self) -> None:
        while True:
            path = self.directory / segment_name(self.cpu, self._segment_number)
            try:  # never write to a segment someone else made: create it exclusively
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            except FileExistsError:
                self._segment_number += 1
                continue
            break
        # The segment is an Arrow IPC stream: the schema message, record batch messages
        # (encoded in C by EventLog.write_ipc, or by pyarrow for events emitted in
        # Python), then the end-of-stream marker; all written with os.write.
        fd = _open_direct(path)
        schema = SEGMENT_SCHEMA.with_metadata({
            "tpfemu.journal.version": str(SCHEMA_VERSION),
            "tpfemu.journal.cpu": self.cpu,
            "tpfemu.journal.qmgr": self.qmgr.name,
            "tpfemu.journal.level": self.level,
            # (the seq of the segment's first row: the readers number its rows from it)
            "tpfemu.journal.first_seq": str(self._seq),
        })
        self._file = SegmentFile(fd)
        self._dropped = 0
        self._behind = (0, 0)
        self._segment = path
        self.segments_opened.append(path)
        self._append(schema.serialize())

    @property
    def _fd(self) -> int | None:
        """The segment's file descriptor (None: none open)."""
        return self._file.fd if self._file is not None else None

    @_fd.setter
    def _fd(self, fd: int) -> None:
        assert self._file is not None, "no segment is open"
        self._file.fd = fd

    @property
    def _size(self) -> int:
        """The segment's size so far (what is appended, written at the cycle's end)."""
        return self._file.size if self._file is not None else 0

    def _append(self, message: Any) -> None:
        """Append an encapsulated IPC message (bytes or an Arrow buffer) to the segment
        (written by the cycle's end)."""
        assert self._file is not None, "no segment is open"
        self._file.append(message)

    def _write_behind(self, *, last: bool = False) -> None:
        """Start writing the segment's new bytes back to disk, and drop from the page
        cache the bytes whose write-back started two cycles ago (by now on disk, so the
        writer seldom waits for it), or with ``last`` all of them. A segment is written
        once and read later: cached, it would only push other pages out, and every fresh
        page costs the writer more to fill than the write itself
        (:func:`advise_behind`). Nothing to do for a segment written with O_DIRECT."""
        assert self._file is not None, "no segment is open"
        if self._file.direct:
            return
        end = self._size
        older, newer = self._behind
        drop_end = end if last else older
        assert self._fd is not None, "no segment is open"
        advise_behind(self._fd, newer, end, self._dropped, drop_end, wait=last)
        self._behind, self._dropped = (newer, end), drop_end

    def _close_segment(self) -> None:
        if self._file is not None:
            fd = self._file.fd
            try:
                self._file.append(_END_OF_STREAM)
                self._file.flush()
                self._write_behind(last=True)
            finally:
                self._file = None
                os.close(fd)

    # -- the writer thread ----------------------------------------------------------------

    def _run(self) -> None:
        # pyarrow imports pandas on its first conversion of a Python list (~0.4 s): do it
        # now, not in the middle of the first batch.
        pa.array([0], pa.int64())
        cond = self._cond
        waited = False  # (the last cycle ended with the wait for the next one)
        while True:
            with cond:
                asked = self._stopping or self._flush_asked > self._flush_done
            if not asked and not waited:
                self._wait(self.interval)
            with cond:
                ticket = self._flush_asked
                stopping = self._stopping
                # a flush or stop being served: its cycle returns as soon as it has written
                wait = 0.0 if stopping or ticket > self._flush_done else self.interval
            waited = False
            try:
                if self.failed is None:
                    waited = self._write_queued(wait) > 0 and wait > 0
                else:
                    self._log.take()  # (dropped: the journal has stopped)
            except Exception as exc:  # a journal must never take the system down
                self.failed = exc
                self.qmgr.events.unsubscribe_capture(self._log)
                self._log.take()
                self._console(f"JRNL0001E {self.cpu} event journal stopped: writing "
                              f"{self._segment} failed: {exc!r}")
            if stopping:
                try:
                    self._close_segment()
                except Exception as exc:
                    self._console(f"JRNL0002E {self.cpu} closing {self._segment} failed: "
                                  f"{exc!r}")
            with cond:
                self._flush_done = max(self._flush_done, ticket)
                cond.notify_all()
            if stopping:
                return

    def _kick(self) -> None:
        """Wake the writer (from flush or stop)."""
        try:
            os.write(self._wake_w, b"\1")
        except BlockingIOError:  # the pipe is full: the writer has wake-ups waiting
            pass

    def _wait(self, timeout: float) -> None:
        """Wait until ``timeout`` seconds have passed or the writer is woken: by the log,
        once it holds ``batch_events`` records (so that a busy application's events are
        written as they come, a batch's worth at a time, not a whole interval's worth
        at once), by flush() or by stop(); the wake-ups are then taken."""
        ready, _, _ = select.select([self._wake_r], [], [], timeout)
        if ready:
            try:
                os.read(self._wake_r, 4096)
            except BlockingIOError:
                pass

    def _write_queued(self, wait: float = 0.0) -> int:
        """Write what was recorded since the last cycle, in order, and rotate the segment
        once it has grown past ``segment_bytes``: runs of the fast paths' records are
        encoded in C with the GIL released; runs of events emitted in Python come to
        :meth:`_write_emitted`. With ``wait``, the C encoder then waits for the next
        wake-up as :meth:`_wait` does (up to ``wait`` seconds), in the same release of the
        GIL. Returns the count written (with a count, the wait is done)."""
        assert self._file is not None, "no segment is open"
        if self.encoder == "c":
            count, _ = self._log.write_ipc(self._file, self._seq, self.cpu, self.qmgr.name,
                                           self.batch_events, self._write_emitted,
                                           self._wake_r, float(wait))
        else:
            count = self._write_taken()
            if count and wait:
                self._wait(wait)
        if self.encoder != "c" or not wait:
            # (write_ipc has written everything, a direct write's padding left in the
            # file: cut here by a flush or a stop, not at every cycle, see tpf_journal_seg_t)
            self._file.flush()
        self._seq += count
        self.written += count
        self._write_behind()
        if self._size >= self.segment_bytes:
            self._close_segment()
            self._segment_number += 1
            self._open_segment()
        return count

    def _write_taken(self) -> int:
        """As EventLog.write_ipc, with pyarrow: everything recorded, taken and written
        in order (the fast paths' runs by :func:`rows.record_batch`); the count."""
        count, records, names, items, data = self._log.take()
        recs = np.frombuffer(records, dtype=RECORD)
        payload = data if self.level == "payload" else None
        seq0, item = self._seq, 0
        for start, end, recorded in rows.runs(recs["kind"]):
            if not recorded:
                self._write_emitted(items[item:item + end - start], seq0 + start)
                item += end - start
                continue
            for a in range(start, end, self.batch_events):
                part = recs[a:min(end, a + self.batch_events)]
                hashes = rows.xxhash_hashes(part, data) if self.hasher == "xxhash" else None
                self._append(to_segment(rows.record_batch(
                    part, names, seq0 + a, self.cpu, self.qmgr.name, payload,
                    hashes)).serialize())
        return count

    def _write_emitted(self, items: list, seq0: int) -> None:
        """Write a run of events emitted in Python (their tuples), rows ``seq0`` on, as
        record batches of at most ``batch_events`` rows (and, at level payload, about
        MAX_BATCH_PAYLOAD bytes of message data: an Arrow binary column holds 2 GiB)."""
        start = 0
        for end in _batch_limits(items, self.batch_events, self.level == "payload"):
            n = end - start
            time_col, *others = self._emitted_columns(items[start:end])
            batch = pa.RecordBatch.from_arrays([
                time_col,
                pa.array(np.arange(seq0 + start, seq0 + end, dtype=np.int64)),
                pa.repeat(pa.scalar(self.cpu, pa.string()), n),
                pa.repeat(pa.scalar(self.qmgr.name, pa.string()), n),
                *others,
            ], schema=SCHEMA)
            self._append(to_segment(batch).serialize())
            start = end

    def _emitted_columns(self, items: list) -> list[pa.Array]:
        """The columns (all but seq, cpu and qmgr) of events emitted in Python: tuples
        (kind, queue, time_us, fields, ecb id, program), built column by column, each
        by one C-level pass where possible (map, zip, Arrow compute)."""
        n = len(items)
        kinds, queues, times, fields, ecbs, programs = zip(*items, strict=True)
        if FAILED in kinds:  # a failed run names its ECB and program itself
            ecbs, programs = _failed_origins(kinds, fields, ecbs, programs)

        def column(key: str) -> list:
            return list(map(_dict_get, fields, repeat(key, n)))

        time_col = pa.array(times, pa.int64())
        datas = [d if d is None or type(d) is bytes else bytes(d) for d in column("data")]
        lengths = column("length")
        length_col = pa.array(lengths, pa.int32())
        if length_col.null_count:  # the length of the data, when the event has data
            fixed = False
            for i in compress(range(n), map(operator.is_, lengths, repeat(None))):
                data = datas[i]
                if data is not None:
                    lengths[i] = len(data)
                    fixed = True
            if fixed:
                length_col = pa.array(lengths, pa.int32())
        hashes = rows.fixed_binary(payload_hashes(datas), 8, n)
        no_data = pa.array([d is None for d in datas])
        return [
            time_col,
            pa.array(queues, pa.string()),
            pa.array(kinds, pa.string()),
            pa.array(column("msg_id"), pa.binary()),
            pa.array(column("correl_id"), pa.binary()),
            _group_ids(pa.array(column("group_id"), pa.binary())),
            pa.array(column("priority"), pa.int32()),
            pa.array(column("persistent"), pa.bool_()),
            _expiries(column("expiry"), column("expires_us"), time_col),
            length_col,
            pc.if_else(no_data, _NULL_BINARY, hashes),
            pa.array(datas, pa.binary()) if self.level == "payload" else pa.nulls(
                n, pa.binary()),
            pa.array(column("uow"), pa.int64()),
            pa.array(ecbs, pa.int64()),
            pa.array(programs, pa.string()),
            _details(fields),
            pa.array(column("msg_type"), pa.int32()),
            *[pa.array(list(map(_blank_trimmed, column(key))), pa.string())
              for key in ("format", "reply_to_q", "reply_to_qmgr")],
        ]


def _failed_origins(kinds: tuple, fields: tuple, ecbs: tuple,
                    programs: tuple) -> tuple[tuple, tuple]:
    """The ecb and program columns, with those of each failed run taken from its fields
    (the ECB that failed is not the one reporting it)."""
    ecb_out, program_out = list(ecbs), list(programs)
    for i, kind in enumerate(kinds):
        if kind == FAILED:
            ecb_out[i] = fields[i].get("failed_ecb")
            program_out[i] = fields[i].get("failed_program")
    return tuple(ecb_out), tuple(program_out)


def _blank_trimmed(value: Any) -> str | None:
    """A blank-padded MQMD text (bytes or str) without its trailing blanks and NULs;
    None for none or a blank field."""
    if value is None:
        return None
    if not isinstance(value, str):
        value = bytes(value).decode("latin-1")
    value = value.rstrip(" \0")
    return value or None


def _batch_limits(items: list, most: int, payload: bool) -> list[int]:
    """Where the record batches of a run of emitted events end: every ``most`` events,
    and at level ``payload`` also once a batch's message data passes MAX_BATCH_PAYLOAD."""
    n = len(items)
    if not payload:
        return [*range(most, n, most), n]
    limits, start, size = [], 0, 0
    for i, item in enumerate(items):
        data = item[3].get("data")
        size += len(data) if data is not None else 0
        if i + 1 - start >= most or size >= MAX_BATCH_PAYLOAD:
            limits.append(i + 1)
            start, size = i + 1, 0
    if start < n:
        limits.append(n)
    return limits


_END_OF_STREAM = b"\xff\xff\xff\xff\x00\x00\x00\x00"
_NO_GROUP_SCALAR = pa.scalar(_NO_GROUP, pa.binary())
_NULL_BINARY = pa.scalar(None, pa.binary())


def _group_ids(groups: pa.Array) -> pa.Array:
    """The ``group_id`` column: MQGI_NONE (24 NULs) as null."""
    if groups.null_count == len(groups):
        return groups
    return pc.if_else(pc.equal(groups, _NO_GROUP_SCALAR), _NULL_BINARY, groups)


def _expiries(expiries: list, deadlines: list, time_col: pa.Array) -> pa.Array:
    """The ``expiry`` column of emitted events: the ``expiry`` field (tenths of a second)
    or, without one, the time left until the ``expires_us`` deadline (:func:`_time_left`)."""
    expiry_col = pa.array(expiries, pa.int32())
    if not expiry_col.null_count:
        return expiry_col
    deadline_col = pa.array(deadlines, pa.int64())
    if deadline_col.null_count == len(deadline_col):
        return expiry_col
    return pc.coalesce(expiry_col.cast(pa.int64()),
                       _time_left(deadline_col, time_col)).cast(pa.int32())


def _time_left(deadline_col: pa.Array, time_col: pa.Array) -> pa.Array:
    """What is left until each expiry deadline at the event's time, in tenths of a second
    rounded up: -1 for NEVER, 0 once passed, null for no deadline (int64)."""
    try:
        never = pc.equal(deadline_col, NEVER)
        left = pc.subtract_checked(pc.if_else(never, time_col, deadline_col), time_col)
        tenths = pc.max_element_wise(pc.divide(pc.add_checked(left, 99_999), 100_000), 0,
                                     skip_nulls=False)
        return pc.if_else(never, -1, tenths)
    except pa.ArrowInvalid:  # out of int64 on the way: Python's integers do it exactly
        pass
    return pa.array([None if d is None else -1 if d == NEVER else max(0, -((t - d) // 100_000))
                     for d, t in zip(deadline_col.to_pylist(), time_col.to_pylist(),
                                     strict=True)], pa.int64())


_no_extras = _COLUMN_FIELDS.issuperset  # _no_extras(fields): no key without a column


def _details(fields: tuple) -> pa.Array:
    """The ``detail`` column: JSON of the fields without a column (None/"" left out)."""
    n = len(fields)
    out: list = [None] * n
    with_extras = list(compress(range(n), map(operator.not_, map(_no_extras, fields))))
    if with_extras:
        get = fields.__getitem__
        extras = map(operator.sub, map(dict.keys, map(get, with_extras)), repeat(_COLUMN_FIELDS))
        for i, keys in zip(with_extras, extras, strict=True):
            f = fields[i]
            d = None
            for k in keys:
                v = f[k]
                if v is not None and v != "":
                    if d is None:
                        d = {}
                    d[k] = v
            if d:
                out[i] = json.dumps(d, default=_json_value, sort_keys=True)
    return pa.array(out, pa.string())


def _json_value(value: Any) -> Any:
    """JSON for the detail column: bytes as hexadecimal text, anything else as str()."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return str(value)
