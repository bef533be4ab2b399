"""The store layer: what tpfemu keeps on disk under a system's home, and how it comes back.

Processor-unique queues (COMMON-NO) live in the compiled core's memory while the system
runs. Their persistent messages survive a stop or a crash through two LMDB environments
under the home, which this package owns:

- :mod:`tpfemu.store.recovery_log` — the recovery log: every PUT and GET of a persistent
  message and every COMMIT/BACKOUT, written by one logger thread with group commit; its
  records and their layout are in :mod:`tpfemu.store.log_records`.
- :mod:`tpfemu.store.checkpoint` — a checkpoint of each memory queue, written every few
  seconds and at stop; the log before it can then be trimmed.
- :mod:`tpfemu.store.recovery` — restart: load each checkpoint and replay the log tail.
- :mod:`tpfemu.store.message` — the stored image of a message (descriptor + data), shared by
  the three above.
- :mod:`tpfemu.store.lmdbenv` — opening an environment (map growth, reader slots, stale
  readers of crashed processes) and turning every ``lmdb.Error`` into a tpfemu error.

Only modules of this package import ``lmdb``; nothing from ``lmdb`` leaks upward: a full
disk or a full map is :class:`tpfemu.errors.StorageFull` (MQRC_STORAGE_MEDIUM_FULL) on the
call that hit it.
"""

from tpfemu.store.checkpoint import Checkpointer, CheckpointStore
from tpfemu.store.lmdbenv import LmdbEnv
from tpfemu.store.message import StoredMessage
from tpfemu.store.recovery import RecoveredMessage, recover
from tpfemu.store.recovery_log import Backout, Commit, Get, Put, RecoveryLog, Ticket

__all__ = [
    "Backout",
    "CheckpointStore",
    "Checkpointer",
    "Commit",
    "Get",
    "LmdbEnv",
    "Put",
    "RecoveredMessage",
    "RecoveryLog",
    "StoredMessage",
    "Ticket",
    "recover",
]
