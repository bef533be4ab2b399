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
            # (the journal's record, hash and encoder are the C core's, native/src:
            # EventLog calls them from the shim too)
            sources=["native/python/fastpath.c", "native/python/fastget.c",
                     "native/python/batchpath.c",
                     "native/python/mdpath.c", "native/python/mdraw.c", "native/python/mdtime.c",
                     "native/python/structbase.c", "native/python/planpath.c",
                     "native/python/eventlog.c", "native/python/eventwrite.c",
                     "native/python/runningecb.c",
                     "native/python/payloadhash.c", "native/python/logput.c",
                     "native/python/logencode.c", "native/python/segfile.c",
                     "native/src/payload_hash.c", "native/src/journal_ipc.c",
                     "native/src/journal_record.c", "native/src/journal_segment.c",
                     # MQPUT's MD rules, one source compiled into both modules (no state)
                     "native/src/putrules.c",
                     # a persistent message's PUT record, made by a put plan (no state)
                     "native/src/log_record.c"],
            include_dirs=["native/include", "native/python"],
            extra_compile_args=CFLAGS,
        ),
        # The runtime C programs link against (docs/cprograms.md): the MQI of cmqc.h and
        # TPF's C API of tpf/tpfapi.h, calling into the running system in this process.
        Extension(
            "tpfemu._cprog",
            sources=["native/runtime/module.c", "native/runtime/structs.c",
                     "native/runtime/mqi.c", "native/runtime/tpfapi.c"],
            include_dirs=["native/include", "native/runtime"],
            extra_compile_args=CFLAGS,
            libraries=["dl"],
        ),
        # A client's MQPUT/MQGET served in one C call by the SVRCONN agent, through the
        # plans' raw entries (the capsule tpfemu._fastpath exports).
        Extension(
            "tpfemu._exchange",
            sources=["native/python/exchange.c"],
            include_dirs=["native/include", "native/python"],
            extra_compile_args=CFLAGS,
        ),
    ],
)
