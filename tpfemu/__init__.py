"""tpfemu: an emulator of an IBM TPF system and its MQSeries local queue manager.

Layers (imports go downwards only; each names where its errors are translated):

=====================  ==================================================================
``tpfemu.cli``         the ``tpfemu`` command (click); TpfEmuError -> exit status 1/2
``tpfemu.system``      one TPF processor: wires the layers below
``tpfemu.console``     ZMQSC, ZINET, ZBRDG, ZOLDR; ``inetd`` the Internet daemon;
``tpfemu.channels``    message channels and SVRCONN (the FAP in ``channels.fap``);
``tpfemu.bridge``      the ROUTC bridge; ``pipeline`` the Spark jobs (one level)
``tpfemu.cprog``       C programs: loading, the runtime's calls into the MQI and ECBs
``tpfemu.mqi``         the pymqi-compatible MQI, in process or as a TCP client
``tpfemu.qmgr``        queue manager: objects, resolution, put/get, units of work
``tpfemu.store``       recovery log, checkpoints, TPFCS-like store; ``journal`` events
``tpfemu.mq``          IBM's constants and byte-exact MQ structures
``tpfemu._lowlevel``   the only door to the compiled modules; reason codes ->
                       :mod:`tpfemu.errors`
``native/``            the C message core, the MQI shim, the C programs' runtime
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
