"""The runtime of C programs (``tpfemu._cprog``, built from native/runtime): loading a
program's shared object and running it on an entry's ECB. :mod:`tpfemu.cprog` uses it;
nothing else does.

- ``setup(calls, classes, fields)``: hand the runtime its Python side (the module
  :mod:`tpfemu.cprog.calls`) and the MQMD/MQGMO/MQPMO classes with their field lists,
  which it checks against ``cmqc.h`` (TypeError naming the first field that differs);
- ``load(path, symbol) -> int``: dlopen ``path`` and return the address of ``symbol``
  (OSError with the loader's message; LookupError when the symbol is missing);
- ``run(address, ecb, argv)``: call the function at ``address`` on ``ecb``'s entry,
  ``void f(void)`` when ``argv`` is None, else ``int main(argc, argv)`` (returns its
  exit code); see docs/cprograms.md for what happens on exit(), a crash or a system
  error;
- ``guarded() -> int``: how many C program calls are running on this thread.
"""

from __future__ import annotations

from tpfemu import _cprog

__all__ = ["guarded", "load", "run", "setup"]

setup = _cprog.setup
load = _cprog.load
run = _cprog.run
guarded = _cprog.guarded
