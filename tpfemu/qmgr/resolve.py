"""Name resolution: which local queue an MQOPEN reaches, and whether it is remote.

IBM's rules, as far as a single queue manager with transmission queues needs them:

- ObjectQMgrName blank or this queue manager's name: the object name is looked up.
  A local queue (QL) is the target. An alias (QA) resolves to its TARGQ, which must be a
  local queue or a remote queue definition (2082 MQRC_UNKNOWN_ALIAS_BASE_Q otherwise).
  A remote queue definition (QR) sends to RNAME at RQMNAME through XMITQ, or through the
  transmission queue named like RQMNAME; if RQMNAME is this queue manager, RNAME is
  resolved here instead.
- ObjectQMgrName names another queue manager: a queue-manager alias (a QR with a blank
  RNAME named like it) gives the real queue manager and transmission queue; otherwise a
  local transmission queue named like the queue manager is used (2087
  MQRC_UNKNOWN_REMOTE_Q_MGR if there is neither).
- A transmission queue must be a local queue (2091) with USAGE XMITQ (2092); a missing one
  is 2196 MQRC_UNKNOWN_XMIT_Q.
- TPF's transmission-queue swing (``ZMQSC SWQ``, :mod:`tpfemu.qmgr.swq`): a transmission
  queue chosen above is replaced by the one it was swung to (``catalog.xmitq_routes``,
  followed to the end of the chain), so new opens put there. A route whose target is no
  longer a local queue is ignored.

Messages for another queue manager go onto the transmission queue prefixed by an MQXQH
naming the destination (the queue manager adds it at MQPUT).

Defaults (DEFPRTY, DEFPSIST) come from the first definition in the path, as IBM documents
for MQPRI_PRIORITY_AS_Q_DEF and MQPER_PERSISTENCE_AS_Q_DEF. PUT and GET must be enabled on
every definition in the path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.qmgr.catalog import Catalog
from tpfemu.qmgr.objects import AliasQueueDef, LocalQueueDef, QueueDef, RemoteQueueDef

__all__ = ["Resolved", "resolve"]


@dataclass
class Resolved:
    """Where an opened queue name leads."""

    local: LocalQueueDef  # the local queue messages go to (a transmission queue if remote)
    path: list[QueueDef] = field(default_factory=list)  # definitions met, first = opened
    remote_q: str = ""  # for a remote destination: the queue there ...
    remote_qmgr: str = ""  # ... and its queue manager
    via_qmgr_name: bool = False  # reached through ObjectQMgrName (output only, IBM)

    @property
    def remote(self) -> bool:
        return bool(self.remote_qmgr)

    @property
    def first(self) -> QueueDef:
        return self.path[0]

    @property
    def put_inhibited(self) -> bool:
        return any(getattr(d, "put", "ENABLED") == "DISABLED" for d in self.path)

    @property
    def get_inhibited(self) -> bool:
        return any(getattr(d, "get", "ENABLED") == "DISABLED" for d in self.path)


def _fail(reason: str, name: str, call: str = "MQOPEN") -> errors.MQMIError:
    return errors.error_for(getattr(cmqc, reason), call=call, obj=name)


def _swung(catalog: Catalog, name: str) -> str:
    """The transmission queue that ``name`` has been swung to (itself if none)."""
    routes = catalog.xmitq_routes
    seen = {name}
    while (target := routes.get(name)) is not None and target not in seen:
        if not isinstance(catalog.find_queue(target), LocalQueueDef):
            break
        seen.add(target)
        name = target
    return name


def _xmitq(catalog: Catalog, name: str, opened: str) -> LocalQueueDef:
    xq = catalog.find_queue(_swung(catalog, name))
    if xq is None:
        raise _fail("MQRC_UNKNOWN_XMIT_Q", opened)
    if not isinstance(xq, LocalQueueDef):
        raise _fail("MQRC_XMIT_Q_TYPE_ERROR", opened)
    if xq.usage != "XMITQ":
        raise _fail("MQRC_XMIT_Q_USAGE_ERROR", opened)
    return xq


def _to_remote_qmgr(catalog: Catalog, local_name: str, qname: str, qmgr: str,
                    path: list[QueueDef], opened: str) -> Resolved:
    """Messages for queue ``qname`` at another queue manager ``qmgr``."""
    alias = catalog.find_queue(qmgr)
    if isinstance(alias, RemoteQueueDef) and not alias.rname:  # a queue-manager alias
        path.append(alias)
        target_qmgr = alias.rqmname
        if target_qmgr == local_name:
            resolved = _local_name(catalog, local_name, qname, path, opened)
        else:
            xq = _xmitq(catalog, alias.xmitq or target_qmgr, opened)
            resolved = Resolved(xq, path, qname, target_qmgr)
        resolved.via_qmgr_name = True
        return resolved
    if isinstance(alias, LocalQueueDef):  # a transmission queue named like the qmgr
        if alias.usage != "XMITQ":
            raise _fail("MQRC_XMIT_Q_USAGE_ERROR", opened)
        path.append(alias)
        xq = _xmitq(catalog, alias.name, opened) if alias.name in catalog.xmitq_routes else alias
        return Resolved(xq, path, qname, qmgr, via_qmgr_name=True)
    raise _fail("MQRC_UNKNOWN_REMOTE_Q_MGR", opened)


def _local_name(catalog: Catalog, local_name: str, name: str, path: list[QueueDef],
                opened: str) -> Resolved:
    """Resolve an object name at this queue manager."""
    obj = catalog.find_queue(name)
    if obj is None:
        raise _fail("MQRC_UNKNOWN_OBJECT_NAME", opened)
    path.append(obj)
    if isinstance(obj, LocalQueueDef):
        return Resolved(obj, path)
    if isinstance(obj, AliasQueueDef):
        target = catalog.find_queue(obj.targq)
        if target is None:
            raise _fail("MQRC_UNKNOWN_ALIAS_BASE_Q", opened)
        if isinstance(target, AliasQueueDef):  # an alias must name a local or remote queue
            raise _fail("MQRC_ALIAS_BASE_Q_TYPE_ERROR", opened)
        if isinstance(target, LocalQueueDef):
            path.append(target)
            return Resolved(target, path)
        obj = target
        path.append(obj)
    assert isinstance(obj, RemoteQueueDef)
    if not obj.rname:  # a queue-manager alias opened as a queue
        raise _fail("MQRC_UNKNOWN_OBJECT_NAME", opened)
    if obj.rqmname == local_name:
        return _local_name(catalog, local_name, obj.rname, path, opened)
    xq = _xmitq(catalog, obj.xmitq or obj.rqmname, opened)
    return Resolved(xq, path, obj.rname, obj.rqmname)


def resolve(catalog: Catalog, local_name: str, name: str, qmgr_name: str = "") -> Resolved:
    """Resolve a queue name (and optional queue-manager name) as MQOPEN does.

    :raises MQMIError: 2085, 2082, 2087, 2091, 2092, 2196 as described above.
    """
    name = name.strip()
    qmgr_name = qmgr_name.strip()
    if not name:
        raise _fail("MQRC_UNKNOWN_OBJECT_NAME", name)
    path: list[QueueDef] = []
    if qmgr_name and qmgr_name != local_name:
        return _to_remote_qmgr(catalog, local_name, name, qmgr_name, path, name)
    return _local_name(catalog, local_name, name, path, name)
