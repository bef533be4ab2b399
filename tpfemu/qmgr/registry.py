"""The queue managers running in this process, by name: what MQCONN finds.

A :class:`~tpfemu.qmgr.manager.QueueManager` registers itself when it starts and leaves
when it stops; ``tpfemu.mqi.connect(name)`` looks it up here. An empty name means the
default queue manager: the only one running, as MQCONN with a blank name connects to the
default queue manager.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from tpfemu import errors
from tpfemu.mq import cmqc

if TYPE_CHECKING:
    from tpfemu.qmgr.manager import QueueManager

_running: dict[str, QueueManager] = {}
_lock = threading.Lock()


def register(qmgr: QueueManager) -> None:
    """Make ``qmgr`` findable by its name.

    :raises TpfEmuError: a queue manager of that name already runs in this process.
    """
    with _lock:
        if qmgr.name in _running:
            raise errors.TpfEmuError(f"a queue manager named {qmgr.name!r} is already running")
        _running[qmgr.name] = qmgr


def unregister(qmgr: QueueManager) -> None:
    """Forget ``qmgr`` (no error if it was not registered)."""
    with _lock:
        if _running.get(qmgr.name) is qmgr:
            del _running[qmgr.name]


def lookup(name: str) -> QueueManager:
    """The running queue manager called ``name`` (blank: the only one running).

    :raises QueueManagerNameError: MQRC_Q_MGR_NAME_ERROR (2058) when there is none.
    """
    name = name.strip()
    with _lock:
        if name:
            qmgr = _running.get(name)
        else:
            qmgr = next(iter(_running.values())) if len(_running) == 1 else None
        known = sorted(_running)
    if qmgr is None:
        err = errors.error_for(cmqc.MQRC_Q_MGR_NAME_ERROR, call="MQCONN", obj=name)
        err.hint = f"running here: {', '.join(known)}" if known else "none runs in this process"
        raise err
    return qmgr


def running() -> list[str]:
    """Names of the queue managers running in this process."""
    with _lock:
        return sorted(_running)
