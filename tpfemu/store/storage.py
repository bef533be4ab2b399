"""QueueStorage: what the queue manager asks of the storage of one local queue.

A local queue keeps its messages in one of two storages, and the queue manager
(:mod:`tpfemu.qmgr`) reaches either through ``LocalQueue.core`` with the same calls:

- :class:`tpfemu._lowlevel.CoreQueue`, the memory queue of the C core, for a
  processor-unique (COMMON-NO) queue;
- :class:`tpfemu.store.shared.SharedQueue`, for a processor-shared (COMMON-YES) queue of
  a system with a home, in the TPFCS-like store every processor of the complex opens.

:class:`QueueStorage` names those calls, and nothing more. The memory queue offers more:
fast paths (``put`` and ``get_body`` with an event log, ``put_md``, ``get_md``,
``put_packed``, ``put_packed_gather``) that the queue manager takes only on a memory queue
(it checks ``LocalQueue.shared``, or the storage's type at restart), and batches
(``put_many``, ``get_many``) for channels and benchmarks. Those are not part of the
protocol.

Both storages give the same results and raise the same :mod:`tpfemu.errors` exceptions
for every call below; ``tests/store/test_queue_storage.py`` runs one set of cases against
both. Where they differ (docs/deviations.md, "Persistence and the complex"): a shared
queue's messages, persistent or not, outlive the handle, the process and a restart, and
every processor of the complex sees them (so ``depth`` counts the whole complex's); a
memory queue's go with it.

This module imports nothing from the layers above the store, so both the store and the
queue manager can name the protocol (the layer rule of DESIGN.md §1).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

from tpfemu._lowlevel import NEVER, Message

__all__ = ["QueueStorage", "StorageCursor"]


@runtime_checkable
class StorageCursor(Protocol):
    """A browse cursor of a :class:`QueueStorage` (one object handle's browse position).

    It is passed back to :meth:`QueueStorage.get_message` with the MQGMO browse, lock and
    under-cursor options; iterating it browses every message from the first, in delivery
    order. Closing it releases its lock and its position.
    """

    def close(self) -> None: ...

    def __enter__(self) -> Any: ...

    def __exit__(self, *exc: object) -> None: ...

    def __iter__(self) -> Iterator[Message]: ...


@runtime_checkable
class QueueStorage(Protocol):
    """The messages of one local queue: priority order, matched gets, units of work,
    browse cursors and lazy expiry, as the queue manager uses them.

    Unit-of-work ids are the queue manager's (positive integers; 0 is "none"). Times are
    microseconds since the epoch; :data:`~tpfemu._lowlevel.NEVER` is "no expiry".
    """

    name: str

    def configure(self, *, max_depth: int = 0, max_msg_length: int = 4 * 1024 * 1024,
                  fifo: bool = False, default_priority: int = 0,
                  msgid_prefix: bytes = b"") -> None:
        """Change the settings (MAXDEPTH, MAXMSGL, MSGDLVSQ FIFO, DEFPRTY, the prefix of
        generated MsgIds); messages already on the queue keep their places."""

    def close(self) -> None:
        """Close the storage (its cursors first); closing twice is allowed."""

    def put(self, data: bytes, priority: int = 0, uow: int = 0) -> None:
        """Put a non-persistent, never-expiring message with a generated MsgId.

        :raises QueueFull, MessageTooBig, PriorityError.
        """

    def put_message(self, data: bytes, *, priority: int = 0, persistent: bool = False,
                    expiry: int = NEVER, msg_id: bytes | None = None,
                    correl_id: bytes | None = None, uow: int = 0, ctx_len: int = 0,
                    put_time: int = 0) -> tuple[bytes, int]:
        """Put a message with a full descriptor (``ctx_len`` bytes of context record at
        the head of ``data``); a MsgId of None or all zeros is generated. In a unit of
        work the message is hidden from every getter until its commit. Returns the MsgId
        and the put sequence.

        :raises QueueFull, MessageTooBig, PriorityError, ExpiryError, StorageFull.
        """

    def get_body(self, uow: int = 0) -> bytes | None:
        """Get the first message in delivery order (priority, then FIFO), without its
        context record.

        :raises NoMessageAvailable.
        """

    def get_message(self, *, msg_id: bytes | None = None, correl_id: bytes | None = None,
                    uow: int = 0, max_length: int | None = None,
                    accept_truncated: bool = False, now: int | None = None,
                    cursor: Any = None, options: int = 0,
                    cap_body: bool = False) -> Message:
        """Get (or, with a cursor and MQGMO browse options, browse, lock or unlock) one
        message: the first in delivery order that matches the ids given (None or all
        zeros: any), discarding the expired ones met on the way.

        :raises NoMessageAvailable, NoMessageUnderCursor, TruncatedMessage, OptionsError,
            NoMessageLocked.
        """

    def commit(self, uow: int) -> int:
        """Make unit of work ``uow``'s puts visible and its gets final; return how many
        messages it touched."""

    def backout(self, uow: int) -> int:
        """Undo unit of work ``uow``: its puts are removed, its gets restored in their
        place with the backout count raised by one; return how many."""

    def take_expired(self) -> Message | None:
        """Take the oldest message discarded because it expired, or None."""

    def discard_expired(self, now: int | None = None) -> int:
        """Discard every expired message not held by a unit of work or a lock; return
        how many (they wait in :meth:`take_expired`)."""

    def purge(self) -> int:
        """Remove every committed message not held by a unit of work (CLEAR QLOCAL)."""

    @property
    def depth(self) -> int:
        """CURDEPTH: every message on the queue, committed or not."""

    def depth_at_least(self, priority: int, committed_only: bool = False,
                       without_gets: bool = False) -> int:
        """Messages of priority ``priority`` or more, leaving out uncommitted puts
        (``committed_only``) and messages got by open units of work (``without_gets``)."""

    def cursor(self) -> StorageCursor:
        """A new browse cursor, positioned before the first message."""
