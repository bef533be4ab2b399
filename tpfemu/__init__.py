"""tpfemu: an emulator of an IBM TPF system and its MQSeries local queue manager.

Layers (imports go downwards only; each names where its errors are translated):

=====================  ==================================================================
``tpfemu.cli``         the ``tpfemu`` command (click); TpfEmuError -> exit status 1/2
``tpfemu.system``      one TPF processor: wires the layers below (later issues)
``tpfemu.mqi``         the pymqi-compatible MQI (later issue)
``tpfemu.qmgr``        queue manager: objects, resolution, units of work (later issue)
``tpfemu._lowlevel``   the only door to the compiled core ``tpfemu._native``;
                       reason codes -> :mod:`tpfemu.errors`
``native/``            the C message core: priority rings, indexes, cursors, expiry
``ecb``                the TPF control-program layer (ECBs, linkage, dispatcher); a
                       top-level package that imports nothing from tpfemu
=====================  ==================================================================
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``tpfemu.System`` and ``tpfemu.mqi`` without importing everything at startup."""
    if name == "System":
        from tpfemu.system import System

        return System
    if name == "mqi":
        import tpfemu.mqi as mqi

        return mqi
    raise AttributeError(f"module 'tpfemu' has no attribute {name!r}")
