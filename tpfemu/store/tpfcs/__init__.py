"""A TPFCS-like collection store on LMDB: the home of processor-shared (COMMON-YES) queues.

z/TPF's TPF collection support (TPFCS) keeps *collections* of *elements* in named *data
stores*; each collection has a *persistent identifier* (PID) that every processor of a
loosely coupled complex can use, and a C API of ``TO2_*`` calls in ``<tpf/c_to2.h>``. This
package gives the same model to Python::

    with Tpfcs.open(home) as store:
        store.create_data_store("MQS")
        pid = store.create_keyed_bag("MQS", name="APP.SHARED.Q")
        store.at_new_key_put(pid, b"\\x05" + seq, message)     # TO2_atNewKeyPut
        element = store.take_first(pid)                       # atomic find-and-remove
        with store.transaction() as t:                        # one commit scope
            t.add(log_pid, b"taken")
            t.remove_key(pid, b"k")

**Processes.** Every OS process that opens the same ``home`` shares one LMDB environment in
``<home>/tpfcs/``: together they are a *complex*, and each sees every other's committed
changes. Each call runs in its own LMDB transaction (so it is atomic and, with
``durable=True``, on disk when it returns); LMDB lets one writer at a time run across all
processes, so :meth:`Tpfcs.take_first` - find the first element and delete it in one write
transaction - never hands one element to two processes. Within a process, one
:class:`Tpfcs` (or several on the same home, which share one environment) may be used from
any number of threads. Open the store *after* ``fork()``; never use it across one.

**Commit scopes.** ``with store.transaction() as t:`` runs every call made in it - through
``t`` *or* through the store, from the same thread - in one write transaction, committed at
the end of the block and rolled back if it raises (z/TPF: a TO2 call inside ``tx_begin``
joins that commit scope). Transactions nest (LMDB child transactions); a nested one commits
into its parent. While one is open, *every* process's writers wait, so keep them short.

**Reads and cursors.** A read sees the last committed state. A :meth:`Tpfcs.cursor` is
*live* by default: each step is its own short read transaction that continues after the
element it last returned, so it sees other processes' commits as it goes and never holds
LMDB pages. ``snapshot=True`` gives a cursor that reads one frozen state until closed.

**Growth and failure.** The map grows (doubling) when LMDB reports it full, up to
``max_size``; then - or when the disk is full - the call raises
:class:`~tpfemu.errors.StorageFull` (MQRC_STORAGE_MEDIUM_FULL), naming the data store.
Stale reader slots of crashed processes are cleared at open and whenever space or reader
slots run out. A failed call changes nothing: its transaction is aborted, and what was
committed before is untouched. Every other LMDB error becomes a
:class:`~tpfemu.errors.TpfcsError`; no ``lmdb`` exception leaves this package.

Errors, the API <-> TO2 mapping and the differences from z/TPF are in ``docs/tpfcs.md``.
The modules: ``store`` (:class:`Tpfcs`), ``api`` (the calls, shared with ``txn``'s
:class:`Transaction`), ``cursor``, ``ops`` (each call as steps in one LMDB transaction),
``layout`` (names, PIDs, key encoding, error codes) and ``env`` (the shared environment,
the resize gate, process liveness). The public names are re-exported here.

The store opens its LMDB environment itself rather than through
:class:`tpfemu.store.lmdbenv.LmdbEnv` (written at the same time): that helper runs one
callable per write transaction, while TPFCS needs transactions held across calls, nested
and joined by every call of the thread, plus snapshot cursors. The rules are the same
(a resize gate, doubling growth to a ceiling, adopting another process's size,
``reader_check`` at open and when slots or space run out); merging the two is left for
later. One process opens ``<home>/tpfcs`` once and shares it between its stores (LMDB
forbids a second open in one process).
"""

from tpfemu.store.tpfcs.store import (
    DEFAULT_DELETION_DELAY,
    DEFAULT_MAP_SIZE,
    DEFAULT_MAX_SIZE,
    ERROR_CODES,
    CollectionInfo,
    Cursor,
    Element,
    Kind,
    Lifetime,
    Pid,
    Tpfcs,
    Transaction,
)

__all__ = [
    "Tpfcs", "Transaction", "Cursor", "Pid", "Kind", "Lifetime", "Element", "CollectionInfo",
    "ERROR_CODES", "DEFAULT_MAP_SIZE", "DEFAULT_MAX_SIZE", "DEFAULT_DELETION_DELAY",
]  # fmt: skip
