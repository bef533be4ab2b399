"""The recovery log's C helpers: its wait for durability (``tpf_log_gate_*``,
native/include/tpf/logrec.h): batches are numbered 1, 2, 3... and finish in order; a
committer waits on its batch's number without the GIL, and one call wakes every waiter
of the batches it finishes. And the encoding of its records (:data:`log_encode`).
"""

from __future__ import annotations

from tpfemu._lowlevel.compiled import _fastpath, ffi, lib

__all__ = ["LogGate", "log_encode", "log_encode_setup"]

#: ``log_encode(records, qids, qid_of) -> (data, uows, commits, closing)``: the recovery
#: log's records (tpfemu.store.log_records' Put, Get, Commit, Backout) as the log appends
#: them, in one bytes object, encoded in C (native/python/logencode.c, with logrec.h's
#: layout); ``log_encode_setup(Put, Get, Commit, Backout)`` names the types it reads.
log_encode = _fastpath.log_encode
log_encode_setup = _fastpath.log_encode_setup

#: A wait with no limit is made of waits this long (ns), so that a signal (Ctrl-C) is
#: handled between them: C waits cannot be interrupted.
_SLICE_NS = 200_000_000


class LogGate:
    """Batch numbers finished, and the wait for one of them."""

    __slots__ = ("_gate", "_wait", "_finish")

    def __init__(self) -> None:
        gate = lib.tpf_log_gate_new()
        if gate == ffi.NULL:
            raise MemoryError("LogGate: out of memory")
        self._gate = ffi.gc(gate, lib.tpf_log_gate_free)
        self._wait = lib.tpf_log_gate_wait
        self._finish = lib.tpf_log_gate_finish

    def finish(self, seq: int) -> None:
        """Batches up to ``seq`` are finished: wake their waiters (no-op if already)."""
        self._finish(self._gate, seq)

    def wait(self, seq: int, timeout: float | None = None) -> bool:
        """Return True once batch ``seq`` is finished; False if ``timeout`` seconds
        passed first (``None``: no limit)."""
        wait, gate = self._wait, self._gate
        if timeout is None:
            while not wait(gate, seq, _SLICE_NS):
                pass
            return True
        return bool(wait(gate, seq, max(int(timeout * 1e9), 0)))

    @property
    def finished(self) -> int:
        """The number of the last batch finished (0: none)."""
        return int(lib.tpf_log_gate_finished(self._gate))

