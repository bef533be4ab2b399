"""What an entry must give back before EXITC: held resources and commit scopes.

**Held resources.** On TPF an ECB holds file records (FIWHC, CORHC) and must unhold them
before it exits; EXITC releases anything still held, reports it, and takes a system error.
Here :meth:`ResourceMixin.hold` records a held resource (any hashable key, e.g. a record's
file address or a queue name) with an optional release callback that EXITC calls for a
resource left held. The cross-ECB hold table itself (who waits for whom) belongs to the layer
that owns the resources; this module only tracks what one ECB holds.

**Commit scopes.** TPF commit scopes (TXBGC/TXCMC/TXRBC, C ``tx_begin``/``tx_commit``/
``tx_rollback``) can nest. A :class:`CommitParticipant` (for example an MQ unit of work)
enlists in the innermost open scope. Committing an inner scope hands its participants to the
enclosing scope (nothing is committed until the outermost scope commits); committing the
outermost scope calls each participant's ``commit()`` in enlistment order. Rolling back a
scope calls ``rollback()`` on its participants in reverse order. EXITC with a scope open is
a system error (E0402) and the open scopes are rolled back, innermost first, as if TXRBC had
been issued.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Protocol

from ecb.errors import ErrorCode

__all__ = ["CommitParticipant", "ResourceMixin", "open_scopes", "watch_scopes"]

_open = [0]  # commit scopes open in this process, on every ECB and thread
_open_lock = threading.Lock()
_scope_watchers: list[Callable[[], object]] = []


def open_scopes() -> int:
    """How many commit scopes are open in the whole process (0: none anywhere).

    Lets a resource manager skip looking for a scope on its hot path."""
    return _open[0]


def watch_scopes(watcher: Callable[[], object]) -> Callable[[], None]:
    """Have ``watcher()`` called whenever a commit scope opens on any ECB, before the
    TXBGC returns: a resource manager that caches decisions for work done outside scopes
    (the MQI's put and get plans) drops them there. It must be quick and must not raise.

    :returns: a function that stops the calls.
    """
    with _open_lock:
        _scope_watchers.append(watcher)

    def unwatch() -> None:
        with _open_lock:
            if watcher in _scope_watchers:
                _scope_watchers.remove(watcher)

    return unwatch


def _count(delta: int) -> None:
    with _open_lock:
        _open[0] += delta
        watchers = tuple(_scope_watchers) if delta > 0 else ()
    for watcher in watchers:
        watcher()


class CommitParticipant(Protocol):
    """Work that joins a commit scope: committed or rolled back with it."""

    def commit(self) -> None:
        """Make the work permanent."""

    def rollback(self) -> None:
        """Undo the work."""


def _rollback_all(participants: list[CommitParticipant]) -> None:
    """Roll back ``participants`` in reverse order; the first failure is re-raised at the end."""
    first: BaseException | None = None
    for participant in reversed(participants):
        try:
            participant.rollback()
        except Exception as exc:  # keep rolling back the others
            if first is None:
                first = exc
    if first is not None:
        raise first


class ResourceMixin:
    """Held resources and commit scopes of an ECB (mixed into :class:`~ecb.ecb.Ecb`).

    Expects the ECB to define ``_holds`` (dict or None), ``_scopes`` (list or None) and
    ``_error(code, macro, detail)``.
    """

    __slots__ = ()

    _holds: dict[Hashable, Callable[[], object] | None] | None
    _scopes: list[list[CommitParticipant]] | None

    def _error(
        self, code: ErrorCode, macro: str, detail: str, level: int | None = None
    ) -> Exception:
        raise NotImplementedError  # pragma: no cover - provided by Ecb

    # -- held resources ---------------------------------------------------------------------

    def hold(self, resource: Hashable, release: Callable[[], object] | None = None) -> None:
        """Record that this ECB holds ``resource`` (like FIWHC/CORHC holding a record).

        :param release: called by EXITC if the resource is still held then.
        :raises TpfSystemError: E0403 if this ECB already holds it.
        """
        holds = self._holds
        if holds is None:
            holds = self._holds = {}  # type: ignore[misc]  # a slot of Ecb
        if resource in holds:
            raise self._error(ErrorCode.RESOURCE_ALREADY_HELD, "HOLD", f"{resource!r} already held")
        holds[resource] = release

    def unhold(self, resource: Hashable) -> None:
        """Give back ``resource`` (like UNFRC/CORUC).

        :raises TpfSystemError: E0404 if this ECB does not hold it.
        """
        if not self._holds or resource not in self._holds:
            raise self._error(ErrorCode.RESOURCE_NOT_HELD, "UNHOLD", f"{resource!r} not held")
        del self._holds[resource]

    @property
    def held_resources(self) -> tuple[Hashable, ...]:
        """The resources this ECB holds, in the order it took them."""
        return tuple(self._holds or ())

    def _release_holds(self) -> list[Hashable]:
        """Release every held resource (EXITC); return what was still held."""
        holds, self._holds = self._holds, None  # type: ignore[misc]  # a slot of Ecb
        if not holds:
            return []
        for release in holds.values():
            if release is not None:
                try:
                    release()
                except Exception:  # EXITC releases what it can; the dump reports the holds
                    pass
        return list(holds)

    # -- commit scopes ----------------------------------------------------------------------

    def tx_begin(self) -> None:
        """Open a commit scope, nested in any open one. Equivalent to TXBGC / ``tx_begin``."""
        if self._scopes is None:
            self._scopes = []  # type: ignore[misc]  # a slot of Ecb
        self._scopes.append([])
        _count(1)

    def tx_enlist(self, participant: CommitParticipant) -> None:
        """Join ``participant`` to the innermost open commit scope.

        :raises TpfSystemError: E0405 if no scope is open.
        """
        if not self._scopes:
            raise self._error(ErrorCode.NO_COMMIT_SCOPE, "TXENL", "no commit scope is open")
        self._scopes[-1].append(participant)

    def tx_commit(self) -> None:
        """Commit the innermost scope. Equivalent to TXCMC / ``tx_commit``.

        An inner scope's participants move to the enclosing scope; the outermost scope
        commits each participant in enlistment order. If one fails, the ones not yet
        committed are rolled back and the error propagates.

        :raises TpfSystemError: E0405 if no scope is open.
        """
        if not self._scopes:
            raise self._error(ErrorCode.NO_COMMIT_SCOPE, "TXCMC", "no commit scope is open")
        participants = self._scopes.pop()
        _count(-1)
        if self._scopes:
            self._scopes[-1].extend(participants)
            return
        for i, participant in enumerate(participants):
            try:
                participant.commit()
            except BaseException:
                _rollback_all(participants[i + 1 :])
                raise

    def tx_rollback(self) -> None:
        """Roll back the innermost scope. Equivalent to TXRBC / ``tx_rollback``.

        :raises TpfSystemError: E0405 if no scope is open.
        """
        if not self._scopes:
            raise self._error(ErrorCode.NO_COMMIT_SCOPE, "TXRBC", "no commit scope is open")
        participants = self._scopes.pop()
        _count(-1)
        _rollback_all(participants)

    def tx_participants(self) -> tuple[CommitParticipant, ...]:
        """The participants enlisted in the innermost open scope (empty with none open).

        A resource manager looks here for its own participant before enlisting a new one,
        so that its work in one scope is one participant, and work in a new inner scope
        is another (which an inner rollback can undo alone).
        """
        return tuple(self._scopes[-1]) if self._scopes else ()

    @property
    def tx_depth(self) -> int:
        """How many commit scopes are open (0 outside any scope)."""
        return len(self._scopes) if self._scopes else 0

    def _rollback_scopes(self) -> int:
        """Roll back every open scope, innermost first (EXITC); return how many were open."""
        scopes, self._scopes = self._scopes, None  # type: ignore[misc]  # a slot of Ecb
        if not scopes:
            return 0
        _count(-len(scopes))
        for participants in reversed(scopes):
            try:
                _rollback_all(participants)
            except Exception:  # EXITC rolls back what it can; the dump reports the scope
                pass
        return len(scopes)
