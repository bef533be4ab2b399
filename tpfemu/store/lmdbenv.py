"""An LMDB environment under a system's home, and the one place lmdb errors are translated.

:class:`LmdbEnv` wraps an ``lmdb.Environment`` with what every store of tpfemu needs:

- **Map growth.** The map starts at ``map_size`` and doubles (``env.set_mapsize``) each time
  a write fails with ``MapFullError``, up to ``max_map_size``; a write that does not fit
  below the ceiling raises :class:`~tpfemu.errors.StorageFull`, and nothing of it was
  written (LMDB aborts the transaction; what was committed before is untouched). A full
  disk is StorageFull too (``ENOSPC``, or the short write LMDB reports as ``EIO`` when the
  file system is nearly full or the file size limit is reached).
- **Resizing safely.** LMDB allows ``set_mapsize`` only while no transaction of this process
  is open, so every transaction runs under a shared *gate* and a resize takes the gate
  exclusively. When another process grew the map, the next transaction adopts its size.
- **Reader slots.** ``max_readers`` slots are shared by every process using the
  environment (``lock=True``). ``reader_check()`` runs at open, and again whenever the
  table is full or the map is, to free the slots (and the old snapshots they pin) of
  processes that died holding a read transaction.
- **Errors.** :func:`translate` maps every ``lmdb.Error`` to a tpfemu error; callers use
  ``raise translate(exc) from exc`` so ``lmdb`` never leaks upward.

Rules from py-lmdb that hold here: a write transaction is used only by the thread that
began it (:meth:`LmdbEnv.write` runs the whole transaction inside one call); an environment
is never used across ``fork()`` (open it again in the child); memoryviews from a
``buffers=True`` read are valid only inside that read.

Durability is set per environment: ``sync=True`` (LMDB's default) makes a commit durable
when it returns, at two fsyncs; with ``sync=False`` a commit is durable only after the next
:meth:`LmdbEnv.sync` (see :mod:`tpfemu.store.recovery_log` for why the log uses that).
"""

from __future__ import annotations

import errno
import fcntl
import os
import resource
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import lmdb

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.store.gate import Gate

T = TypeVar("T")

MiB = 1 << 20
DEFAULT_MAP_SIZE = 64 * MiB
DEFAULT_MAX_MAP_SIZE = 1 << 40  # 1 TiB of address space; the disk is the real limit

_FULL = (lmdb.MapFullError, lmdb.DiskError)
_SETTLE_KEY = b"\0tpfemu-settle"  # in the main database, beside the sub-database names
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
_RESOURCE = (
    lmdb.ReadersFullError, lmdb.TxnFullError, lmdb.CursorFullError, lmdb.DbsFullError,
    lmdb.TlsFullError, lmdb.MemoryError, lmdb.PageFullError,
)  # fmt: skip
_DAMAGED = (
    lmdb.CorruptedError, lmdb.PageNotFoundError, lmdb.PanicError, lmdb.InvalidError,
    lmdb.VersionMismatchError, lmdb.IncompatibleError, lmdb.BadChecksumError,
)  # fmt: skip
_MISUSE = (
    lmdb.BadTxnError, lmdb.BadDbiError, lmdb.BadRslotError, lmdb.BadValsizeError,
    lmdb.InvalidParameterError,
)  # fmt: skip


def translate(exc: lmdb.Error, *, call: str = "", obj: str = "") -> errors.TpfEmuError:
    """The tpfemu error for an ``lmdb.Error`` (raise it ``from exc``).

    Full map or disk (ENOSPC, EDQUOT, EFBIG) -> StorageFull; reader, transaction and
    memory limits -> ResourceProblem; a damaged or foreign file -> ObjectDamaged; a
    misuse of the API -> InternalError (a bug in tpfemu); anything else the OS reported
    (EIO, EACCES, ...) -> FileSystemError.
    """
    if isinstance(exc, _FULL) or getattr(exc, "code", 0) in _FULL_ERRNOS:
        reason = cmqc.MQRC_STORAGE_MEDIUM_FULL
    elif isinstance(exc, _RESOURCE):
        reason = cmqc.MQRC_RESOURCE_PROBLEM
    elif isinstance(exc, _DAMAGED):
        reason = cmqc.MQRC_OBJECT_DAMAGED
    elif isinstance(exc, _MISUSE):
        return errors.InternalError(f"{call or 'store'} on {obj!r}: lmdb misuse: {exc}")
    else:
        reason = cmqc.MQRC_FILE_SYSTEM_ERROR
    error = errors.error_for(reason, call=call, obj=obj)
    error.detail = str(exc)
    return error


class LmdbEnv:
    """An LMDB environment in directory ``path`` (created if missing), shared by processes.

    :param map_size: initial map size in bytes (the environment's own size wins if larger).
    :param max_map_size: ceiling for growth; a write that needs more raises StorageFull
        (deletions may go :attr:`reserve` bytes above it, see :meth:`write`).
    :param dbs: names of the sub-databases to open (created if missing).
    :param max_readers: reader slots shared by every process (``reader_check`` frees the
        slots of dead ones).
    :param sync, metasync: LMDB's durability flags (see the module docstring).
    :param preformat: on creation, fill the data file with zeros up to this many bytes, so
        later writes overwrite allocated blocks and an fdatasync flushes no file metadata
        (MQ's formatted log extents); at most ``map_size``.
    :param readonly: open for reading only (no growth, no writes).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        map_size: int = DEFAULT_MAP_SIZE,
        max_map_size: int = DEFAULT_MAX_MAP_SIZE,
        dbs: tuple[bytes, ...] = (),
        max_readers: int = 126,
        sync: bool = True,
        metasync: bool = True,
        preformat: int = 0,
        readonly: bool = False,
    ) -> None:
        if not 0 < map_size <= max_map_size:
            raise ValueError(f"need 0 < map_size <= max_map_size: {map_size}, {max_map_size}")
        self.path = Path(path)
        self.max_map_size = max_map_size
        self.reserve = max(max_map_size // 16, 256 * 1024)  # for reclaiming writes only
        self.growths = 0  # how many times this process grew the map
        self.growths_into_reserve = 0  # ... of which above the ceiling, for reclaiming
        self.stale_readers_cleared = 0
        self._gate = Gate()
        data_file = self.path / "data.mdb"
        new = not data_file.exists()
        if not readonly:
            self.path.mkdir(parents=True, exist_ok=True)
        try:
            self._env = lmdb.open(
                str(self.path), map_size=map_size, max_dbs=max(len(dbs), 1),
                max_readers=max_readers, sync=sync, metasync=metasync, lock=True,
                readonly=readonly, create=not readonly, max_spare_txns=2,
            )  # fmt: skip
        except lmdb.Error as exc:
            raise translate(exc, call="open", obj=str(self.path)) from exc
        try:
            self.stale_readers_cleared += self._env.reader_check()
            self._dbs = {}
            for name in dbs:
                try:
                    self._dbs[name] = self._env.open_db(name, create=not readonly)
                except lmdb.NotFoundError:  # read-only, and never created (see has_db)
                    pass
        except lmdb.Error as exc:
            self._env.close()
            raise translate(exc, call="open", obj=str(self.path)) from exc
        if new and preformat and not readonly:
            _zero_fill(data_file, min(preformat, map_size))

    # -- handles --------------------------------------------------------------------------

    def db(self, name: bytes):
        """The handle of sub-database ``name`` (one of ``dbs`` given at open)."""
        return self._dbs[name]

    def has_db(self, name: bytes) -> bool:
        """Whether sub-database ``name`` exists (read-only opens may find it missing: a
        writer killed while creating the environment)."""
        return name in self._dbs

    @property
    def map_size(self) -> int:
        """The current map size in bytes."""
        return self._env.info()["map_size"]

    def close(self) -> None:
        """Close the environment; every transaction of this process must be finished."""
        with self._gate.exclusive():
            self._env.close()

    def __enter__(self) -> LmdbEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions -----------------------------------------------------------------------

    def write(
        self,
        fn: Callable[[lmdb.Transaction], T],
        *,
        call: str = "",
        obj: str = "",
        reclaim: bool = False,
    ) -> T:
        """Run ``fn(txn)`` in one write transaction and commit it; return what fn returned.

        On a full map the transaction is aborted, the map grows and ``fn`` runs again (so
        fn must do nothing but write through txn). Committed means visible to every
        process, and durable when this returns only if the environment syncs on commit.

        :param reclaim: the transaction frees space (deletes): it may grow the map into a
            reserve of :attr:`reserve` bytes above the ceiling, because even a delete
            needs fresh pages (copy-on-write), so a full store could otherwise never be
            trimmed.
        :raises StorageFull: the write does not fit below ``max_map_size``, or the disk is
            full; nothing of it was written.
        """
        limit = self.max_map_size + (self.reserve if reclaim else 0)
        retried_at_ceiling = False
        gate = self._gate
        while True:
            try:
                gate.acquire_shared()  # (not `with gate.shared()`: this is the log's hot path)
                try:
                    with self._env.begin(write=True) as txn:
                        result = fn(txn)
                finally:
                    gate.release_shared()
                if reclaim:
                    self._settle(limit)
                return result
            except lmdb.MapFullError as exc:
                if not self._grow(limit):
                    if retried_at_ceiling:
                        raise translate(exc, call=call, obj=obj) from exc
                    retried_at_ceiling = True
            except lmdb.MapResizedError:
                self._adopt_size()
            except lmdb.Error as exc:
                if getattr(exc, "code", 0) == errno.EIO and self._disk_looks_full():
                    exc.code = errno.ENOSPC  # type: ignore[misc]  # (LMDB reports a short write as EIO)
                raise translate(exc, call=call, obj=obj) from exc

    @contextmanager
    def read(self, *, buffers: bool = False) -> Iterator[lmdb.Transaction]:
        """A read transaction (a consistent snapshot) for the ``with`` block.

        With ``buffers=True`` values are memoryviews into the map, valid only inside the
        block. The map cannot grow in this process while the block runs: do not wait for
        a writer of this process (e.g. a log commit) inside it.
        """
        where = str(self.path)
        txn = None
        for attempt in range(3):
            self._gate.acquire_shared()
            try:
                txn = self._env.begin(buffers=True) if buffers else self._env.begin()
                break
            except lmdb.MapResizedError:  # another process grew the map: adopt its size
                self._gate.release_shared()
                self._adopt_size()
            except lmdb.ReadersFullError as exc:
                self._gate.release_shared()
                if attempt == 2 or not self.reader_check():
                    raise translate(exc, call="read", obj=where) from exc
            except lmdb.Error as exc:
                self._gate.release_shared()
                raise translate(exc, call="read", obj=where) from exc
        if txn is None:
            raise errors.InternalError(f"read on {where!r}: the map kept being resized")
        try:
            yield txn
        except lmdb.Error as exc:
            raise translate(exc, call="read", obj=where) from exc
        finally:
            txn.abort()
            self._gate.release_shared()

    def sync(self) -> None:
        """Flush every committed transaction to disk (one fdatasync); durable on return.

        :raises StorageFull, FileSystemError: the flush failed; what was committed since
            the last successful sync may not be on disk.
        """
        try:
            self._env.sync(True)
        except lmdb.Error as exc:
            raise translate(exc, call="sync", obj=str(self.path)) from exc

    def _disk_looks_full(self) -> bool:
        """Whether a failed write is explained by a full file system or file size limit."""
        try:
            fs = os.statvfs(self.path)
            size = os.stat(self.path / "data.mdb").st_size
        except OSError:
            return False
        if fs.f_bavail * fs.f_frsize < 4 * MiB:
            return True
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        return limit != resource.RLIM_INFINITY and size + 4 * MiB > limit

    # -- growth and reader slots ----------------------------------------------------------

    def reader_check(self) -> int:
        """Free the reader slots of dead processes; return how many were freed."""
        try:
            cleared = self._env.reader_check()
        except lmdb.Error as exc:
            raise translate(exc, call="reader_check", obj=str(self.path)) from exc
        self.stale_readers_cleared += cleared
        return cleared

    def _grow(self, limit: int) -> bool:
        """Double the map (up to ``limit``); False when already there.

        Stale readers are cleared first: the old snapshots they pin keep pages from being
        reused, so clearing them can make room without growing.
        """
        self.reader_check()
        with self._gate.exclusive():
            current = self._env.info()["map_size"]
            if current >= limit:
                return False
            size = min(current * 2, limit)
            try:
                self._env.set_mapsize(size)
            except lmdb.Error as exc:
                raise translate(exc, call="grow", obj=str(self.path)) from exc
            self.growths += 1
            if size > self.max_map_size:
                self.growths_into_reserve += 1
            return True

    def _settle(self, limit: int) -> None:
        """After a reclaiming write: commit one more (tiny) transaction, and shrink the map
        back to the ceiling (LMDB keeps it at least as large as what is used).

        LMDB reuses the pages a transaction freed only from the second transaction after
        it; without this one a full store could stay full after a trim, every write
        failing (and so never committing) before reaching the freed pages.
        """
        while True:
            try:
                with self._gate.shared(), self._env.begin(write=True) as txn:
                    txn.put(_SETTLE_KEY, os.urandom(8))
                break
            except lmdb.MapFullError as exc:
                if not self._grow(limit):
                    raise translate(exc, call="reclaim", obj=str(self.path)) from exc
            except lmdb.MapResizedError:
                self._adopt_size()
            except lmdb.Error as exc:
                raise translate(exc, call="reclaim", obj=str(self.path)) from exc
        if self._env.info()["map_size"] <= self.max_map_size:
            return
        with self._gate.exclusive():
            try:
                self._env.set_mapsize(self.max_map_size)
            except lmdb.Error as exc:
                raise translate(exc, call="grow", obj=str(self.path)) from exc

    def _adopt_size(self) -> None:
        with self._gate.exclusive():
            try:
                self._env.set_mapsize(0)
            except lmdb.Error as exc:
                raise translate(exc, call="grow", obj=str(self.path)) from exc


def claim_writer(path: Path) -> int:
    """Lock ``path/writer.lock`` for the one writer of an environment; return the descriptor
    that holds the claim (closing it, or the process dying, releases it).

    :raises ObjectInUse: another writer (in any process) holds the claim.
    """
    path.mkdir(parents=True, exist_ok=True)
    fd = os.open(path / "writer.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise errors.error_for(cmqc.MQRC_OBJECT_IN_USE, call="open",
                               obj=str(path)) from None  # fmt: skip
    return fd


def _zero_fill(data_file: Path, size: int) -> None:
    """Extend ``data_file`` with written zeros up to ``size`` bytes and make that durable."""
    chunk = bytes(4 * MiB)
    fd = os.open(data_file, os.O_WRONLY)
    try:
        end = os.lseek(fd, 0, os.SEEK_END)
        while end < size:
            end += os.write(fd, chunk[: size - end])
        os.fsync(fd)
    finally:
        os.close(fd)
