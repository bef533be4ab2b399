"""Build the compiled core ``tpfemu._native`` with cffi in out-of-line API mode.

This is the only cffi builder. setuptools runs it through ``cffi_modules`` on
``pip install`` and on ``python setup.py build_ext --inplace`` (what ``make`` does after a
C change); ``python native/build_ffi.py`` compiles it alone into build/ffi, for debugging.

The declarations cffi sees are derived from the public headers in
``native/include/tpf/`` (comments, include guards and ``#include`` lines dropped,
macro constants substituted), so every C declaration is written once, in C.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import sysconfig
from pathlib import Path

from cffi import FFI

ROOT = Path(__file__).resolve().parent
INCLUDE = ROOT / "include"
SOURCES = sorted((ROOT / "src").glob("*.c"))
# The public headers, in dependency order.
HEADERS = ["tpf/mqdefs.h", "tpf/queue.h", "tpf/putrules.h", "tpf/journal.h", "tpf/logrec.h"]
CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread"]


def _check_toolchain() -> None:
    """Fail early, saying what to install, when no C compiler or Python headers exist."""
    cc = os.environ.get("CC", sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        sys.exit(
            f"tpfemu: no C compiler found ({cc!r} is not on PATH). The C core must be "
            "compiled: install one, e.g. `apt-get install build-essential` (Debian/Ubuntu) "
            "or `dnf install gcc` (Fedora), then run the command again."
        )
    header = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not header.exists():
        sys.exit(
            f"tpfemu: Python.h not found (looked in {header.parent}). Install the Python "
            "development headers, e.g. `apt-get install python3-dev`, then run the command again."
        )


_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s+(.+?)\s*$")
_LITERAL = re.compile(r"^-?(0x[0-9A-Fa-f]+|\d+)[uUlL]*$")
_PARENS = re.compile(r"^\((-?\w+)\)$")  # (-1): a literal in parentheses


def cdef_source() -> str:
    """Return the cdef text derived from the public headers."""
    consts: dict[str, str] = {}
    out: list[str] = []
    for name in HEADERS:
        text = _COMMENT.sub("", (INCLUDE / name).read_text())
        for line in text.splitlines():
            m = _DEFINE.match(line)
            if m:
                macro, value = m.groups()
                if macro.endswith("_H"):
                    continue  # include guard
                value = _PARENS.sub(r"\1", value)
                value = value.rstrip("uUlL") if _LITERAL.match(value) else value
                if _LITERAL.match(value):
                    consts[macro] = value
                    out.append(f"#define {macro} {value}")
                else:
                    out.append(f"#define {macro} ...")
                continue
            if line.lstrip().startswith("#"):
                continue  # include, ifndef, endif
            out.append(line)
    body = "\n".join(out)
    # Array sizes must be literals for cffi's parser.
    for macro, value in consts.items():
        body = re.sub(rf"\[\s*{macro}\s*\]", f"[{value}]", body)
    return body


def make_builder(absolute: bool) -> FFI:
    """The FFI builder. setuptools wants paths relative to the project root (its working
    directory); cffi's own compile() changes directory, so it gets absolute ones."""

    def path(p: Path) -> str:
        return str(p if absolute else p.relative_to(ROOT.parent))

    builder = FFI()
    builder.cdef(cdef_source())
    builder.set_source(
        "tpfemu._native",
        "\n".join(f'#include "{h}"' for h in HEADERS),
        sources=[path(p) for p in SOURCES],
        include_dirs=[path(INCLUDE)],
        extra_compile_args=CFLAGS,
        extra_link_args=["-pthread"],
    )
    return builder


ffibuilder = make_builder(absolute=False)


def main(argv: list[str]) -> None:
    """Compile the module alone into build/ffi (the package build uses setup.py)."""
    _check_toolchain()
    os.chdir(ROOT.parent)
    so = make_builder(absolute=True).compile(tmpdir="build/ffi", verbose="-v" in argv)
    print(f"built {so}")


if __name__ == "__main__":
    main(sys.argv[1:])
else:
    _check_toolchain()
