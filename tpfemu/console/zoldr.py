"""ZOLDR: load C programs, modelled on TPF's E-type loader command (ours).

TPF loads program segments with its loader commands (ZOLDR for loadsets); their syntax
for a Linux shared object is not TPF's, so this form is tpfemu's own (docs/console.md)::

    ZOLDR LOAD QZZ1 /path/to/qzz1.so     load (or reload: a new version) program QZZ1
    ZOLDR DISPLAY [QZZ1]                 the C programs loaded, or one of them

Program names are upper-cased; the path is taken as written (no blanks in it). Every
response line is ``OLDRnnnnS <cpu> text``; a refused command changes nothing and says why.
"""

from __future__ import annotations

from typing import Any

__all__ = ["zoldr"]


def _load(system: Any, words: list[str]) -> str:
    cpu = system.cpu
    if len(words) != 2:
        return f"OLDR0003E {cpu} LOAD NEEDS A PROGRAM NAME AND A FILE: ZOLDR LOAD QZZ1 FILE"
    from tpfemu.cprog.loader import ProgramLoadError

    name, path = words[0].upper(), words[1]
    try:
        program = system.programs.load_shared(name, path)
    except (ValueError, ProgramLoadError) as exc:
        return f"OLDR0002E {cpu} PROGRAM {name} NOT LOADED - {exc}"
    version = system.programs.get(name).version
    return (f"OLDR0001I {cpu} PROGRAM {name} LOADED FROM {program.path} "
            f"ENTRY {program.symbol} VERSION {version}")


def _display(system: Any, words: list[str]) -> str:
    from tpfemu.cprog.loader import CProgram

    cpu = system.cpu
    wanted = {w.upper() for w in words}
    lines = []
    for name in system.programs:
        program = system.programs.get(name)
        if program is None or not isinstance(program.fn, CProgram):
            continue
        if wanted and name not in wanted:
            continue
        lines.append(f"OLDR0004I {cpu} {name} VERSION {program.version} "
                     f"{program.fn.path} ENTRY {program.fn.symbol}")
    if not lines:
        return f"OLDR0005I {cpu} NO C PROGRAMS LOADED" + (
            f" NAMED {' '.join(sorted(wanted))}" if wanted else "")
    return "\n".join(lines)


def zoldr(system: Any, text: str) -> str:
    """Run one ZOLDR command (the text after ZOLDR); never raises for a bad command."""
    words = text.split()
    verb = words[0].upper() if words else ""
    if verb == "LOAD":
        return _load(system, words[1:])
    if verb in ("DISPLAY", "DISP"):
        return _display(system, words[1:])
    return (f"OLDR0006E {system.cpu} UNKNOWN ZOLDR ACTION {verb or '(NONE)'!r} - "
            "LOAD AND DISPLAY ARE KNOWN")
