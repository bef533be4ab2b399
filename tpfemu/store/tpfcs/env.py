"""The LMDB environment under ``<home>/tpfcs`` and its process-wide bookkeeping (private).

One process opens an environment once (LMDB forbids a second open in one process) and
shares it between every :class:`~tpfemu.store.tpfcs.Tpfcs` on that home: :class:`Env`
holds the environment, its databases, the resize gate and each thread's stack of open
transactions. Also here: the liveness test for the processes that own sessions, and the
translation of a stray ``lmdb.Error`` into TO2_ERROR_DB.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import lmdb

from tpfemu.errors import MQCC_FAILED, StorageFull, TpfcsError
from tpfemu.mq.cmqc import MQRC_STORAGE_MEDIUM_FULL
from tpfemu.store.gate import Gate
from tpfemu.store.tpfcs.layout import TO2_ERROR_DB, fail
from tpfemu.store.tpfcs.ops import Dbs

if TYPE_CHECKING:
    from tpfemu.store.tpfcs.txn import Transaction

ATTEMPTS = 64  # growth steps and retries one call may take
GROW_WAIT = 30.0  # seconds growth waits for this process's snapshots to close
_DB_NAMES = (b"meta", b"ds", b"coll", b"elem", b"names", b"sessions")
_FORMAT = b"\x01"


@dataclass
class Env:
    """One open LMDB environment, shared by every Tpfcs of this process on that home."""

    env: lmdb.Environment
    dbs: Dbs
    stale_readers: int  # cleared at open, reported (once) by the first store
    gate: Gate = field(default_factory=Gate)
    local: threading.local = field(default_factory=threading.local)
    refs: int = 1

    def stack(self) -> list[Transaction]:
        """This thread's open transactions, outermost first."""
        stack = getattr(self.local, "stack", None)
        if stack is None:
            stack = self.local.stack = []
        return stack


_envs: dict[tuple[int, str], Env] = {}
_envs_lock = threading.Lock()


def db_error(exc: lmdb.Error, call: str) -> TpfcsError:
    return fail(TO2_ERROR_DB, f"LMDB {type(exc).__name__}: {exc}", call=call)


def open_env(path: Path, map_size: int, max_size: int, durable: bool,
              max_readers: int) -> Env:
    key = (os.getpid(), os.path.realpath(path))
    with _envs_lock:
        entry = _envs.get(key)
        if entry is not None:
            entry.refs += 1
            return entry
        path.mkdir(parents=True, exist_ok=True)
        data = path / "data.mdb"
        size = max(min(map_size, max_size), data.stat().st_size if data.exists() else 0)
        try:
            env = lmdb.open(str(path), map_size=size, subdir=True, max_dbs=len(_DB_NAMES),
                            max_readers=max_readers, lock=True, sync=durable,
                            metasync=durable, meminit=False, create=True)
        except lmdb.Error as exc:
            raise db_error(exc, "TO2_createEnv") from exc
        try:
            stale = env.reader_check()
            with env.begin(write=True) as txn:
                dbs = Dbs(*(env.open_db(name, txn=txn) for name in _DB_NAMES))
                found = txn.get(b"format", db=dbs.meta)
                if found is None:
                    txn.put(b"format", _FORMAT, db=dbs.meta)
                elif found != _FORMAT:
                    raise fail(TO2_ERROR_DB, f"{path} holds store format {found!r}, "
                               f"this tpfemu reads {_FORMAT!r}", call="TO2_createEnv")
        except (lmdb.MapFullError, lmdb.DiskError) as exc:
            env.close()
            raise StorageFull(MQCC_FAILED, MQRC_STORAGE_MEDIUM_FULL, call="TO2_createEnv",
                              obj="TPFCS", store=str(path)) from exc
        except lmdb.Error as exc:
            env.close()
            raise db_error(exc, "TO2_createEnv") from exc
        except TpfcsError:
            env.close()
            raise
        entry = _envs[key] = Env(env, dbs, stale)
        return entry


def close_env(path: Path, entry: Env) -> None:
    with _envs_lock:
        entry.refs -= 1
        if entry.refs == 0:
            _envs.pop((os.getpid(), os.path.realpath(path)), None)
            entry.env.close()


def process_stat(os_pid: int) -> tuple[str, int] | None:
    """(state, start time in clock ticks) of a process from /proc, or None if it is gone."""
    try:
        raw = Path(f"/proc/{os_pid}/stat").read_text()
    except OSError:
        return None
    fields = raw.rsplit(")", 1)[1].split()  # the command name may hold spaces
    return fields[0], int(fields[19])


def alive(os_pid: int, start: int) -> bool:
    """True if the process that opened a session is still running.

    On Linux the process's start time must match too, so that a recycled pid (after a
    reboot, say) does not keep a dead session's temporary collections alive.
    """
    if not Path("/proc/self/stat").exists():  # no /proc: trust the pid alone
        if os_pid == os.getpid():
            return True
        try:
            os.kill(os_pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    stat = process_stat(os_pid)
    return stat is not None and stat[0] not in ("Z", "X") and (not start or stat[1] == start)
