"""Processor-shared (COMMON-YES) queues on the TPFCS-like store.

On z/TPF a queue defined ``COMMON-YES`` is not memory resident: it is one TPF collection
support (TPFCS) collection that every processor of the loosely coupled complex reaches by
its PID (TPF 4.1 "Processor Unique Queues versus Processor Shared Queues", seed 004). Here
every OS process that opens the same home is a processor of the complex, and a shared
queue lives in the LMDB environment of :mod:`tpfemu.store.tpfcs`.

- :mod:`~tpfemu.store.shared.registry` — :class:`SharedQueueStore`, one processor's view
  of the complex: it registers the CPU ID, opens, creates and deletes queues, and finds
  the in-doubt work of the processor's earlier incarnations at restart;
- :mod:`~tpfemu.store.shared.queue` — :class:`SharedQueue`, one queue's messages, with
  the interface of the core's memory queue (:class:`tpfemu.store.storage.QueueStorage`);
- :mod:`~tpfemu.store.shared.get` — the get path: search and claim in one transaction;
- :mod:`~tpfemu.store.shared.cursor` — :class:`SharedCursor`, a browse cursor;
- :mod:`~tpfemu.store.shared.indoubt` — :class:`InDoubt` and the restart work;
- :mod:`~tpfemu.store.shared.codecs` — the stored records and keys.

Layout, in data store ``MQS`` (see docs/tpfcs.md, "Processor-shared queues"):

- ``MQ.SHARED.QUEUES`` (key sorted set, long-term): queue name -> the queue's header:
  the PIDs of its five collections, its settings and its counters.
- ``MQ.SHARED.CPUS`` (key sorted set, long-term): CPU ID -> incarnation, OS pid and start
  time of the process that holds it; key ``#GEN`` numbers every open (MsgId generation).
- per queue, five short-term key sorted sets keyed by the message key (one byte
  ``9 - placement priority``, then the 8-byte put sequence, so key order is delivery
  order): ``msgs`` (the state record: state, owner, descriptor; in three key ranges,
  ``A`` available, ``L`` locked by a browse cursor, ``H`` hidden by a unit of work),
  ``data`` (the message bytes), ``owners`` (owner + message key -> what the owner did:
  put, get, lock), ``expired`` (discarded expired messages waiting for
  :meth:`SharedQueue.take_expired`) and ``ids`` (the MsgId and CorrelId index).
"""

from tpfemu.store.shared.codecs import DATA_STORE
from tpfemu.store.shared.cursor import SharedCursor
from tpfemu.store.shared.indoubt import InDoubt
from tpfemu.store.shared.queue import SharedQueue
from tpfemu.store.shared.registry import SharedQueueStore

__all__ = ["DATA_STORE", "InDoubt", "SharedCursor", "SharedQueue", "SharedQueueStore"]
