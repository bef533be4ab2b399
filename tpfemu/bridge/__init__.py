"""The ROUTC bridge: nonpersistent messages from fast receiver channels to traditional TPF
applications (CUIW, AM0SG, COA4, WGTA), and their ROUTC answers back as MQ replies.

``system.bridge`` is the running :class:`Bridge` of a :class:`~tpfemu.system.System`; its
:meth:`Bridge.deliver` is the fast receiver's delivery port. See ``docs/bridge.md``.
"""

from tpfemu.bridge.bridge import Am0sgTooLong, Bridge, BridgeOrigin, BridgeRequest
from tpfemu.bridge.cuiw import assign_lniata, convert_lniata, default_cuiv, default_cuiw
from tpfemu.bridge.layouts import Am0sg, CuiwParams, LayoutError, Lniata, Rcpl, WgtaEntry
from tpfemu.bridge.terminals import Pool, ReplyContext, Terminals

__all__ = [
    "Am0sg",
    "Am0sgTooLong",
    "Bridge",
    "BridgeOrigin",
    "BridgeRequest",
    "CuiwParams",
    "LayoutError",
    "Lniata",
    "Pool",
    "Rcpl",
    "ReplyContext",
    "Terminals",
    "WgtaEntry",
    "assign_lniata",
    "convert_lniata",
    "default_cuiv",
    "default_cuiw",
]
