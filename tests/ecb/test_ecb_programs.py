"""The program table: names, loading, replacing, unknown programs."""

from __future__ import annotations

import pytest
from ecb_helpers import WAIT

from ecb import PROGRAM_NAME_RULE, ErrorCode, check_name


@pytest.mark.parametrize("name", ["QZZ1", "CUIR", "COA4", "A000", "ZZZZ"])
def test_valid_names(name):
    """Four characters, a letter then letters or digits, upper-case: accepted."""
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["qzz1", "Qzz1", "1ABC", "ABC", "ABCDE", "AB-C", "AB C", "", 1234])
def test_bad_names_are_value_errors_naming_the_rule(name, programs):
    """A bad name is refused with a ValueError that quotes the name and the naming rule."""
    with pytest.raises(ValueError) as info:
        programs.load(name, lambda ecb: None)
    assert repr(name) in str(info.value)
    assert PROGRAM_NAME_RULE in str(info.value)
    assert len(programs) == 0


def test_load_and_get(programs):
    """A loaded program is found by name with version 1."""

    def fn(ecb):
        return None

    program = programs.load("QZZ1", fn)
    assert programs.get("QZZ1") is program
    assert program.fn is fn and program.version == 1
    assert "QZZ1" in programs and list(programs) == ["QZZ1"]
    assert programs.get("QZZ2") is None


def test_loading_twice_replaces_with_new_version(programs, disp):
    """Loading a name again replaces the program; the next entry runs the new version."""
    seen = []
    programs.load("QZZ1", lambda ecb: seen.append("old"))
    disp.cremc("QZZ1")
    assert disp.wait_idle(WAIT)
    second = programs.load("QZZ1", lambda ecb: seen.append("new"))
    assert second.version == 2
    disp.cremc("QZZ1")
    assert disp.wait_idle(WAIT)
    assert seen == ["old", "new"]


def test_not_callable_is_type_error(programs):
    """Binding a name to something that is not callable is a TypeError."""
    with pytest.raises(TypeError):
        programs.load("QZZ1", "not a function")


def test_unload(programs):
    """Unloading removes the program; unloading an unknown name is a KeyError."""
    programs.load("QZZ1", lambda ecb: None)
    programs.unload("QZZ1")
    assert "QZZ1" not in programs
    with pytest.raises(KeyError):
        programs.unload("QZZ1")


def test_unknown_program_is_system_error_on_entry(programs, disp, console):
    """An entry for a name nothing is loaded under fails with E0201 naming the program."""
    disp.cremc("NONE")
    assert disp.wait_idle(WAIT)
    (dump,) = disp.dumps
    assert dump.code is ErrorCode.PROGRAM_NOT_FOUND
    assert "NONE" in dump.message
    assert disp.stats().failed == 1
    assert "E0201" in console.text


def test_create_checks_name_syntax_not_existence(programs, disp):
    """Creating an entry refuses a malformed name at once but accepts an unloaded one."""
    with pytest.raises(ValueError):
        disp.cremc("bad!")
    disp.cremc("LATE")
    assert disp.wait_idle(WAIT)
    assert disp.stats().created == 1
