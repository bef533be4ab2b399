"""Generate ``native/include/tpf/cmqc_values.h``: every MQ constant of :mod:`tpfemu.mq.cmqc`
as a C ``#define``, so that C programs and Python read one definition.

Run ``python -m tpfemu.cprog.genheader`` after adding a constant to ``tpfemu.mq.cmqc``;
``tests/cprog/test_cprog_headers.py`` fails while the committed header differs from what this
module writes.

What is written:

- an integer as ``#define NAME value`` (negative values in parentheses, values above
  0x7FFFFFFF, IBM's unsigned masks, in hexadecimal);
- a byte string as ``#define NAME "..."`` and ``#define NAME_ARRAY 'c', ...``, the form the
  ``..._DEFAULT`` initializers use (IBM's header has both);
- nothing for the names ``native/include/tpf/mqdefs.h`` defines: the compiled core's
  header is their one definition, and ``cmqc.h`` includes it;
- for the lengths of the structure versions that hold pointers (MQOD, MQPMO, MQCNO,
  MQCSP, MQSCO), the 64-bit values of IBM's header (a C program's MQPTR is 8 bytes;
  :mod:`tpfemu.mq.structs` packs the 4-byte wire form).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tpfemu.mq import cmqc

__all__ = ["C_ONLY_VALUES", "header_text", "mqdefs_names"]

ROOT = Path(__file__).resolve().parents[2]
MQDEFS = ROOT / "native" / "include" / "tpf" / "mqdefs.h"
TARGET = ROOT / "native" / "include" / "tpf" / "cmqc_values.h"

#: Lengths that differ in a 64-bit C program: the structure versions with MQPTR fields
#: (IBM's cmqc.h has these values under MQ_64_BIT).
C_ONLY_VALUES = {
    "MQOD_LENGTH_2": 208, "MQOD_LENGTH_3": 344, "MQOD_LENGTH_4": 424,
    "MQOD_CURRENT_LENGTH": 424,
    "MQPMO_LENGTH_2": 160, "MQPMO_LENGTH_3": 184, "MQPMO_CURRENT_LENGTH": 184,
    "MQCNO_LENGTH_2": 24, "MQCNO_LENGTH_3": 152, "MQCNO_LENGTH_4": 168,
    "MQCNO_LENGTH_5": 200, "MQCNO_CURRENT_LENGTH": 200,
    "MQCSP_LENGTH_1": 56, "MQCSP_CURRENT_LENGTH": 56,
    "MQSCO_LENGTH_1": 536, "MQSCO_LENGTH_2": 544, "MQSCO_LENGTH_3": 560,
    "MQSCO_LENGTH_4": 568, "MQSCO_LENGTH_5": 632, "MQSCO_CURRENT_LENGTH": 632,
}

_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)


def mqdefs_names(path: Path = MQDEFS) -> set[str]:
    """The macro names the core's header defines."""
    return set(_DEFINE.findall(path.read_text()))


def _int_text(value: int) -> str:
    if value > 0x7FFFFFFF:
        return f"0x{value:X}"
    return f"({value})" if value < 0 else str(value)


def _string_text(value: bytes) -> str:
    out = []
    for byte in value:
        ch = chr(byte)
        if byte == 0:
            out.append("\\0")
        elif ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= byte < 127:
            out.append(ch)
        else:
            out.append(f"\\x{byte:02x}")
    return '"' + "".join(out) + '"'


def _char_text(byte: int) -> str:
    ch = chr(byte)
    if byte == 0:
        return "'\\0'"
    if ch in "'\\":
        return "'\\" + ch + "'"
    return f"'{ch}'" if 32 <= byte < 127 else f"'\\x{byte:02x}'"


def header_text() -> str:
    """The header's text."""
    skip = mqdefs_names()
    lines = [
        "/* cmqc_values.h - the MQ constants, generated from tpfemu.mq.cmqc",
        " *",
        " * Do not edit: run `python -m tpfemu.cprog.genheader`. Names and values are IBM's",
        " * (cmqc.h); the ones the compiled core acts on come from tpf/mqdefs.h, which",
        " * cmqc.h includes first. Included by cmqc.h. */",
        "#ifndef TPF_CMQC_VALUES_H",
        "#define TPF_CMQC_VALUES_H",
        "",
    ]
    for name in sorted(n for n in dir(cmqc) if n.startswith("MQ")):
        if name in skip:
            continue
        value = C_ONLY_VALUES.get(name, getattr(cmqc, name))
        if type(value) is int:
            lines.append(f"#define {name} {_int_text(value)}")
        elif type(value) is bytes:
            lines.append(f"#define {name} {_string_text(value)}")
            lines.append(f"#define {name}_ARRAY {', '.join(_char_text(b) for b in value)}")
    lines += ["", "#endif /* TPF_CMQC_VALUES_H */", ""]
    return "\n".join(lines)


def main() -> int:
    """Write the header (or, with ``--check``, exit 1 if the committed one differs)."""
    text = header_text()
    if "--check" in sys.argv[1:]:
        return 0 if TARGET.read_text() == text else 1
    TARGET.write_text(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
