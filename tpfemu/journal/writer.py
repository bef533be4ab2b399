"""The journal writer: a cheap event-bus subscriber and a background thread that writes.

The subscriber runs on the thread of the MQI call. It only appends a tuple (the event, the
calling ECB's id and program) to a deque. A writer thread wakes every ``interval`` seconds
(or when :meth:`Journal.flush` asks), takes everything queued, builds one Arrow record
batch per ``batch_events`` events with :data:`~tpfemu.journal.schema.SCHEMA` (payload
hashes are computed here, off the application's path) and appends it to the current
segment, an Arrow IPC stream file ``<CPU>-<number:08d>.arrows``. A segment that has grown
past ``segment_bytes`` is closed and the next one opened.

Durability: each write cycle ends with the segment flushed to the operating system, so a
crash of the process loses at most the events still queued (about ``interval`` seconds'
worth); a torn last batch is skipped by the reader. Segments are not fsynced: a crash of
the machine may lose what the operating system had not written yet.
"""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

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
        self._queue: deque = deque()
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
        self._detail_keys: dict[tuple, tuple] = {}
        self._recent: dict[bytes, tuple] = {}  # msg_id -> (data, hash), see _hashes
        self._older: dict[bytes, tuple] = {}
        self.failed: BaseException | None = None
        #: Events written so far, and segments opened, by this journal.
        self.written = 0
        self.segments_opened: list[Path] = []

    # -- the application's side ---------------------------------------------------------

    def _on_event(self, event: Any) -> None:
        """Event-bus subscriber: queue the event with the calling ECB (if any)."""
        ecb = current_ecb()
        if ecb is None:
            self._queue.append((event, None, None))
        else:
            self._queue.append((event, ecb.ecb_id, ecb.program))

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> Journal:
        """Open the next segment and start recording the queue manager's events."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self._segment_number, self._seq = self._resume_point()
        self._open_segment()
        self._thread = threading.Thread(target=self._run, name=f"{self.cpu}-journal",
                                        daemon=True)
        self._thread.start()
        self.qmgr.events.subscribe(self._on_event)
        return self

    def flush(self, timeout: float | None = 10.0) -> bool:
        """Write every event emitted before this call and flush the segment to the OS.

        Returns False if the writer did not finish in ``timeout`` seconds (or has failed).
        """
        thread = self._thread
        if thread is None or not thread.is_alive():
            return not self._queue
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
                    self._queue.clear()
            except Exception as exc:  # a journal must never take the system down
                self.failed = exc
                self._queue.clear()
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
        queue = self._queue
        wrote = False
        pop = queue.popleft
        while queue:
            n = min(len(queue), self.batch_events)
            if self.level == "payload":
                items = self._take_payload_batch(n)
                n = len(items)
            else:
                items = [pop() for _ in range(n)]
            batch = self._batch(items)
            self._stream.write_batch(batch)
            self.written += n
            wrote = True
            if self._file.tell() >= self.segment_bytes:
                self._close_segment()
                self._segment_number += 1
                self._open_segment()
        if wrote:
            self._file.flush()

    def _take_payload_batch(self, most: int) -> list:
        """Up to ``most`` queued events, fewer once their message data passes
        MAX_BATCH_PAYLOAD (an Arrow binary column holds at most 2 GiB)."""
        pop = self._queue.popleft
        items = []
        size = 0
        while len(items) < most and size < MAX_BATCH_PAYLOAD:
            item = pop()
            items.append(item)
            data = item[0].fields.get("data")
            if data is not None:
                size += len(data)
        return items

    def _batch(self, items: list) -> pa.RecordBatch:
        """One record batch of the journal schema from queued (event, ecb, program).

        Built column by column (one comprehension each) to keep the time this thread
        holds the GIL small: the application's threads wait for it.
        """
        n = len(items)
        seq0 = self._seq
        self._seq += n
        events, ecbs, programs = zip(*items, strict=True)
        fields = [e.fields for e in events]
        times = [e.time_us for e in events]
        datas = [f.get("data") for f in fields]
        expiries = [f.get("expiry") for f in fields]
        for i, f in enumerate(fields):
            if expiries[i] is None and "expires_us" in f:
                deadline = f["expires_us"]
                expiries[i] = (-1 if deadline == NEVER
                               else max(0, -((times[i] - deadline) // 100_000)))
        msg_ids = [f.get("msg_id") for f in fields]
        hashes = self._hashes(msg_ids, datas)
        lengths = [f.get("length") for f in fields]
        for i, data in enumerate(datas):
            if data is not None and lengths[i] is None:
                lengths[i] = len(data)
        if self.level == "payload":
            payloads = pa.array(datas, pa.binary())
        else:
            payloads = pa.nulls(n, pa.binary())
        columns = [
            pa.array(times, pa.int64()),
            pa.array(range(seq0, seq0 + n), pa.int64()),
            pa.array([self.cpu] * n, pa.string()),
            pa.array([self.qmgr.name] * n, pa.string()),
            pa.array([e.queue for e in events], pa.string()),
            pa.array([e.kind for e in events], pa.string()),
            pa.array(msg_ids, pa.binary()),
            pa.array([f.get("correl_id") for f in fields], pa.binary()),
            pa.array([None if g == _NO_GROUP else g for g in
                      [f.get("group_id") for f in fields]], pa.binary()),
            pa.array([f.get("priority") for f in fields], pa.int32()),
            pa.array([f.get("persistent") for f in fields], pa.bool_()),
            pa.array(expiries, pa.int32()),
            pa.array(lengths, pa.int32()),
            pa.array(hashes, pa.binary()),
            payloads,
            pa.array([f.get("uow") for f in fields], pa.int64()),
            pa.array(ecbs, pa.int64()),
            pa.array(programs, pa.string()),
            pa.array(self._details(fields), pa.string()),
        ]
        return pa.RecordBatch.from_arrays(columns, schema=SCHEMA)

    def _hashes(self, msg_ids: list, datas: list) -> list:
        """Payload hashes. A message got (or expired) soon after its put has the same
        data: its hash is reused when the data compare equal (cheaper than hashing)."""
        recent, older = self._recent, self._older
        hashes = []
        for msg_id, data in zip(msg_ids, datas, strict=True):
            if data is None:
                hashes.append(None)
                continue
            known = recent.get(msg_id) or older.get(msg_id)
            if known is not None and known[0] == data:
                hashes.append(known[1])
                continue
            digest = payload_hash(data)
            hashes.append(digest)
            if msg_id is not None:
                recent[msg_id] = (data, digest)
        # Two generations: what the last two write cycles saw (bounded by their data).
        self._older, self._recent = recent, {}
        return hashes

    def _details(self, fields: list) -> list:
        """The ``detail`` column: JSON of the fields without a column (None/"" left out)."""
        cache = self._detail_keys
        out = []
        for f in fields:
            key = tuple(f)
            extra = cache.get(key)
            if extra is None:
                extra = cache[key] = tuple(k for k in key if k not in _COLUMN_FIELDS)
            if extra:
                d = {k: f[k] for k in extra if f[k] is not None and f[k] != ""}
                out.append(json.dumps(d, default=_json_value, sort_keys=True) if d else None)
            else:
                out.append(None)
        return out


def _json_value(value: Any) -> Any:
    """JSON for the detail column: bytes as hexadecimal text, anything else as str()."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return str(value)
