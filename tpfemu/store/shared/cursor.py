"""A browse cursor on a processor-shared queue."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from tpfemu import errors
from tpfemu._lowlevel import MQGMO, CursorMoves
from tpfemu.errors import TpfcsError

if TYPE_CHECKING:
    from tpfemu.store.shared.queue import SharedQueue

__all__ = ["SharedCursor"]


class SharedCursor(CursorMoves):
    """A browse cursor on a :class:`~tpfemu.store.shared.queue.SharedQueue` (one object
    handle's browse position), with the methods of :class:`tpfemu._lowlevel.Cursor`.

    The position is the key of the message last browsed, so if another processor gets
    that message, BROWSE_NEXT continues with the one after it. A lock (MQGMO_LOCK) is
    held in the store under an owner of this processor's incarnation, so it hides the
    message from every processor; :meth:`close` releases it, and so does the next
    incarnation's :meth:`SharedQueueStore.release_stale_locks` if the process died.

    :ivar owner: the owner key of this cursor's lock in the store.
    :ivar pos: the message key of the message last browsed (None: before the first).
    :ivar locked: the message key of the message this cursor has locked, or None.
    """

    _serial = itertools.count(1)

    def __init__(self, queue: SharedQueue) -> None:
        self.queue = queue
        self.owner = queue.space.lock_owner(next(self._serial))
        self.pos: bytes | None = None
        self.locked: bytes | None = None
        self._closed = False
        queue.cursors.append(self)

    def check(self) -> None:
        """:raises TpfEmuError: the cursor is closed."""
        if self._closed:
            raise errors.TpfEmuError("cursor is closed")

    def close(self) -> None:
        """Release the cursor, its lock and its position."""
        if self._closed:
            return
        self._closed = True
        q = self.queue
        if self.locked is not None and not q.closed:
            try:
                q.release_lock(self.locked, self.owner)
            except (TpfcsError, errors.TpfEmuError):
                pass  # the queue is gone; a dead lock is released at the next restart
        self.locked = None
        if self in q.cursors:
            q.cursors.remove(self)

    def __enter__(self) -> SharedCursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def unlock(self) -> None:
        """Release the message this cursor locked: MQGMO_UNLOCK."""
        self.queue.get_message(cursor=self, options=MQGMO["MQGMO_UNLOCK"])
