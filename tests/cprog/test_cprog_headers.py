"""One definition: the C headers' constants, sizes and layouts equal the Python side's.

A C program compiled against the shipped headers (-Wall -Wextra -Werror -pedantic) prints
every constant of cmqc.h and the size and offset of every structure field; each must
equal tpfemu.mq.cmqc's constant and tpfemu.mq.structs'/headers' layout. The generated
constants header must be what ``python -m tpfemu.cprog.genheader`` writes now."""

from __future__ import annotations

import subprocess

import pytest

from tpfemu.cprog import genheader
from tpfemu.cprog.build import INCLUDE
from tpfemu.mq import cmqc, headers, structs

#: (C type, Python class, the fields compared: all, or those of version 1 when later
#: versions hold pointers, 8 bytes in C and 4 on the wire)
STRUCTS = [
    ("MQMD", structs.MD, None), ("MQGMO", structs.GMO, None), ("MQTM", headers.TM, None),
    ("MQTMC2", headers.TMC2, None), ("MQXQH", headers.XQH, None), ("MQDLH", headers.DLH, None),
    ("MQOD", structs.OD, 1), ("MQPMO", structs.PMO, 1),
]


def _c_names() -> list[str]:
    names = genheader.mqdefs_names() | {
        line.split()[1] for line in genheader.TARGET.read_text().splitlines()
        if line.startswith("#define MQ") and not line.split()[1].endswith("_ARRAY")}
    return sorted(n for n in names if n.startswith("MQ") and hasattr(cmqc, n))


def _program(names: list[str]) -> str:
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <cmqc.h>",
             "static void bytes(const char *name, const char *s, size_t n) {",
             "    printf(\"B %s \", name);",
             "    for (size_t i = 0; i < n; i++) printf(\"%02x\", (unsigned char)s[i]);",
             "    printf(\"\\n\");", "}", "int main(void) {"]
    for name in names:
        if isinstance(getattr(cmqc, name), bytes):
            lines.append(f'    bytes("{name}", {name}, sizeof {name} - 1);')
        else:
            lines.append(f'    printf("I {name} %lld\\n", (long long)({name}));')
    for ctype, cls, only in STRUCTS:
        lines.append(f'    printf("S {ctype} %zu\\n", sizeof({ctype}));')
        for field in cls.FIELDS:
            if only is not None and field.since > only:
                continue
            lines.append(f'    printf("F {ctype}.{field.name} %zu %zu\\n", '
                         f'offsetof({ctype}, {field.name}), sizeof((({ctype} *)0)->{field.name}));')
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> dict[str, str]:
    """What the compiled C program prints: {kind and name: value}."""
    tmp = tmp_path_factory.mktemp("headers")
    source, exe = tmp / "constants.c", tmp / "constants"
    source.write_text(_program(_c_names()))
    subprocess.run(["cc", "-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror",
                    f"-I{INCLUDE}", "-o", str(exe), str(source)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    values = {}
    for line in out.splitlines():
        kind, name, value = line.split(" ", 2)
        values[f"{kind} {name}"] = value
    return values


def test_generated_constants_header_is_current():
    """native/include/tpf/cmqc_values.h is what the generator writes from tpfemu.mq.cmqc
    today (run `python -m tpfemu.cprog.genheader` after adding a constant)."""
    assert genheader.TARGET.read_text() == genheader.header_text()


def test_every_python_constant_is_in_cmqc_h():
    """Every MQ constant of tpfemu.mq.cmqc is defined for C programs."""
    c = set(_c_names())
    missing = [n for n in dir(cmqc) if n.startswith("MQ") and
               isinstance(getattr(cmqc, n), (int, bytes)) and n not in c]
    assert missing == []


def test_every_c_constant_equals_python(printed):
    """Each constant's value, as a C program sees it, equals tpfemu.mq.cmqc's (integers as
    MQLONG bit patterns; the 64-bit MQOD/MQPMO lengths are the documented exceptions)."""
    wrong = []
    for name in _c_names():
        value = getattr(cmqc, name)
        if isinstance(value, bytes):
            if printed[f"B {name}"] != value.hex():
                wrong.append(name)
            continue
        expected = genheader.C_ONLY_VALUES.get(name, value)
        got = int(printed[f"I {name}"])
        if got != expected and got & 0xFFFFFFFF != expected & 0xFFFFFFFF:
            wrong.append(name)
    assert wrong == []
    assert len(_c_names()) > 900


#: IBM's 64-bit cmqc.h lengths of the structures whose later versions hold pointers
#: (dsuch/pymqi code/pymqi/CMQC.py, its `calcsize("P") == 8` branch, from the 9.2.5 header).
IBM_64_BIT_LENGTHS = {
    "MQOD_LENGTH_1": 168, "MQOD_LENGTH_2": 208, "MQOD_LENGTH_3": 344, "MQOD_LENGTH_4": 424,
    "MQPMO_LENGTH_1": 128, "MQPMO_LENGTH_2": 160, "MQPMO_LENGTH_3": 184,
    "MQCNO_LENGTH_1": 12, "MQCNO_LENGTH_2": 24, "MQCNO_LENGTH_3": 152,
    "MQCNO_LENGTH_4": 168, "MQCNO_LENGTH_5": 200, "MQCSP_LENGTH_1": 56,
    "MQSCO_LENGTH_1": 536, "MQSCO_LENGTH_2": 544, "MQSCO_LENGTH_3": 560,
    "MQSCO_LENGTH_4": 568, "MQSCO_LENGTH_5": 632,
}


def test_pointer_structure_lengths_are_ibm_64_bit(printed):
    """A C program sees IBM's 64-bit lengths of every structure version that holds a
    pointer, and each ..._CURRENT_LENGTH is the length of its ..._CURRENT_VERSION."""
    got = {name: int(printed[f"I {name}"]) for name in IBM_64_BIT_LENGTHS}
    assert got == IBM_64_BIT_LENGTHS
    for struc in ("MQOD", "MQPMO", "MQCNO", "MQCSP", "MQSCO"):
        version = int(printed[f"I {struc}_CURRENT_VERSION"])
        assert int(printed[f"I {struc}_CURRENT_LENGTH"]) == \
            IBM_64_BIT_LENGTHS[f"{struc}_LENGTH_{version}"], struc


@pytest.mark.parametrize(("ctype", "cls", "only"), STRUCTS, ids=[s[0] for s in STRUCTS])
def test_structure_layouts_equal_python(printed, ctype, cls, only):
    """Each field of the C structure has Python's offset and size; the structure is as
    long as IBM's length of its latest version (MQOD/MQPMO: the 64-bit lengths)."""
    for field in cls.FIELDS:
        if only is not None and field.since > only:
            continue
        assert printed[f"F {ctype}.{field.name}"] == f"{field.offset} {field.size}", field.name
    latest = max(cls.LENGTHS)
    name = f"{ctype}_LENGTH_{latest}" if ctype != "MQTMC2" else "MQTMC2_LENGTH_2"
    expected = genheader.C_ONLY_VALUES.get(name, getattr(cmqc, name))
    assert int(printed[f"S {ctype}"]) == expected


#: IBM's MQCNO (versions 1-5) and MQCSP, field by field in IBM's order, with their
#: x86-64 offsets and sizes (8-byte pointers aligned to 8; the structures end at IBM's
#: 64-bit MQCNO_LENGTH_5 = 200 and MQCSP_LENGTH_1 = 56).
IBM_64_BIT_LAYOUTS = {
    "MQCNO": [("StrucId", 0, 4), ("Version", 4, 4), ("Options", 8, 4),
              ("ClientConnOffset", 12, 4), ("ClientConnPtr", 16, 8), ("ConnTag", 24, 128),
              ("SSLConfigPtr", 152, 8), ("SSLConfigOffset", 160, 4),
              ("ConnectionId", 164, 24), ("SecurityParmsOffset", 188, 4),
              ("SecurityParmsPtr", 192, 8)],
    "MQCSP": [("StrucId", 0, 4), ("Version", 4, 4), ("AuthenticationType", 8, 4),
              ("Reserved1", 12, 4), ("CSPUserIdPtr", 16, 8), ("CSPUserIdOffset", 24, 4),
              ("CSPUserIdLength", 28, 4), ("Reserved2", 32, 8), ("CSPPasswordPtr", 40, 8),
              ("CSPPasswordOffset", 48, 4), ("CSPPasswordLength", 52, 4)],
}


def test_mqcno_and_mqcsp_have_ibm_64_bit_layouts_and_defaults(tmp_path):
    """MQCNO and MQCSP have IBM's fields at IBM's 64-bit offsets and sizes, and their
    ..._DEFAULT initializers give IBM's initial values: StrucId, version 1, MQCNO_NONE /
    MQCSP_AUTH_NONE, and every other byte zero (null pointers, MQCT_NONE,
    MQCONNID_NONE)."""
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <cmqc.h>",
             "int main(void) {", "    MQCNO cno = {MQCNO_DEFAULT};",
             "    MQCSP csp = {MQCSP_DEFAULT};"]
    for ctype, fields in IBM_64_BIT_LAYOUTS.items():
        lines.append(f'    printf("{ctype} %zu\\n", sizeof({ctype}));')
        for field, _, _ in fields:
            lines.append(f'    printf("{ctype}.{field} %zu %zu\\n", offsetof({ctype}, {field}), '
                         f'sizeof((({ctype} *)0)->{field}));')
    lines += ['    for (size_t i = 0; i < sizeof cno; i++) '
              'printf("%02x", ((unsigned char *)&cno)[i]);',
              '    printf("\\n");',
              '    for (size_t i = 0; i < sizeof csp; i++) '
              'printf("%02x", ((unsigned char *)&csp)[i]);',
              '    printf("\\n");', "    return 0;", "}"]
    source, exe = tmp_path / "cno.c", tmp_path / "cno"
    source.write_text("\n".join(lines) + "\n")
    subprocess.run(["cc", "-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror",
                    f"-I{INCLUDE}", "-o", str(exe), str(source)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    *layout, cno_hex, csp_hex = out.splitlines()
    expected = []
    for ctype, fields in IBM_64_BIT_LAYOUTS.items():
        length = IBM_64_BIT_LENGTHS["MQCNO_LENGTH_5" if ctype == "MQCNO" else "MQCSP_LENGTH_1"]
        expected.append(f"{ctype} {length}")
        expected += [f"{ctype}.{field} {offset} {size}" for field, offset, size in fields]
    assert layout == expected
    assert bytes.fromhex(cno_hex) == b"CNO " + (1).to_bytes(4, "little") + bytes(192)
    assert bytes.fromhex(csp_hex) == b"CSP " + (1).to_bytes(4, "little") + bytes(48)


#: IBM's cmqc.h types (as published, e.g. its `Simple Data Types` section): name ->
#: the type it names. Each is checked by pointer compatibility, which -Werror enforces.
IBM_TYPES = {
    "MQBYTE4": "MQBYTE[4]", "MQBYTE8": "MQBYTE[8]", "MQBYTE16": "MQBYTE[16]",
    "MQBYTE24": "MQBYTE[24]", "MQBYTE32": "MQBYTE[32]", "MQBYTE40": "MQBYTE[40]",
    "MQBYTE48": "MQBYTE[48]", "MQBYTE128": "MQBYTE[128]",
    "MQCHAR4": "MQCHAR[4]", "MQCHAR8": "MQCHAR[8]", "MQCHAR12": "MQCHAR[12]",
    "MQCHAR16": "MQCHAR[16]", "MQCHAR20": "MQCHAR[20]", "MQCHAR28": "MQCHAR[28]",
    "MQCHAR32": "MQCHAR[32]", "MQCHAR48": "MQCHAR[48]", "MQCHAR64": "MQCHAR[64]",
    "MQCHAR128": "MQCHAR[128]", "MQCHAR256": "MQCHAR[256]", "MQCHAR264": "MQCHAR[264]",
    "MQINT8": "signed char", "MQUINT8": "unsigned char", "MQINT16": "short",
    "MQUINT16": "unsigned short", "MQINT32": "int", "MQUINT32": "unsigned int",
    "MQLONG": "int", "MQULONG": "unsigned int", "MQFLOAT32": "float", "MQFLOAT64": "double",
    "MQHCONN": "MQLONG", "MQHOBJ": "MQLONG", "MQHMSG": "MQINT64", "MQBOOL": "MQLONG",
    "MQPID": "MQLONG", "MQTID": "MQLONG", "MQPTR": "void *", "PMQVOID": "void *",
    "PMQFUNC": "void *", "MQCHARV": "struct tagMQCHARV", "MQMD2": "MQMD",
}
#: The pointer types: P<type> and, for these, PP<type> too.
IBM_POINTERS = [n for n in IBM_TYPES if n not in ("MQPTR", "PMQVOID", "PMQFUNC")] + [
    "MQMD", "MQMD1", "MQOD", "MQPMO", "MQGMO", "MQCNO", "MQTM", "MQTMC2", "MQXQH", "MQDLH",
    "MQBYTE", "MQCHAR", "MQINT64", "MQUINT64", "MQPTR"]
IBM_DOUBLE_POINTERS = ["MQBYTE", "MQCHAR", "MQLONG", "MQULONG", "MQINT8", "MQUINT8",
                       "MQINT16", "MQUINT16", "MQINT32", "MQUINT32", "MQINT64", "MQUINT64",
                       "MQFLOAT32", "MQFLOAT64", "MQHCONN", "MQHOBJ", "MQBOOL", "MQHMSG",
                       "MQVOID", "MQMD", "MQOD", "MQPMO", "MQGMO", "MQCNO"]
#: IBM's prototypes of the calls (cmqc.h; the MQI C reference), as pointer types.
IBM_CALLS = {
    "MQCONN": "PMQCHAR, PMQHCONN, PMQLONG, PMQLONG",
    "MQCONNX": "PMQCHAR, PMQCNO, PMQHCONN, PMQLONG, PMQLONG",
    "MQDISC": "PMQHCONN, PMQLONG, PMQLONG",
    "MQOPEN": "MQHCONN, PMQVOID, MQLONG, PMQHOBJ, PMQLONG, PMQLONG",
    "MQCLOSE": "MQHCONN, PMQHOBJ, MQLONG, PMQLONG, PMQLONG",
    "MQPUT": "MQHCONN, MQHOBJ, PMQVOID, PMQVOID, MQLONG, PMQVOID, PMQLONG, PMQLONG",
    "MQPUT1": "MQHCONN, PMQVOID, PMQVOID, PMQVOID, MQLONG, PMQVOID, PMQLONG, PMQLONG",
    "MQGET": "MQHCONN, MQHOBJ, PMQVOID, PMQVOID, MQLONG, PMQVOID, PMQLONG, PMQLONG, "
             "PMQLONG",
    "MQINQ": "MQHCONN, MQHOBJ, MQLONG, PMQLONG, MQLONG, PMQLONG, MQLONG, PMQCHAR, PMQLONG, "
             "PMQLONG",
    "MQSET": "MQHCONN, MQHOBJ, MQLONG, PMQLONG, MQLONG, PMQLONG, MQLONG, PMQCHAR, PMQLONG, "
             "PMQLONG",
    "MQCMIT": "MQHCONN, PMQLONG, PMQLONG",
    "MQBACK": "MQHCONN, PMQLONG, PMQLONG",
}


def _declarator(ctype: str, name: str) -> str:
    """``ctype`` declaring ``name``: "MQBYTE[4]" -> "MQBYTE name[4]"."""
    if ctype.endswith("]"):
        base, size = ctype[:-1].split("[")
        return f"{base} {name}[{size}]"
    return f"{ctype} {name}"


def test_ibm_types_and_call_prototypes_compile(tmp_path):
    """A program written with IBM's cmqc.h types compiles (-Wall -Wextra -Werror
    -pedantic): each type names what IBM's names, each P... and PP... pointer type
    exists, and each MQI call has IBM's prototype (a pointer to a function of IBM's
    parameter types takes it)."""
    lines = ["#include <cmqc.h>"]
    for name, ctype in IBM_TYPES.items():
        lines.append(f"typedef {_declarator(ctype, 'ibm_' + name)};")
        lines.append(f"{name} *same_{name}(ibm_{name} *p) {{ return p; }}")
    for name in IBM_POINTERS:
        lines.append(f"P{name} p_{name}({name} *p) {{ return p; }}")
    for name in IBM_DOUBLE_POINTERS:
        lines.append(f"PP{name} pp_{name}(P{name} *p) {{ return p; }}")
    for name, params in IBM_CALLS.items():
        lines.append(f"void (*call_{name})({params}) = {name};")
    source = tmp_path / "types.c"
    source.write_text("\n".join(lines) + "\n")
    subprocess.run(["cc", "-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror", "-c",
                    f"-I{INCLUDE}", "-o", str(tmp_path / "types.o"), str(source)], check=True)


def test_mq_64_bit_is_defined_as_ibm_s_64_bit_header_defines_it(tmp_path):
    """IBM's cmqc.h defines MQ_64_BIT on LP64 platforms; a program choosing its printf
    format for an MQLONG by it (%d when defined, else %ld) compiles with -Werror."""
    source = tmp_path / "fmt.c"
    source.write_text(
        "#include <stdio.h>\n#include <cmqc.h>\n"
        "#ifndef MQ_64_BIT\n#error MQ_64_BIT is not defined\n#endif\n"
        "int main(void) {\n    MQLONG reason = MQRC_NONE;\n"
        "#if defined(MQ_64_BIT)\n    printf(\"%d\\n\", reason);\n"
        "#else\n    printf(\"%ld\\n\", reason);\n#endif\n    return 0;\n}\n")
    subprocess.run(["cc", "-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror", "-c",
                    f"-I{INCLUDE}", "-o", str(tmp_path / "fmt.o"), str(source)], check=True)


def test_tpf_headers_compile_pedantic_with_the_ecb_layout(tmp_path):
    """tpf/tpfapi.h and tpf/c_eb0eb.h compile as ISO C; struct eb0eb has EBW000 at +0x008,
    the FARWs at +0x078 and the CBRWs at +0x100 (tpf-facts.md §1.1)."""
    source = tmp_path / "ecb.c"
    source.write_text(
        "#include <stddef.h>\n#include <stdio.h>\n#include <tpf/tpfapi.h>\n"
        "#include <tpf/cmqc.h>\n"
        "int main(void) { printf(\"%zu %zu %zu %zu %d %d\", offsetof(struct eb0eb, ebw000),"
        " offsetof(struct eb0eb, ce1fa), offsetof(struct eb0eb, ce1cr),"
        " sizeof(((struct eb0eb *)0)->ebw000), DF, L4); return 0; }\n")
    exe = tmp_path / "ecb"
    subprocess.run(["cc", "-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror",
                    f"-I{INCLUDE}", "-o", str(exe), str(source)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    assert out == f"8 120 256 104 15 {0x51}"


def test_runtime_refuses_a_layout_that_differs_from_cmqc_h():
    """The runtime checks tpfemu.mq.structs' layouts against cmqc.h when it starts: a
    field at another offset is refused, naming it."""
    from tpfemu._lowlevel import cprog as runtime
    from tpfemu.cprog import calls, loader

    fields = [loader._fields(c) for c in (structs.MD, structs.GMO, structs.PMO)]
    fields[0][9] = ("Priority", 44, 4, 1)  # one field moved
    try:
        with pytest.raises(TypeError, match="MQMD.Priority"):
            runtime.setup(calls, (structs.MD, structs.GMO, structs.PMO), tuple(fields))
    finally:
        loader._ready = False
        loader.ensure_runtime()


# -- the ROUTC bridge's layouts: tpf/c_am0sg.h and tpf/c_rc0pl.h equal tpfemu.bridge.layouts --

#: (C structure, Python struct of its header, C field names in order, the text field)
_BRIDGE_STRUCTS = [
    ("am0sg", "_AM0SG", ["am0bid", "am0chk", "am0ctl", "am0pgm", "am0fch", "am0bch", "am0cct",
                         "am0lni", "am0flg"], ("am0txt", "AM0SG_MAX_TEXT")),
    ("rc0pl", "_RCPL", ["rcpldes", "rcplorg", "rcplctl", "rcplrsv", "rcplext"], None),
]
#: C constant -> tpfemu.bridge.layouts' name
_BRIDGE_CONSTANTS = {
    "AM0SG_BLOCK_SIZE": "BLOCK_SIZE", "AM0SG_HEADER_SIZE": "AM0SG_HEADER_SIZE",
    "AM0SG_MAX_TEXT": "AM0SG_MAX_TEXT", "AM0SG_FROM_MQ": "AM0SG_FROM_MQ",
    "RCPL_BASIC_SIZE": "RCPL_BASIC_SIZE", "RCPL_SIZE": "RCPL_SIZE",
    "RCPL_DEST_PROGRAM": "RCPL_DEST_PROGRAM", "RCPL_ORIGIN_PROGRAM": "RCPL_ORIGIN_PROGRAM",
    "RCPL_AM0SG": "RCPL_AM0SG", "RCPL_FROM_MQ": "RCPL_FROM_MQ",
}

_BRIDGE_PROGRAM = r"""
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tpf/c_am0sg.h>
#include <tpf/c_rc0pl.h>
#include <tpf/tpfapi.h>

static void dump(const char *what, const void *p, size_t n) {
    printf("%s ", what);
    for (size_t i = 0; i < n; i++) printf("%02x", ((const unsigned char *)p)[i]);
    printf("\n");
}

int main(int argc, char **argv) {
    (void)argc;
    struct rc0pl in;
    for (size_t i = 0; i < sizeof in; i++) {
        char two[3] = {argv[1][2 * i], argv[1][2 * i + 1], 0};
        ((unsigned char *)&in)[i] = (unsigned char)strtoul(two, NULL, 16);
    }
    struct rc0pl reply = rcpl_reply(&in);
    dump("R", &reply, sizeof reply);
    struct am0sg m;
    memset(&m, 0xFF, sizeof m);
    if (am0sg_build(&m, argv[2], strlen(argv[2]), argv[3]) != 0) return 1;
    dump("A", &m, sizeof m);
    printf("L %zu %d\n", am0sg_length(&m), am0sg_valid(&m));
    static char big[AM0SG_MAX_TEXT + 1];
    printf("X %d\n", am0sg_build(&m, big, sizeof big, NULL));
    unsigned char be[4];
    tpf_set_be32(be, 0x01020304u);
    tpf_set_be16(be, tpf_be16(be) + 1);
    printf("E %lu\n", (unsigned long)tpf_be32(be));
"""


def _bridge_program() -> str:
    lines = [_BRIDGE_PROGRAM]
    for c_name in _BRIDGE_CONSTANTS:
        lines.append(f'    printf("I {c_name} %ld\\n", (long)({c_name}));')
    lines.append('    printf("I AM0SG_ID %02x%02x\\n", AM0SG_ID0, AM0SG_ID1);')
    for ctype, _, fields, text in _BRIDGE_STRUCTS:
        lines.append(f'    printf("S {ctype} %zu\\n", sizeof(struct {ctype}));')
        for name in fields + ([text[0]] if text else []):
            lines.append(f'    printf("F {ctype}.{name} %zu %zu\\n", offsetof(struct {ctype}, '
                         f'{name}), sizeof(((struct {ctype} *)0)->{name}));')
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def _bridge_run(tmp_path, *args: str) -> dict[str, str]:
    source, exe = tmp_path / "bridge.c", tmp_path / "bridge"
    source.write_text(_bridge_program())
    subprocess.run(["cc", "-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror",
                    f"-I{INCLUDE}", "-o", str(exe), str(source)], check=True)
    out = subprocess.run([str(exe), *args], check=True, capture_output=True, text=True).stdout
    values = {}
    for line in out.splitlines():
        kind, rest = line.split(" ", 1)
        if kind in ("I", "S", "F"):  # "KIND NAME VALUE"
            name, rest = rest.split(" ", 1)
            kind = f"{kind} {name}"
        values[kind] = rest
    return values


def _python_fields(struct_name: str) -> list[tuple[int, int]]:
    """(offset, size) of each field of one of tpfemu.bridge.layouts' struct formats."""
    import re
    import struct

    from tpfemu.bridge import layouts

    fmt = getattr(layouts, struct_name).format
    assert fmt.startswith(">")
    out, offset = [], 0
    for count, code in re.findall(r"(\d*)([a-zA-Z])", fmt[1:]):
        size = struct.calcsize(f">{count}{code}")
        out.append((offset, size))
        offset += size
    return out


def test_bridge_layout_headers_equal_tpfemu_bridge_layouts(tmp_path):
    """tpf/c_am0sg.h and tpf/c_rc0pl.h compile as ISO C and equal tpfemu/bridge/layouts.py,
    the one definition: every constant, every field's offset and size, each structure's
    size (the AM0SG a whole 381-byte block, the RCPL 16 bytes)."""
    from tpfemu.bridge import layouts

    printed = _bridge_run(tmp_path, "00" * 16, "", "CBAL")
    for c_name, py_name in _BRIDGE_CONSTANTS.items():
        assert int(printed[f"I {c_name}"]) == getattr(layouts, py_name), c_name
    assert bytes.fromhex(printed["I AM0SG_ID"]) == layouts.AM0SG_ID
    assert int(printed["S am0sg"]) == layouts.BLOCK_SIZE
    assert int(printed["S rc0pl"]) == layouts.RCPL_SIZE
    for ctype, py_struct, fields, text in _BRIDGE_STRUCTS:
        expected = dict(zip(fields, _python_fields(py_struct), strict=True))
        if text is not None:
            expected[text[0]] = (layouts.AM0SG_HEADER_SIZE, getattr(layouts, text[1]))
        for name, (offset, size) in expected.items():
            assert printed[f"F {ctype}.{name}"] == f"{offset} {size}", name
    assert int(printed["F am0sg.am0lni"].split()[0]) == layouts.AM0LNI


def test_bridge_header_helpers_build_what_python_reads(tmp_path):
    """rcpl_reply() gives Rcpl.reply()'s bytes, am0sg_build() Am0sg(...).pack()'s block
    (with the program stamp in EBCDIC), a text longer than 359 bytes is refused, and
    the big-endian helpers read and write z/Architecture's byte order."""
    from tpfemu.bridge import Am0sg, Lniata, Rcpl

    request = Rcpl("CBAL", Lniata.parse("0A0101"), from_mq=True)
    printed = _bridge_run(tmp_path, request.pack().hex(), "SEAT 12A", "QZ9A")
    assert bytes.fromhex(printed["R"]) == request.reply().pack()
    block = bytes.fromhex(printed["A"])
    assert block == Am0sg(b"SEAT 12A", program="QZ9A").pack()
    assert Am0sg.unpack(block) == Am0sg(b"SEAT 12A", program="QZ9A")
    assert printed["L"] == "8 1" and printed["X"] == "-1"
    assert printed["E"] == str(0x01030304)
