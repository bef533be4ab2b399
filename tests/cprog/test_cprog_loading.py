"""Loading C programs: load_shared, the load errors that name the file, reloading, the
ZOLDR console command, ``tpfemu run --load``, ``tpfemu cc`` and ``tpfemu exec``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cprog_helpers import PROGRAMS

from tpfemu.cprog.build import BuildError, compile_program, compiler_line
from tpfemu.cprog.execute import program_name
from tpfemu.cprog.loader import ProgramLoadError

TPFEMU = [sys.executable, "-m", "tpfemu"]


def test_missing_file_is_a_load_error_naming_it(system, tmp_path):
    """A file that does not exist: the error names it and loads nothing."""
    missing = tmp_path / "nothere.so"
    with pytest.raises(ProgramLoadError, match=str(missing)):
        system.programs.load_shared("QMIS", missing)
    assert "QMIS" not in system.programs


def test_missing_entry_function_is_a_load_error_naming_file_and_symbol(system, build):
    """A shared object without the function named as the program: the error names the
    file and the function it looked for."""
    path = build("nomain")
    with pytest.raises(ProgramLoadError, match=rf"{path}.*no entry function QNOM"):
        system.programs.load_shared("QNOM", path)


def test_wrong_architecture_is_a_load_error_naming_the_file(system, build, tmp_path):
    """A 32-bit ELF file (its class byte changed) is refused with the loader's reason and
    the file's name."""
    wrong = tmp_path / "wrong.so"
    data = bytearray(build("nomain").read_bytes())
    data[4] = 1  # EI_CLASS: ELFCLASS32
    wrong.write_bytes(bytes(data))
    with pytest.raises(ProgramLoadError, match=rf"{wrong}.*ELFCLASS32"):
        system.programs.load_shared("QWRG", wrong)


def test_unresolved_symbol_is_a_load_error_naming_the_file(system, build):
    """A program calling a function the runtime does not provide is refused at load."""
    path = build("unresolved")
    with pytest.raises(ProgramLoadError, match=rf"{path}.*tpf_no_such_call"):
        system.programs.load_shared("QUNR", path)


def test_missing_library_is_a_load_error_naming_the_file_and_the_library(system, tmp_path):
    """A program linked against a shared library that is gone: the error names the
    program's file and the missing library."""
    (tmp_path / "dep.c").write_text("int tpf_dep_value(void);\n"
                                    "int tpf_dep_value(void) { return 1; }\n")
    compile_program([tmp_path / "dep.c"], tmp_path / "libtpfdep.so")
    (tmp_path / "qdep.c").write_text("int tpf_dep_value(void);\n"
                                     "void QDEP(void);\n"
                                     "void QDEP(void) { (void)tpf_dep_value(); }\n")
    program = compile_program([tmp_path / "qdep.c"], tmp_path / "qdep.so",
                              [f"-L{tmp_path}", "-ltpfdep"])
    (tmp_path / "libtpfdep.so").unlink()
    with pytest.raises(ProgramLoadError, match=rf"{program}.*libtpfdep\.so"):
        system.programs.load_shared("QDEP", program)


def test_reloading_a_rebuilt_file_gives_a_new_version(system, tmp_path, results):
    """Loading a program again from a rebuilt file runs the new code (version 2)."""
    source = tmp_path / "qver.c"
    path = tmp_path / "qver.so"
    text = ('#include <string.h>\n#include <tpf/cmqc.h>\n'
            'void QVER(void) { MQHCONN h; MQLONG c, r; MQOD od = {MQOD_DEFAULT};\n'
            'MQMD md = {MQMD_DEFAULT}; MQPMO p = {MQPMO_DEFAULT};\n'
            'strncpy(od.ObjectName, "RESULT.Q", 48); MQCONN("", &h, &c, &r);\n'
            'MQPUT1(h, &od, &md, &p, 2, "%s", &c, &r); }\n')
    for version in ("v1", "v2"):
        source.write_text(text % version)
        compile_program([source], path)
        system.programs.load_shared("QVER", path)
        system.dispatcher.cremc("QVER")
        assert results.next() == version.encode()
    assert system.programs.get("QVER").version == 2


def test_zoldr_load_and_display(system, build):
    """ZOLDR LOAD loads a C program under its name and says so; DISPLAY lists it; a bad
    file is refused naming it, and loads nothing."""
    path = build("ecbcalls")
    response = system.console(f"ZOLDR LOAD qcr2 {path}")
    assert response.startswith(f"OLDR0001I {system.cpu} PROGRAM QCR2 LOADED FROM {path}")
    assert "QCR2" in system.programs
    assert f"QCR2 VERSION 1 {path} ENTRY QCR2" in system.console("ZOLDR DISPLAY")
    bad = system.console(f"ZOLDR LOAD QXXX {path}.missing")
    assert bad.startswith(f"OLDR0002E {system.cpu} PROGRAM QXXX NOT LOADED")
    assert f"{path}.missing" in bad and "QXXX" not in system.programs
    assert system.console("ZOLDR LOAD QXXX").startswith("OLDR0003E")
    assert system.console("ZOLDR FLY").startswith("OLDR0006E")


def test_compiler_line_has_headers_warnings_and_exit_wrap():
    """The documented compiler line compiles against the shipped headers with -Wall
    -Wextra -Werror and wraps exit() and abort()."""
    line = compiler_line(["a.c"], "a.so")
    for flag in ("-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-Wl,--wrap=exit"):
        assert flag in line
    assert any(f.startswith("-I") and Path(f[2:], "cmqc.h").is_file() for f in line)


def test_compile_error_is_reported_with_the_compilers_message(tmp_path):
    """A warning is an error (-Werror); the BuildError carries the compiler's message."""
    source = tmp_path / "warn.c"
    source.write_text("void QWRN(void) { int unused; }\n")
    with pytest.raises(BuildError, match="unused"):
        compile_program([source], tmp_path / "warn.so")


def test_exec_program_names():
    """tpfemu exec names a main() program after its file: four letters or digits."""
    assert program_name("/x/sput.so") == "SPUT"
    assert program_name("amqsbcg.so") == "AMQS"
    assert program_name("a.so") == "AXXX"
    assert program_name("42.so") == "MAIN"


def _tpfemu(*args: str, stdin: str = "", cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, TPFEMU_HOME="")
    env.pop("TPFEMU_HOME")
    return subprocess.run([*TPFEMU, *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def test_tpfemu_cc_and_exec_put_stdin_lines_and_get_them_back(tmp_path):
    """`tpfemu cc` builds main() programs written like IBM's samples; `tpfemu exec` runs
    the first with a home and a script, putting the lines of its stdin; on the same home a
    browse prints them (and leaves them), then a get prints them back in order on its
    stdout; exit codes are main's (2: no message left)."""
    for name in ("sput", "sget", "sbcg"):
        done = _tpfemu("cc", "-o", str(tmp_path / f"{name}.so"), str(PROGRAMS / f"{name}.c"),
                       cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    script = tmp_path / "setup.mqsc"
    script.write_text("ZMQSC DEF MQP\nZMQSC DEF QL-APP.LINES DEFPSIST-YES\n")
    home = str(tmp_path / "home")
    put = _tpfemu("exec", "--home", home, "--script", str(script), "sput.so", "APP.LINES",
                  stdin="first line\nsecond line\nthe third\n", cwd=tmp_path)
    assert put.returncode == 0, put.stderr
    assert put.stdout == "sput: 3 message(s) put\n"
    assert "QL APP.LINES DEFINED" in put.stderr
    browsed = _tpfemu("exec", "--home", home, "sbcg.so", "APP.LINES", cwd=tmp_path)
    assert browsed.returncode == 0, browsed.stderr
    assert browsed.stdout.count("message ") == 3
    assert "  Format         : 'MQSTR   '\n" in browsed.stdout
    assert "  PutApplName    : 'SPUT" in browsed.stdout
    assert "  data           : 'the third'\n" in browsed.stdout
    got = _tpfemu("exec", "--home", home, "sget.so", "APP.LINES", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert got.stdout == ("message <first line>\nmessage <second line>\n"
                          "message <the third>\n")
    again = _tpfemu("exec", "--home", home, "sget.so", "APP.LINES", cwd=tmp_path)
    assert again.returncode == 2 and again.stdout == ""


def test_tpfemu_run_load_option(tmp_path, build):
    """`tpfemu run --load NAME=FILE` loads the C program before the scripts run (ZOLDR
    DISPLAY shows it); a malformed value is a usage error (exit 2)."""
    path = build("ecbcalls")
    done = _tpfemu("run", "--load", f"QCR2={path}", stdin="ZOLDR DISPLAY\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"QCR2 VERSION 1 {path}" in done.stdout
    bad = _tpfemu("run", "--load", "QCR2", stdin="", cwd=tmp_path)
    assert bad.returncode == 2 and "NAME=FILE" in bad.stderr
