"""C programs: TPF application code in C, run by the emulated system (docs/cprograms.md).

- the headers: ``native/include/cmqc.h`` (the MQI) and ``native/include/tpf/*.h``
  (``ecbptr()``, ``struct eb0eb``, getcc, the create calls, entrc, commit scopes);
- the runtime (``native/runtime``, ``tpfemu._cprog``): what programs link against; it
  calls into the running system in the same process, MQ calls through the one put and
  get path;
- :mod:`tpfemu.cprog.loader`: a program's shared object loaded under its 4-character name
  (``system.programs.load_shared``, ``tpfemu run --load``, ``ZOLDR LOAD``);
- :mod:`tpfemu.cprog.build`: ``tpfemu cc``, the compiler line;
- :mod:`tpfemu.cprog.execute`: ``tpfemu exec``, a ``main()`` program run in an entry;
- :mod:`tpfemu.cprog.calls`: the Python side the runtime calls.
"""
