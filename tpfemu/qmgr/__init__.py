"""The queue manager: its object catalog (later: name resolution, handles, units of work,
triggering, expiry and the depth monitor).

:class:`Catalog` holds the definitions that ``ZMQSC DEF/ALT/DEL/DISP`` manage: the profile
(MQP), local, alias and remote queues (QL, QA, QR) and processes (PROC). Definitions are
frozen dataclasses validated on construction (:mod:`tpfemu.qmgr.objects`); the catalog
enforces the rules between objects (profile first, one queue namespace, the profile's own
queues) and tells the queue manager about every change through listeners
(:mod:`tpfemu.qmgr.catalog`).
"""

from tpfemu.qmgr.catalog import Catalog
from tpfemu.qmgr.objects import (
    DEAD_LETTER_QUEUE,
    DEFINITION_TYPES,
    SPECIAL_RECOVERY_QUEUE,
    AliasQueueDef,
    AttrSpec,
    LocalQueueDef,
    ObjectDef,
    ProcessDef,
    ProfileDef,
    QueueDef,
    RemoteQueueDef,
)

__all__ = [
    "DEAD_LETTER_QUEUE",
    "DEFINITION_TYPES",
    "SPECIAL_RECOVERY_QUEUE",
    "AliasQueueDef",
    "AttrSpec",
    "Catalog",
    "LocalQueueDef",
    "ObjectDef",
    "ProcessDef",
    "ProfileDef",
    "QueueDef",
    "RemoteQueueDef",
]
