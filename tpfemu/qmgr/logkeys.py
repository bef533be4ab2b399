"""The recovery log's key of each persistent message on a memory queue.

A memory queue names its messages by the core's put sequence; the recovery log names
them by message key (the LSN of their Put). :class:`LogKeys` maps the first to the
second for the queue's logged messages, so that a get can log which message it took.

Restart puts messages back by the million, in runs whose sequences are consecutive
(one run per checkpoint chunk or log tail): a run is kept as its first sequence and an
array of keys, 8 bytes a message, instead of a dict entry each (about 130 ns a message
to build, a fifth of a restart's time). Messages logged one at a time go to a dict.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator

_GONE = 0  # a key no message has (LSNs start at 1)


class LogKeys:
    """put sequence -> message key, with the dict methods the queue manager uses."""

    __slots__ = ("_one", "_firsts", "_runs", "_live")

    def __init__(self) -> None:
        self._one: dict[int, int] = {}
        self._firsts: list[int] = []  # each run's first sequence, ascending
        self._runs: list[array] = []  # each run's keys (_GONE once popped)
        self._live: list[int] = []  # each run's keys not popped

    def add_run(self, first: int, keys) -> None:
        """Map sequences ``first``, ``first + 1``, ... to ``keys`` (a buffer of 8-byte
        unsigned keys, strided or not, such as ``chunk_keys``), after every earlier run.

        :raises ValueError: the run starts inside or before an earlier one.
        """
        run = array("Q")
        run.frombytes(memoryview(keys).tobytes())
        if not run:
            return
        if self._firsts and first < self._firsts[-1] + len(self._runs[-1]):
            raise ValueError(f"log keys: a run at sequence {first} overlaps an earlier run")
        self._firsts.append(first)
        self._runs.append(run)
        self._live.append(len(run))

    def _find(self, seq: int) -> tuple[int, int]:
        """(run index, position) of ``seq`` in a run, or (-1, 0)."""
        i = bisect_right(self._firsts, seq) - 1
        if i >= 0:
            at = seq - self._firsts[i]
            if at < len(self._runs[i]) and self._runs[i][at] != _GONE:
                return i, at
        return -1, 0

    def __setitem__(self, seq: int, key: int) -> None:
        if self._runs and seq < self._firsts[-1] + len(self._runs[-1]):  # (new ones never)
            self.pop(seq, None)
        self._one[seq] = key

    def get(self, seq: int, default: int | None = None) -> int | None:
        key = self._one.get(seq)
        if key is not None:
            return key
        if self._runs:  # (no search when nothing was restored in runs)
            i, at = self._find(seq)
            if i >= 0:
                return self._runs[i][at]
        return default

    def __getitem__(self, seq: int) -> int:
        key = self.get(seq)
        if key is None:
            raise KeyError(seq)
        return key

    _MISSING = object()

    def pop(self, seq: int, default=_MISSING):
        key = self._one.pop(seq, None)
        if key is not None:
            return key
        i, at = self._find(seq) if self._runs else (-1, 0)
        if i < 0:
            if default is LogKeys._MISSING:
                raise KeyError(seq)
            return default
        run = self._runs[i]
        key, run[at] = run[at], _GONE
        self._live[i] -= 1
        if not self._live[i]:  # the whole run is gone
            del self._firsts[i], self._runs[i], self._live[i]
        return key

    def __len__(self) -> int:
        return len(self._one) + sum(self._live)

    def __bool__(self) -> bool:
        return bool(self._one) or bool(self._runs)

    def __contains__(self, seq: int) -> bool:
        return seq in self._one or self._find(seq)[0] >= 0

    def __iter__(self) -> Iterator[int]:
        """The sequences mapped (a snapshot: popping while iterating is safe)."""
        seqs = list(self._one)
        for first, run in zip(self._firsts, self._runs, strict=True):
            seqs += [first + at for at, key in enumerate(run) if key != _GONE]
        return iter(seqs)

    def values(self) -> list[int]:
        """The keys mapped."""
        return [*self._one.values(), *(k for run in self._runs for k in run if k != _GONE)]
