"""Units of work, and how MQ work joins TPF commit scopes (tx_begin/tx_commit/tx_rollback).

A :class:`UnitOfWork` is the MQ work of one connection between two sync points: the
queues it touched and the number of messages it holds (MAXUMSGS counts them). Its id tags
the messages in the core, which keeps them invisible (puts) or hidden (gets) until
:meth:`QueueManager.finish` commits or backs it out on every queue it touched.

TPF commit scopes nest (TXBGC/TXCMC/TXRBC). Inside an entry the scopes are the ECB's
(``ecb.Ecb.tx_begin``...); on any other thread :func:`scopes` gives the thread its own.
While a scope is open, a connection's syncpoint work goes into a unit of work enlisted in
the innermost scope (:class:`ScopeWork`), one per scope: committing an inner scope hands it
to the enclosing one, and nothing is final until the outermost scope commits; rolling back
a scope backs out only the work done in it.
"""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING, Any

import ecb as ecb_pkg
from ecb.resources import ResourceMixin, open_scopes
from tpfemu import errors

if TYPE_CHECKING:
    from tpfemu.qmgr.localq import LocalQueue

__all__ = ["UnitOfWork", "ScopeWork", "limit_reached", "scopes", "new_uow_id"]

_ids = itertools.count(1)


def new_uow_id() -> int:
    """A unit-of-work id never used before in this process."""
    return next(_ids)


class UnitOfWork:
    """The MQ work of one connection (or one commit scope) not yet committed."""

    __slots__ = ("id", "queues", "count", "owner", "extra", "triggers")

    def __init__(self, owner: Any = None) -> None:
        self.id = new_uow_id()
        self.queues: dict[str, LocalQueue] = {}
        self.count = 0  # messages held, for MAXUMSGS
        self.owner = owner
        # (queue, core uow id) pairs of gets made under their own id and joined later
        # (MQGMO_SYNCPOINT_IF_PERSISTENT of a persistent message)
        self.extra: list[tuple[LocalQueue, int]] = []
        self.triggers: list = []  # triggers held until the unit of work ends

    def touch(self, queue: LocalQueue) -> None:
        self.queues.setdefault(queue.name, queue)

    @property
    def holds_work(self) -> bool:
        """Whether it holds anything to commit or back out: puts and gets on its queues,
        gets made under their own id and joined (``extra``), triggers held."""
        return bool(self.queues or self.extra or self.triggers)


def limit_reached(uow: UnitOfWork | None, profile: Any, adding: int = 1) -> bool:
    """Whether ``adding`` more messages would take ``uow`` past the queue manager's
    MAXUMSGS (``profile``: its MQP; None, or no unit of work: no limit). The one statement
    of IBM's rule (MQRC_SYNCPOINT_LIMIT_REACHED, MaxUncommittedMsgs): the messages a unit
    of work holds are those put and got in syncpoint and the trigger messages and COA and
    COD reports the queue manager made for them (counted where they are made)."""
    return (uow is not None and profile is not None
            and uow.count + adding > profile.maxumsgs)


class ScopeWork:
    """A unit of work enlisted in a TPF commit scope (an ``ecb`` CommitParticipant)."""

    __slots__ = ("uow", "manager", "connection")

    def __init__(self, manager: Any, connection: Any) -> None:
        self.uow = UnitOfWork(owner=connection)
        self.manager = manager
        self.connection = connection

    def commit(self) -> None:
        self.manager.finish(self.uow, commit=True)

    def rollback(self) -> None:
        self.manager.finish(self.uow, commit=False)


class _ThreadScopes(ResourceMixin):
    """The commit scopes of a thread that is not running an entry."""

    __slots__ = ("_holds", "_scopes")

    def __init__(self) -> None:
        self._holds = None
        self._scopes = None

    def _error(self, code, macro, detail, level=None):  # ResourceMixin's hook
        return errors.TpfEmuError(f"{macro}: {detail}")


_local = threading.local()


def scopes() -> ResourceMixin:
    """Where tx_begin/tx_commit/tx_rollback act on this thread: the running entry's ECB,
    or the thread's own scopes outside any entry."""
    running = ecb_pkg.current()
    if running is not None:
        return running
    holder = getattr(_local, "scopes", None)
    if holder is None:
        holder = _local.scopes = _ThreadScopes()
    return holder


def scope_work(manager: Any, connection: Any) -> UnitOfWork | None:
    """The unit of work for ``connection``'s syncpoint work in the innermost open scope
    (made and enlisted on first use), or None when no scope is open."""
    if not open_scopes():  # no scope open anywhere in the process
        return None
    holder = scopes()
    if not holder.tx_depth:
        return None
    for participant in holder.tx_participants():
        if isinstance(participant, ScopeWork) and participant.connection is connection:
            return participant.uow
    work = ScopeWork(manager, connection)
    holder.tx_enlist(work)
    return work.uow
