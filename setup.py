"""Build hook: the cffi core (through cffi_modules) and the METH_FASTCALL shim.

``python setup.py build_ext --inplace`` rebuilds both next to the sources (``make`` does
this after a C change). See native/build_ffi.py and native/python/fastpath.c.
"""

from setuptools import Extension, setup

CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror"]

setup(
    cffi_modules=["native/build_ffi.py:ffibuilder"],
    ext_modules=[
        Extension(
            "tpfemu._fastpath",
            sources=["native/python/fastpath.c", "native/python/mdpath.c",
                     "native/python/planpath.c", "native/python/eventlog.c",
                     "native/python/payloadhash.c", "native/python/journalipc.c",
                     "native/python/writebehind.c", "native/python/logreplay.c",
                     # MQPUT's MD rules, one source compiled into both modules (no state)
                     "native/src/putrules.c"],
            include_dirs=["native/include", "native/python"],
            extra_compile_args=CFLAGS,
        )
    ],
)
