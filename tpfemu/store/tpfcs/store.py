"""The TPFCS-like store of one home: :class:`Tpfcs` (see the package's docstring for the
model: processes, commit scopes, reads and cursors, growth and failure)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import TypeVar

import lmdb

from tpfemu.errors import MQCC_FAILED, StorageFull, TpfcsError
from tpfemu.mq.cmqc import MQRC_STORAGE_MEDIUM_FULL
from tpfemu.store.tpfcs.api import Calls
from tpfemu.store.tpfcs.cursor import Cursor
from tpfemu.store.tpfcs.env import (
    ATTEMPTS,
    GROW_WAIT,
    Env,
    alive,
    close_env,
    db_error,
    open_env,
    process_stat,
)
from tpfemu.store.tpfcs.layout import (
    DELETED,
    ERROR_CODES,
    TO2_ERROR_DB,
    TO2_ERROR_ENV,
    TO2_ERROR_PARAMETER,
    TO2_ERROR_RETRY,
    CollectionInfo,
    Element,
    Kind,
    Lifetime,
    Pid,
    fail,
    pack_session,
    unpack_session,
)
from tpfemu.store.tpfcs.ops import Ops
from tpfemu.store.tpfcs.txn import Transaction

__all__ = [
    "Tpfcs", "Transaction", "Cursor", "Pid", "Kind", "Lifetime", "Element", "CollectionInfo",
    "ERROR_CODES", "DEFAULT_MAP_SIZE", "DEFAULT_MAX_SIZE", "DEFAULT_DELETION_DELAY",
]  # fmt: skip

T = TypeVar("T")

DEFAULT_MAP_SIZE = 64 * 1024**2  # the first map; it doubles as needed
DEFAULT_MAX_SIZE = 64 * 1024**3  # the ceiling; past it, StorageFull
DEFAULT_DELETION_DELAY = 48 * 3600.0  # z/TPF keeps deleted long-term collections 48 hours


class Tpfcs(Calls):
    """The collection store of one home, shared by every process that opens it.

    Open it with :meth:`open`; close it (or use ``with``) to drop its temporary
    collections. All calls are thread-safe; each runs in its own transaction unless the
    calling thread has a :meth:`transaction` open, which it then joins.
    """

    def __init__(self, entry: Env, path: Path, max_size: int,
                 deletion_delay: float) -> None:
        """Use :meth:`open`."""
        self._entry = entry
        self._env = entry.env
        self._dbs = entry.dbs
        self._gate = entry.gate
        self._max_size = max_size
        self._deletion_delay = deletion_delay
        self._session = os.urandom(8)
        self._closed = False
        self.path = path
        #: stale reader slots (of crashed processes) cleared by :meth:`open`.
        self.stale_readers_cleared = 0

    @classmethod
    def open(cls, home: str | os.PathLike[str], *, map_size: int = DEFAULT_MAP_SIZE,
             max_size: int = DEFAULT_MAX_SIZE, durable: bool = True, max_readers: int = 126,
             deletion_delay: float = DEFAULT_DELETION_DELAY) -> Tpfcs:
        """Open (creating if needed) the store in ``<home>/tpfcs/`` (TO2_createEnv).

        Clears stale reader slots, removes the temporary collections of processes that
        died, and removes long-term collections deleted more than ``deletion_delay``
        seconds ago.

        :param map_size: the first LMDB map size (bytes); it doubles when full.
        :param max_size: the ceiling the map may grow to; past it calls raise StorageFull.
        :param durable: sync every commit to disk (LMDB ``sync``). With False a commit
            survives a crash of the process but not of the machine.
        :param max_readers: LMDB reader slots (concurrent read transactions, all processes).
        :param deletion_delay: how long deleted long-term collections stay reclaimable.
        The environment flags (``durable``, ``max_readers``) of the first open in a process
        apply to every store that process opens on the same home.
        """
        for what, value in (("map_size", map_size), ("max_size", max_size),
                            ("max_readers", max_readers)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise fail(TO2_ERROR_PARAMETER, f"{what} must be a positive int, not {value!r}",
                           call="TO2_createEnv")
        path = Path(home) / "tpfcs"
        entry = open_env(path, map_size, max_size, durable, max_readers)
        store = cls(entry, path, max_size, deletion_delay)
        try:
            # the environment's own check ran if this open created it; else check now
            store.stale_readers_cleared = entry.stale_readers + store.reader_check()
            entry.stale_readers = 0
            store._start_session()
        except BaseException:
            store._closed = True
            close_env(path, entry)
            raise
        return store

    def __enter__(self) -> Tpfcs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<Tpfcs {str(self.path)!r} {state} session {self._session.hex()}>"

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return self._closed

    @property
    def session(self) -> str:
        """This store's session id (owner of its temporary collections), in hex."""
        return self._session.hex()

    @property
    def map_size(self) -> int:
        """The current LMDB map size in bytes."""
        self._check_open("map_size")
        return int(self._env.info()["map_size"])

    @property
    def max_size(self) -> int:
        """The ceiling the map may grow to."""
        return self._max_size

    def close(self) -> None:
        """Delete this store's temporary collections and close it (idempotent). Cursors and
        transactions of this store must be finished first."""
        if self._closed:
            return
        if self._entry.stack():
            raise fail(TO2_ERROR_ENV, "end this thread's transaction before closing the store",
                       call="TO2_deleteEnv")
        try:
            self._run("TO2_deleteEnv", self._end_session, write=True)
        except (TpfcsError, StorageFull):
            pass  # the next open by any process after ours ends cleans up
        finally:
            self._closed = True
            close_env(self.path, self._entry)

    def usage(self) -> int:
        """Bytes of the map in use: LMDB's high-water mark as of the last commit, or - once
        that passes half the ceiling (:attr:`max_size`) - the pages the databases hold as
        the calling thread's transaction sees them (pages freed and not yet reused are not
        counted). A cheap estimate, for callers that keep a reserve below the ceiling
        (shared queues refuse puts before commits could run out of room)."""
        def measure(ops: Ops) -> int:
            psize = int(self._env.stat()["psize"])
            high = (int(self._env.info()["last_pgno"]) + 1) * psize
            if high < self._max_size // 2:
                return high
            pages = 3  # two meta pages and the main database's root
            for f in fields(ops.dbs):
                st = ops.txn.stat(getattr(ops.dbs, f.name))
                pages += st["branch_pages"] + st["leaf_pages"] + st["overflow_pages"]
            return pages * psize
        return self._run("TO2_usage", measure, write=False)

    def reader_check(self) -> int:
        """Clear reader slots left by dead processes; return how many were cleared."""
        self._check_open("reader_check")
        try:
            return int(self._env.reader_check())
        except lmdb.Error as exc:
            raise db_error(exc, "reader_check") from exc

    def purge_deleted(self, older_than: float | None = None) -> int:
        """Remove long-term collections deleted at least ``older_than`` seconds ago (by
        default the deletion delay); return how many."""
        age = self._deletion_delay if older_than is None else older_than
        cutoff = time.time() - age

        def purge(ops: Ops) -> int:
            doomed = [(p, h) for p, h in ops.headers()
                      if h.state == DELETED and h.deleted_at <= cutoff]
            for p, h in doomed:
                ops.purge(p, h)
            return len(doomed)
        return self._run("TO2_purge", purge, write=True)

    def transaction(self) -> Transaction:
        """A commit scope: ``with store.transaction() as t:`` (see :class:`Transaction`)."""
        self._check_open("tx_begin")
        return Transaction(self)

    def transact(self, fn: Callable[[Transaction], T]) -> T:
        """Run ``fn(t)`` in a transaction and commit; if the store had to grow (or clear
        stale readers) part-way, run it again from the start. ``fn`` must not have effects
        outside the store, since it may run more than once. Inside an open transaction it
        nests once: a retry is then the outermost transaction's to make."""
        last: TpfcsError | None = None
        for _ in range(1 if self._entry.stack() else ATTEMPTS):
            try:
                with self.transaction() as t:
                    return fn(t)
            except TpfcsError as exc:
                if exc.code != TO2_ERROR_RETRY:
                    raise
                last = exc
        assert last is not None
        raise last

    # --- machinery -----------------------------------------------------------------------

    def _store(self) -> Tpfcs:
        return self

    def _check_open(self, call: str) -> None:
        if self._closed:
            raise fail(TO2_ERROR_ENV, "the store is closed", call=call)

    def _run(self, call: str, fn: Callable[[Ops], T], *, write: bool) -> T:
        """Run ``fn`` in the thread's open transaction, or else in a transaction of its own
        - growing the map, adopting another process's growth or clearing stale readers and
        running it again as LMDB requires."""
        stack = self._entry.stack()
        if stack:
            return stack[-1]._run(call, fn, write=write)
        self._check_open(call)
        readers_cleared = False
        for _ in range(ATTEMPTS):
            ops: Ops | None = None
            with self._gate.shared():
                try:
                    with self._env.begin(write=write) as txn:
                        ops = Ops(txn, self._dbs, call)
                        return fn(ops)
                except lmdb.MapFullError:
                    action = "grow"
                except lmdb.MapResizedError:
                    action = "adopt"
                except lmdb.ReadersFullError as exc:
                    if readers_cleared:
                        raise fail(TO2_ERROR_DB, "every LMDB reader slot is in use "
                                   "(raise max_readers)", call=call) from exc
                    action, readers_cleared = "readers", True
                except lmdb.DiskError as exc:
                    raise self._storage_full(call, ops.ds if ops else None) from exc
                except lmdb.Error as exc:
                    raise db_error(exc, call) from exc
            if action == "grow":
                self._grow(call, ops.ds if ops else None)
            elif action == "adopt":
                self._adopt(call)
            else:
                self.reader_check()
        raise fail(TO2_ERROR_DB, f"gave up after {ATTEMPTS} attempts", call=call)

    def _storage_full(self, call: str, ds: str | None) -> StorageFull:
        return StorageFull(MQCC_FAILED, MQRC_STORAGE_MEDIUM_FULL, call=call,
                           obj=ds or "TPFCS", store=str(self.path), limit=self._max_size)

    def _grow(self, call: str, ds: str | None, *, strict: bool = True) -> None:
        """Make room after MDB_MAP_FULL: clear stale readers (their pages become free) or
        else double the map, up to the ceiling; past it raise StorageFull (if ``strict``;
        else leave it to the rerun to find out)."""
        if self._gate.held():
            raise fail(TO2_ERROR_RETRY, "the store must grow, but this thread holds a "
                       "snapshot cursor or transaction; close it and run the call again",
                       call=call)
        with self._gate.exclusive(GROW_WAIT) as alone:
            if not alone:
                raise fail(TO2_ERROR_RETRY, "the store must grow, but a snapshot cursor of "
                           "this process stayed open; run the call again", call=call)
            try:
                if self._env.reader_check():
                    return  # pages pinned by dead readers are free now: try again
                size = int(self._env.info()["map_size"])
                if size >= self._max_size:
                    if not strict:
                        return
                    raise self._storage_full(call, ds)
                self._env.set_mapsize(min(self._max_size, size * 2))
            except lmdb.Error as exc:
                raise db_error(exc, call) from exc

    def _adopt(self, call: str) -> None:
        """Take over the bigger map another process has grown to (MDB_MAP_RESIZED)."""
        with self._gate.exclusive(GROW_WAIT) as alone:
            if alone:
                try:
                    self._env.set_mapsize(0)
                except lmdb.Error as exc:
                    raise db_error(exc, call) from exc

    def _start_session(self) -> None:
        me = process_stat(os.getpid())
        record = pack_session(os.getpid(), me[1] if me else 0, time.time())
        cutoff = time.time() - self._deletion_delay

        def start(ops: Ops) -> None:
            ops.txn.put(self._session, record, db=self._dbs.sessions)
            with ops.txn.cursor(db=self._dbs.sessions) as cur:
                sessions = {bytes(k): unpack_session(v) for k, v in cur.iternext()}
            dead = {sid for sid, (os_pid, started, _) in sessions.items()
                    if not alive(os_pid, started)}
            for sid in dead:
                ops.txn.delete(sid, db=self._dbs.sessions)
            for pid, header in list(ops.headers()):
                orphan = header.lifetime is Lifetime.TEMPORARY and (
                    header.owner in dead or header.owner not in sessions)
                expired = header.state == DELETED and header.deleted_at <= cutoff
                if orphan or expired:
                    ops.purge(pid, header)
        self._run("TO2_createEnv", start, write=True)

    def _end_session(self, ops: Ops) -> None:
        for pid, header in list(ops.headers()):
            if header.lifetime is Lifetime.TEMPORARY and header.owner == self._session:
                ops.purge(pid, header)
        ops.txn.delete(self._session, db=self._dbs.sessions)

    def _begin_snapshot(self, call: str) -> lmdb.Transaction:
        """Begin a read transaction for a snapshot cursor; the caller holds the gate
        shared until it ends it."""
        for _ in range(ATTEMPTS):
            self._gate.acquire_shared()
            try:
                return self._env.begin(write=False)
            except lmdb.MapResizedError:
                self._gate.release_shared()
            except lmdb.ReadersFullError as exc:
                self._gate.release_shared()
                if not self.reader_check():
                    raise fail(TO2_ERROR_DB, "every LMDB reader slot is in use",
                               call=call) from exc
                continue
            except lmdb.Error as exc:
                self._gate.release_shared()
                raise db_error(exc, call) from exc
            self._adopt(call)
        raise fail(TO2_ERROR_DB, f"gave up after {ATTEMPTS} attempts", call=call)

