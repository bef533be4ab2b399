"""The journal writer: a cheap event-bus subscriber and a background thread that writes.

The subscriber is a raw one (:meth:`~tpfemu.qmgr.events.EventBus.subscribe_raw`: no event
object is built) and runs on the thread of the MQI call. It only appends a tuple (the
event's kind, queue, time and fields, the calling ECB's id and program) to a list. A writer
thread wakes every ``interval`` seconds (or when :meth:`Journal.flush` asks), takes
everything queued, builds one Arrow record batch per ``batch_events`` events with
:data:`~tpfemu.journal.schema.SCHEMA` column by column, with C-level passes over the
batch wherever it can (payload hashes are computed here, off the application's path) and
appends it to the current segment, an Arrow IPC stream file ``<CPU>-<number:08d>.arrows``.
A segment that has grown past ``segment_bytes`` is closed and the next one opened.

Durability: each write cycle ends with the segment flushed to the operating system, so a
crash of the process loses at most the events still queued (about ``interval`` seconds'
worth); a torn last batch is skipped by the reader. Segments are not fsynced: a crash of
the machine may lose what the operating system had not written yet.
"""

from __future__ import annotations

import json
import operator
import os
import threading
from collections.abc import Callable
from itertools import compress, repeat
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ecb import current as current_ecb
from tpfemu._lowlevel import NEVER
from tpfemu.journal.schema import LEVELS, SCHEMA, SCHEMA_VERSION, payload_hash

__all__ = ["Journal", "DEFAULT_SEGMENT_BYTES", "check_level"]

DEFAULT_SEGMENT_BYTES = 64 << 20
#: At level ``payload``, a record batch ends once its message data passes this size.
MAX_BATCH_PAYLOAD = 256 << 20

#: Event fields that have a column of their own (everything else goes to ``detail``).
_COLUMN_FIELDS = frozenset({
    "msg_id", "correl_id", "group_id", "priority", "persistent", "expiry", "expires_us",
    "length", "uow", "data",
})
_NO_GROUP = bytes(24)
_dict_get = dict.get


def check_level(level: str) -> str:
    """Return ``level`` if it is a journal level, else raise ValueError naming them."""
    if level not in LEVELS:
        raise ValueError(
            f"journal level must be one of {', '.join(LEVELS)}, not {level!r}"
        )
    return level


def segment_name(cpu: str, number: int) -> str:
    """The file name of segment ``number`` of processor ``cpu``."""
    return f"{cpu}-{number:08d}.arrows"


class Journal:
    """The event journal of one queue manager, written to ``directory``.

    :param qmgr: the :class:`~tpfemu.qmgr.manager.QueueManager` whose events to record.
    :param directory: where segments go (created if missing); a System uses HOME/journal.
    :param level: ``events`` or ``payload`` (``off`` is the caller's business: no Journal).
    :param segment_bytes: rotate to a new segment once the current one is this large.
    :param batch_events: most events in one Arrow record batch.
    :param interval: seconds between write cycles.
    :param console: where a write failure is reported (one line).
    """

    def __init__(self, qmgr: Any, directory: str | Path, *, level: str = "events",
                 cpu: str | None = None, segment_bytes: int = DEFAULT_SEGMENT_BYTES,
                 batch_events: int = 8192, interval: float = 0.05,
                 console: Callable[[str], None] | None = None) -> None:
        if check_level(level) == "off":
            raise ValueError("a journal at level 'off' writes nothing: do not start one")
        if segment_bytes <= 0 or batch_events <= 0 or interval <= 0:
            raise ValueError("segment_bytes, batch_events and interval must be positive")
        self.qmgr = qmgr
        self.directory = Path(directory)
        self.level = level
        self.cpu = (cpu or getattr(qmgr, "cpu", "B")).upper()
        self.segment_bytes = segment_bytes
        self.batch_events = batch_events
        self.interval = interval
        self._console = console or getattr(qmgr, "console", None) or (lambda line: None)
        #: Events not written yet: (kind, queue, time_us, fields, ecb id, program). Only
        #: appended to by the subscriber and only cut at the front by the writer (both
        #: single list operations, atomic under the GIL).
        self._pending: list[tuple] = []
        self._on_event = self._subscriber()
        self._cond = threading.Condition()
        self._flush_asked = 0
        self._flush_done = 0
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._file: Any = None
        self._stream: Any = None
        self._segment: Path | None = None
        self._segment_number = 0
        self._seq = 0
        self._recent: dict[bytes, tuple] = {}  # msg_id -> (data, hash), see _hashes
        self._older: dict[bytes, tuple] = {}
        self.failed: BaseException | None = None
        #: Events written so far, and segments opened, by this journal.
        self.written = 0
        self.segments_opened: list[Path] = []

    # -- the application's side ---------------------------------------------------------

    def _subscriber(self) -> Callable[[str, str, int, dict], None]:
        """The raw event-bus subscriber: queue the event with the calling ECB (if any)."""
        append = self._pending.append
        current = current_ecb

        def on_event(kind: str, queue: str, time_us: int, fields: dict) -> None:
            ecb = current()
            if ecb is None:
                append((kind, queue, time_us, fields, None, None))
            else:
                append((kind, queue, time_us, fields, ecb.ecb_id, ecb.program))

        return on_event

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> Journal:
        """Open the next segment and start recording the queue manager's events."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self._segment_number, self._seq = self._resume_point()
        self._open_segment()
        self._thread = threading.Thread(target=self._run, name=f"{self.cpu}-journal",
                                        daemon=True)
        self._thread.start()
        self.qmgr.events.subscribe_raw(self._on_event)
        return self

    def flush(self, timeout: float | None = 10.0) -> bool:
        """Write every event emitted before this call and flush the segment to the OS.

        Returns False if the writer did not finish in ``timeout`` seconds (or has failed).
        """
        thread = self._thread
        if thread is None or not thread.is_alive():
            return not self._pending
        with self._cond:
            self._flush_asked += 1
            ticket = self._flush_asked
            self._cond.notify_all()
            done = self._cond.wait_for(lambda: self._flush_done >= ticket, timeout)
        return done and self.failed is None

    def stop(self, timeout: float = 10.0) -> None:
        """Stop recording, write what is queued and close the segment."""
        if self._thread is None:
            return
        self.qmgr.events.unsubscribe(self._on_event)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join(timeout)
        self._thread = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

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
        # An Arrow OSFile writes from C++ without the GIL (a Python file would take it).
        f = pa.OSFile(str(path), "wb")
        schema = SCHEMA.with_metadata({
            "tpfemu.journal.version": str(SCHEMA_VERSION),
            "tpfemu.journal.cpu": self.cpu,
            "tpfemu.journal.qmgr": self.qmgr.name,
            "tpfemu.journal.level": self.level,
        })
        self._file = f
        self._stream = pa.ipc.new_stream(f, schema)
        f.flush()
        self._segment = path
        self.segments_opened.append(path)

    def _close_segment(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None
        if self._file is not None:
            self._file.close()
            self._file = None

    # -- the writer thread ----------------------------------------------------------------

    def _run(self) -> None:
        # pyarrow imports pandas on its first conversion of a Python list (~0.4 s): do it
        # now, not in the middle of the first batch.
        pa.array([0], pa.int64())
        cond = self._cond
        while True:
            with cond:
                cond.wait_for(lambda: self._stopping or self._flush_asked > self._flush_done,
                              self.interval)
                ticket = self._flush_asked
                stopping = self._stopping
            try:
                if self.failed is None:
                    self._write_queued()
                else:
                    self._pending.clear()
            except Exception as exc:  # a journal must never take the system down
                self.failed = exc
                self._pending.clear()
                self.qmgr.events.unsubscribe(self._on_event)
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

    def _write_queued(self) -> None:
        pending = self._pending
        if not pending:
            return
        items = pending[:]  # the subscriber may append meanwhile: cut only what was taken
        del pending[: len(items)]
        start, total = 0, len(items)
        while start < total:
            end = min(total, start + self.batch_events)
            if self.level == "payload":
                end = start + _payload_count(items, start, end)
            chunk = items[start:end]
            self._stream.write_batch(self._batch(chunk))
            self.written += len(chunk)
            start = end
            if self._file.tell() >= self.segment_bytes:
                self._close_segment()
                self._segment_number += 1
                self._open_segment()
        self._file.flush()

    def _batch(self, items: list) -> pa.RecordBatch:
        """One record batch of the journal schema from queued events (see _subscriber).

        Built column by column, each column by one C-level pass where possible (map,
        zip, Arrow compute), to keep the time this thread holds the GIL small: the
        application's threads wait for it.
        """
        n = len(items)
        seq0 = self._seq
        self._seq += n
        kinds, queues, times, fields, ecbs, programs = zip(*items, strict=True)

        def column(key: str) -> list:
            return list(map(_dict_get, fields, repeat(key, n)))

        time_col = pa.array(times, pa.int64())
        datas = column("data")
        msg_ids = column("msg_id")
        lengths = column("length")
        length_col = pa.array(lengths, pa.int32())
        if length_col.null_count:  # the length of the data, when the event has data
            fixed = False
            for i in compress(range(n), map(operator.is_, lengths, repeat(None))):
                if datas[i] is not None:
                    lengths[i] = len(datas[i])
                    fixed = True
            if fixed:
                length_col = pa.array(lengths, pa.int32())
        if self.level == "payload":
            payloads = pa.array(datas, pa.binary())
        else:
            payloads = pa.nulls(n, pa.binary())
        columns = [
            time_col,
            pa.array(np.arange(seq0, seq0 + n, dtype=np.int64)),
            pa.repeat(pa.scalar(self.cpu, pa.string()), n),
            pa.repeat(pa.scalar(self.qmgr.name, pa.string()), n),
            pa.array(queues, pa.string()),
            pa.array(kinds, pa.string()),
            pa.array(msg_ids, pa.binary()),
            pa.array(column("correl_id"), pa.binary()),
            _group_ids(pa.array(column("group_id"), pa.binary())),
            pa.array(column("priority"), pa.int32()),
            pa.array(column("persistent"), pa.bool_()),
            _expiries(column("expiry"), column("expires_us"), times, time_col),
            length_col,
            pa.array(self._hashes(msg_ids, datas), pa.binary()),
            payloads,
            pa.array(column("uow"), pa.int64()),
            pa.array(ecbs, pa.int64()),
            pa.array(programs, pa.string()),
            _details(fields),
        ]
        return pa.RecordBatch.from_arrays(columns, schema=SCHEMA)

    def _hashes(self, msg_ids: list, datas: list) -> list:
        """Payload hashes. A message got (or expired) soon after its put has the same
        data: its hash is reused when the data compare equal (cheaper than hashing)."""
        recent, older = self._recent, self._older
        hashes: list = []
        append = hashes.append
        for msg_id, data in zip(msg_ids, datas, strict=True):
            if data is None:
                append(None)
                continue
            known = recent.get(msg_id) or older.get(msg_id)
            if known is not None and known[0] == data:
                append(known[1])
            else:
                digest = payload_hash(data)
                append(digest)
                if msg_id is not None:
                    recent[msg_id] = (data, digest)
        # Two generations: what the last two write cycles saw (bounded by their data).
        self._older, self._recent = recent, {}
        return hashes


def _payload_count(items: list, start: int, end: int) -> int:
    """How many of ``items[start:end]`` go in one payload batch: a batch ends once its
    message data passes MAX_BATCH_PAYLOAD (an Arrow binary column holds at most 2 GiB)."""
    limit = MAX_BATCH_PAYLOAD
    size = 0
    for i in range(start, end):
        data = items[i][3].get("data")
        if data is not None:
            size += len(data)
            if size >= limit:
                return i + 1 - start
    return end - start


_NO_GROUP_SCALAR = pa.scalar(_NO_GROUP, pa.binary())
_NULL_BINARY = pa.scalar(None, pa.binary())


def _group_ids(groups: pa.Array) -> pa.Array:
    """The ``group_id`` column: MQGI_NONE (24 NULs) as null."""
    if groups.null_count == len(groups):
        return groups
    return pc.if_else(pc.equal(groups, _NO_GROUP_SCALAR), _NULL_BINARY, groups)


def _expiries(expiries: list, deadlines: list, times: tuple, time_col: pa.Array) -> pa.Array:
    """The ``expiry`` column: the ``expiry`` field (tenths of a second) or, without one,
    what is left until the ``expires_us`` deadline at the event's time, rounded up
    (-1 for NEVER, 0 once passed)."""
    expiry_col = pa.array(expiries, pa.int32())
    if not expiry_col.null_count:
        return expiry_col
    deadline_col = pa.array(deadlines, pa.int64())
    if deadline_col.null_count == len(deadline_col):
        return expiry_col
    try:
        never = pc.equal(deadline_col, NEVER)
        left = pc.subtract_checked(pc.if_else(never, time_col, deadline_col), time_col)
        tenths = pc.max_element_wise(pc.divide(pc.add_checked(left, 99_999), 100_000), 0,
                                     skip_nulls=False)
        computed = pc.if_else(never, -1, tenths)
        return pc.coalesce(expiry_col.cast(pa.int64()), computed).cast(pa.int32())
    except pa.ArrowInvalid:  # out of int64 on the way: Python's integers do it exactly
        pass
    for i, deadline in enumerate(deadlines):
        if expiries[i] is None and deadline is not None:
            expiries[i] = (-1 if deadline == NEVER
                           else max(0, -((times[i] - deadline) // 100_000)))
    return pa.array(expiries, pa.int32())


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
