"""The console's ``help``: generated from the tables that validate commands.

``help`` lists the console commands and the ZMQSC verbs; ``help <verb>`` (``help DEF``,
``help ZMQSC DEF``, ``help DEF QL``) shows the objects a verb takes and, for each, the
keywords with what they accept and their defaults. Nothing here is written by hand about a
keyword: the verbs and their objects come from :data:`tpfemu.console.parser.VERBS` and
:data:`~tpfemu.console.parser.VERB_OBJECTS`, the keywords from the definition types'
attribute specs (:data:`tpfemu.qmgr.objects.DEFINITION_TYPES`) and the channel verbs'
operand specs, the switches from :mod:`tpfemu.console.zmqsc`'s tables, ZINET's from
:mod:`tpfemu.console.zinet`. A verb, object type or keyword added to those tables appears
in the help (and in completion, :mod:`tpfemu.console.completion`) with no change here.

Every help line is a console message ``CONS0010I <cpu> text`` like any other response.
"""

from __future__ import annotations

import importlib
import pkgutil
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Keyword", "command_names", "help_lines", "verb_keywords", "zinet_keywords"]

HELP_ID = "CONS0010I"
_ACCEPTS_WIDTH = 50  # a longer ACCEPTS text wraps within its column
UNKNOWN_ID = "CONS0011E"
#: Words the interactive console itself understands (not sent to the system).
SESSION_WORDS = {"HELP": "THIS HELP; HELP <VERB> FOR A VERB'S KEYWORDS",
                 "END": "LEAVE THE CONSOLE (AS ZMQSC STOP QMGR)",
                 "EXIT": "LEAVE THE CONSOLE (AS ZMQSC STOP QMGR)"}


@dataclass(frozen=True)
class Keyword:
    """One keyword as help shows it: name, what it accepts, its default ('' for none)."""

    keyword: str
    accepts: str
    default: str = ""
    note: str = ""


def command_names() -> list[str]:
    """The console's top-level commands: each module ``tpfemu.console.zxxx`` that has a
    function ``zxxx`` (ZMQSC, ZINET and any added later)."""
    import tpfemu.console as package

    names = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("z") and not info.ispkg:
            module = importlib.import_module(f"tpfemu.console.{info.name}")
            if callable(getattr(module, info.name, None)):
                names.append(info.name.upper())
    return sorted(names)


def _spec_keyword(spec: Any, *, alter: bool = False) -> Keyword:
    default = spec.default
    shown = "" if default is None else (repr(default) if default == "" else str(default))
    note = "required" if getattr(spec, "required", False) else ""
    if note:
        shown = ""  # a required keyword's default is never used
    if alter and not getattr(spec, "alterable", True):
        note = "not alterable"
    return Keyword(spec.keyword, spec.accepted, shown, note)


def verb_keywords(verb: str, obj: str) -> list[Keyword]:
    """The keywords (and switches) ZMQSC ``verb`` accepts for object type ``obj``."""
    from tpfemu.console import zmqsc
    from tpfemu.qmgr.objects import DEFINITION_TYPES

    keywords: list[Keyword] = []
    cls = DEFINITION_TYPES.get(obj)
    if verb in ("DEFINE", "ALTER") and cls is not None:
        keywords = [_spec_keyword(spec, alter=verb == "ALTER") for spec in cls.ATTRS.values()]
    channel_operands: Mapping[str, Any] = getattr(zmqsc, "_CHANNEL_OPERANDS", {})
    if obj == "CHL" and verb in channel_operands:
        keywords = [_spec_keyword(spec) for spec in channel_operands[verb].values()]
    switches = getattr(zmqsc, "SWITCHES", {})
    for switch in switches.get(verb, ()) + switches.get((verb, obj), ()):
        keywords.append(Keyword(switch, "switch (no value)"))
    if verb == "SWQ":
        keywords.append(Keyword("QL", "the target transmission queue (none: end the swing)"))
    return keywords


def zinet_keywords(verb: str) -> list[Keyword]:
    """The keywords ZINET ``verb`` accepts (from ZINET's own tables), with their aliases."""
    from tpfemu.console import zinet

    allowed = zinet._ALLOWED.get(verb, frozenset())
    by_field: dict[str, list[str]] = {}
    for keyword, field_name in zinet._KEYWORDS.items():
        if field_name in allowed:
            by_field.setdefault(field_name, []).append(keyword)
    return [Keyword("/".join(sorted(words, key=len)), field_name)
            for field_name, words in sorted(by_field.items())]


def _table(rows: list[Keyword], heads: tuple[str, str] = ("ACCEPTS", "DEFAULT")) -> list[str]:
    """Keywords as aligned columns: KEYWORD  ACCEPTS  DEFAULT; a long ACCEPTS text wraps
    within its column."""
    width = max(len("KEYWORD"), *(len(k.keyword) for k in rows))
    cells = [textwrap.wrap(k.accepts, _ACCEPTS_WIDTH) or [""] for k in rows]
    accepts = max(len(heads[0]), *(len(line) for cell in cells for line in cell))
    lines = [f"  {'KEYWORD':<{width}}  {heads[0]:<{accepts}}  {heads[1]}".rstrip()]
    for k, cell in zip(rows, cells, strict=True):
        default = " ".join(filter(None, [k.default, f"({k.note})" if k.note else ""]))
        lines.append(f"  {k.keyword:<{width}}  {cell[0]:<{accepts}}  {default}".rstrip())
        lines.extend(f"  {'':<{width}}  {more}".rstrip() for more in cell[1:])
    return lines


def _zmqsc_verbs() -> dict[str, list[str]]:
    """Verb -> its spellings (full name first)."""
    from tpfemu.console.parser import VERBS

    spellings: dict[str, list[str]] = {}
    for spelling, verb in VERBS.items():
        spellings.setdefault(verb, []).append(spelling)
    for verb, words in spellings.items():
        words.sort(key=lambda w: (w != verb, len(w)))
    return spellings


def _overview() -> list[str]:
    from tpfemu.console.parser import VERB_OBJECTS

    lines = ["CONSOLE COMMANDS: " + ", ".join(command_names())]
    lines.append("ZMQSC <VERB> <OBJECT>-<NAME> KEYWORD-VALUE ... ; VERBS:")
    spellings = _zmqsc_verbs()
    width = max(len(" ".join(words)) for words in spellings.values())
    for verb in sorted(spellings):
        words = " ".join(spellings[verb])
        lines.append(f"  {words:<{width}}  {' '.join(VERB_OBJECTS.get(verb, ()))}")
    lines.append("CONSOLE: " + "; ".join(f"{w} - {t}" for w, t in SESSION_WORDS.items()))
    lines.append("MQSC FORMS SUCH AS DEFINE QLOCAL(X) ARE ANSWERED WITH THEIR ZMQSC FORM")
    return lines


def _verb_help(verb: str, objects: list[str]) -> list[str]:
    from tpfemu.console.parser import VERB_OBJECTS

    also = [word for word in _zmqsc_verbs()[verb] if word != verb]
    spelled = f"{verb} ({' '.join(also)})" if also else verb
    if len(objects) == 1 and len(VERB_OBJECTS[verb]) > 1:  # HELP ALT PROC: that object only
        lines = [f"ZMQSC {spelled} {objects[0]}-<NAME> KEYWORD-VALUE ..."]
    else:
        lines = [f"ZMQSC {spelled} <OBJECT>-<NAME> ... - OBJECTS: "
                 + " ".join(VERB_OBJECTS[verb])]
    bare = [obj for obj in objects if not verb_keywords(verb, obj)]
    if bare:
        lines.append(f"{verb} {' '.join(bare)}: NO KEYWORDS")
    for obj in objects:
        keywords = verb_keywords(verb, obj)
        if keywords:
            lines.append(f"{verb} {obj}:")
            lines.extend(_table(keywords))
    return lines


def _zinet_help(words: list[str]) -> list[str]:
    from tpfemu.console import zinet

    verbs = sorted(set(zinet._VERBS.values()))
    if not words:
        return ["ZINET <VERB> S-<SERVER> KEYWORD-VALUE ... ; VERBS: " + ", ".join(verbs),
                "HELP ZINET <VERB> FOR ITS KEYWORDS"]
    verb = zinet._VERBS.get(words[0])
    if verb is None:
        return []
    return [f"ZINET {verb}:"] + _table(zinet_keywords(verb), ("SETS", ""))


def _module_help(command: str) -> list[str]:
    """A console command without its own tables: the first paragraph of its docstring."""
    module = importlib.import_module(f"tpfemu.console.{command.lower()}")
    text = (module.__doc__ or "").strip().split("\n\n", 1)[0]
    return [" ".join(text.split())] if text else [f"{command}: NO HELP"]


def help_lines(cpu: str, text: str = "") -> list[str]:
    """The response to ``HELP [words]``, as console lines (``CONS0010I``, or ``CONS0011E``
    naming the unknown word)."""
    from tpfemu.console.parser import VERB_OBJECTS, VERBS

    words = text.upper().split()
    if words and words[0] == "ZMQSC":
        words = words[1:]
    if not words:
        body = _overview()
    elif words[0] == "ZINET":
        body = _zinet_help(words[1:])
    elif words[0] in VERBS:
        verb = VERBS[words[0]]
        objects = list(VERB_OBJECTS[verb])
        if len(words) > 1:
            obj = words[1].split("-", 1)[0].split("(", 1)[0]
            if obj not in objects:
                return [f"{UNKNOWN_ID} {cpu} {verb} TAKES NO OBJECT {words[1]} - "
                        f"IT TAKES {' '.join(objects)}"]
            objects = [obj]
        body = _verb_help(verb, objects)
    elif words[0] in command_names():
        body = _module_help(words[0])
    else:
        body = []
    if not body:
        return [f"{UNKNOWN_ID} {cpu} NO HELP FOR {' '.join(words)} - HELP LISTS THE COMMANDS"]
    return [f"{HELP_ID} {cpu} {line}" for line in body]
