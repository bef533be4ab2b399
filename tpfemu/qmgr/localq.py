"""A local queue while the queue manager runs: its core queue, open counts and waiters.

The definition (:class:`~tpfemu.qmgr.objects.LocalQueueDef`) says what the queue is; this
object holds what it has: the messages (a :class:`~tpfemu._lowlevel.CoreQueue`), how many
handles have it open for input (IPPROCS) and output (OPPROCS), whether one has it
exclusively, and the MQGET calls waiting on it.

Waiting (MQGMO_WAIT): a getter registers as a waiter, then retries its get under the
queue's condition and sleeps on it; whoever makes a message available (a put outside a
unit of work, a commit, a backout that restores gets) or changes what waiters must see (GET
inhibited, queue deleted, queue manager stopping) calls :meth:`wake` after the change.
Because the getter re-checks under the condition after registering, no wake-up is lost.
A getter on a processor-shared queue also looks again every :data:`SHARED_POLL` seconds,
for puts and commits made by other processors of the complex.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from tpfemu import errors
from tpfemu._lowlevel import CoreQueue
from tpfemu.qmgr.logkeys import LogKeys
from tpfemu.qmgr.objects import LocalQueueDef
from tpfemu.store.message import StoredMessage

T = TypeVar("T")

__all__ = ["LocalQueue", "SHARED_POLL"]

#: Seconds between looks of an MQGET waiting on a processor-shared queue: a put by another
#: processor (OS process) cannot notify this one's condition variable.
SHARED_POLL = 0.02


def _core_settings(definition: LocalQueueDef, msgid_prefix: bytes) -> dict:
    return {
        "max_depth": definition.maxdepth,
        # MAXMSGL 0 allows only empty messages; the core needs at least 1, and the MQI
        # checks MAXMSGL itself, so the core's limit only adds the context record.
        "max_msg_length": definition.maxmsgl + 512,
        "fifo": definition.msgdlvsq == "FIFO",
        "default_priority": definition.defprty,
        "msgid_prefix": msgid_prefix,
    }


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


class LocalQueue:
    """The live state of one local queue."""

    def __init__(self, definition: LocalQueueDef, msgid_prefix: bytes,
                 shared_space: Any = None) -> None:  # fmt: skip
        self.definition = definition
        self.name = definition.name
        self._prefix = msgid_prefix
        settings = _core_settings(definition, msgid_prefix)
        #: A processor-shared (COMMON YES) queue of a system with a home keeps its messages
        #: in the complex's collection store (:mod:`tpfemu.store.shared`), which
        #: offers the core's interface; getters in other processes are seen by polling.
        self.shared = definition.common == "YES" and shared_space is not None
        if self.shared:
            self.core = shared_space.queue(definition.name, **settings)
        else:
            self.core = CoreQueue(definition.name, **settings)
        self.cond = threading.Condition()
        self.waiters = 0
        self.input_count = 0  # IPPROCS
        self.output_count = 0  # OPPROCS
        self.other_count = 0  # handles open only to browse, inquire or set
        self.exclusive = False  # opened MQOO_INPUT_EXCLUSIVE by one handle
        self.deleted = False
        self.stopping = False
        self.expiring = False  # a message with an expiry was ever put here
        # a message asking for a COD report was ever put here: its gets take the full
        # path, which makes the report (a get plan reads no Report; persistent messages,
        # the only ones a restart brings back, take the full path anyway)
        self.reports_on_get = False
        self.trigger_state: dict = {}  # owned by the triggering layer
        self.trigger_lock = threading.Lock()  # a put and its trigger evaluation, together
        # Persistence (tpfemu.qmgr.persistence), used only when the queue manager logs:
        # a logged core operation and its log record are appended together under
        # log_lock; log_keys maps the core's put sequence of each logged message to its
        # key (the LSN of its Put record); log_inflight holds the logged gets not yet
        # committed or backed out (seq -> (uow, the message as stored)); log_pending the
        # logged puts not yet committed (seq -> uow); log_snapshots, the messages got
        # while each snapshot of the queue being taken browses it; log_version counts the
        # changes to what a checkpoint holds, and log_checkpointed is the version the
        # last checkpoint holds whole (None: none does).
        self.log_lock = threading.Lock()
        self.log_keys = LogKeys()
        self.log_inflight: dict[int, tuple[int, StoredMessage]] = {}
        self.log_pending: dict[int, int] = {}
        self.log_snapshots: list[list[StoredMessage]] = []
        self.log_version = 0
        self.log_checkpointed: int | None = None

    # -- definition ----------------------------------------------------------------------

    def core_settings(self) -> dict:
        """The core's settings for the current definition."""
        return _core_settings(self.definition, self._prefix)

    def redefine(self, definition: LocalQueueDef) -> None:
        """Apply an ALTER (or DEFINE REPLACE): new limits; messages keep their places."""
        self.definition = definition
        self.core.configure(**_core_settings(definition, self._prefix))
        self.wake()  # waiters must see a GET inhibit at once

    @property
    def get_inhibited(self) -> bool:
        return self.definition.get == "DISABLED"

    @property
    def put_inhibited(self) -> bool:
        return self.definition.put == "DISABLED"

    def in_use(self) -> str | None:
        """Why the queue cannot be deleted now, or None."""
        depth = self.core.depth
        if depth:
            return f"{depth} message{'s' if depth != 1 else ''} on the queue"
        handles = self.input_count + self.output_count + self.other_count
        if handles:
            return f"open by {handles} handle{'s' if handles != 1 else ''}"
        return None

    def clear_refusal(self) -> str | None:
        """Why CLEAR QL must be refused now, or None (IBM refuses CLEAR QLOCAL on a queue
        that is open, with any options, or that holds messages put or got in a unit of
        work not yet ended).

        A message locked by a browse cursor (MQGMO_LOCK) always belongs to an open
        handle, so the handle count covers it. On a processor-shared queue the counts of
        uncommitted puts and gets are the whole complex's; the open handles are this
        processor's (another processor's handles and locks are not seen here).
        """
        reasons = []
        handles = self.input_count + self.output_count + self.other_count
        if handles:
            reasons.append(f"open by {_count(handles, 'handle')} (locks of browse cursors "
                           "included); close them first")
        core = self.core
        total = core.depth_at_least(0)
        puts = total - core.depth_at_least(0, committed_only=True)
        gets = total - core.depth_at_least(0, without_gets=True)
        if puts or gets:
            reasons.append(f"{_count(puts, 'uncommitted put')} and "
                           f"{_count(gets, 'uncommitted get')} in units of work; "
                           "commit or back them out first")
        elif self.log_pending or self.log_inflight:
            # committed in the core, its log bookkeeping not done yet (QueuePersistence.
            # apply_end): CLEAR would miss the Get records of its puts
            reasons.append("a unit of work is ending on it; try again")
        return "; ".join(reasons) or None

    def drop(self) -> None:
        """The queue was deleted: wake its waiters (they fail) and free its messages."""
        self.deleted = True
        self.wake()
        self.core.close()

    # -- waiting ---------------------------------------------------------------------------

    def wake(self) -> None:
        """Wake every MQGET waiting on this queue (cheap when none waits)."""
        if self.waiters:
            with self.cond:
                self.cond.notify_all()

    def wait_for(self, attempt: Callable[[], T], timeout: float | None) -> T:
        """Call ``attempt`` until it stops raising NoMessageAvailable or the time is up.

        :param timeout: seconds; None waits for ever (MQWI_UNLIMITED).
        :raises NoMessageAvailable: nothing came within the time.
        :raises GetInhibited / MQMIError: as ``attempt`` raises them (it checks inhibits,
            deletion and stopping each time it is called).
        """
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        with self.cond:
            self.waiters += 1
            try:
                while True:
                    try:
                        return attempt()
                    except errors.NoMessageAvailable:
                        if deadline is None:
                            self.cond.wait(SHARED_POLL if self.shared else None)
                            continue
                        remaining = deadline - time.monotonic()
                        if remaining <= 0:
                            raise
                        self.cond.wait(min(remaining, SHARED_POLL) if self.shared else remaining)
            finally:
                self.waiters -= 1
