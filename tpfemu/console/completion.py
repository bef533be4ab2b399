"""Tab completion for the interactive console: verbs, object types, keywords, values, names.

:func:`candidates` takes the line typed so far and returns the words that may complete its
last word (upper case, as the console shows them). It reads the same tables as the help
(:mod:`tpfemu.console.help`), so a verb, object type or keyword added to the command
tables is completed without a change here:

- the first word: the console commands (``ZMQSC``, ``ZINET``, ...) and ``HELP``/``END``/``EXIT``;
- after ``ZMQSC``: its verbs and their abbreviations; after the verb, the object types it
  takes (``QL-``); after ``QL-``, the names of the defined local queues;
- then the verb's keywords for that object (``MAXDEPTH-``, switches such as ``REPLACE``),
  and after ``KEYWORD-`` the values an enumerated keyword accepts;
- after ``ZINET``: its verbs, then its keywords; after ``HELP``: the verbs.
"""

from __future__ import annotations

from typing import Any

from tpfemu.console import help as console_help

__all__ = ["candidates"]


def _match(prefix: str, words: list[str]) -> list[str]:
    upper = prefix.upper()
    return sorted({w for w in words if w.startswith(upper)})


def _names(host: Any, obj: str) -> list[str]:
    """Names of the defined objects of type ``obj`` (queues for ``Q`` and ``TRIGMON``)."""
    kind = {"TRIGMON": "QL"}.get(obj, obj)
    if kind in ("MQP", "QMGR"):
        return []
    try:
        return [d.name for d in host.qmgr.catalog.list(kind, "*")]
    except Exception:  # noqa: BLE001 - completion must never break the console
        return []


def _zmqsc(host: Any, words: list[str], last: str) -> list[str]:
    from tpfemu.console.parser import VERB_OBJECTS, VERBS
    from tpfemu.qmgr.objects import DEFINITION_TYPES

    if not words:
        return _match(last, list(VERBS))
    verb = VERBS.get(words[0].upper())
    if verb is None:
        return []
    objects = list(VERB_OBJECTS.get(verb, ()))
    if len(words) == 1:
        if "-" in last:
            obj, _, name = last.partition("-")
            return [f"{obj.upper()}-{n}" for n in _match(name, _names(host, obj.upper()))]
        return _match(last, [o if o in ("QMGR", "MQP") else o + "-" for o in objects])
    obj = words[1].split("-", 1)[0].upper()
    keywords = console_help.verb_keywords(verb, obj)
    if "-" in last:
        key, _, value = last.partition("-")
        spec = _spec(DEFINITION_TYPES.get(obj), key.upper())
        values = list(getattr(spec, "values", ()) or ())
        if key.upper() in ("PROCESS", "INITQ", "XMITQ", "TARGQ", "RNAME"):
            values = _names(host, "PROC" if key.upper() == "PROCESS" else "QL")
        elif key.upper() in objects:  # an object operand (SWQ QL-from QL-to)
            values = _names(host, key.upper())
        return [f"{key.upper()}-{v}" for v in _match(value, values)]
    given = {w.split("-", 1)[0].upper() for w in words[2:]}
    return _match(last, [k.keyword if "switch" in k.accepts else k.keyword + "-"
                         for k in keywords if k.keyword not in given])


def _spec(cls: Any, keyword: str) -> Any:
    if cls is None:
        return None
    for spec in cls.ATTRS.values():
        if spec.keyword == keyword:
            return spec
    return None


def _zinet(words: list[str], last: str) -> list[str]:
    from tpfemu.console import zinet

    if not words:
        return _match(last, list(zinet._VERBS))
    verb = zinet._VERBS.get(words[0].upper())
    if verb is None or "-" in last:
        return []
    keys = [w for k in console_help.zinet_keywords(verb) for w in k.keyword.split("/")]
    return _match(last, [k + "-" for k in keys])


def candidates(host: Any, line: str) -> list[str]:
    """The completions of the last word of ``line`` (the text before the cursor)."""
    words = line.split()
    last = "" if not line or line[-1].isspace() else words.pop()
    if not words:
        return _match(last, console_help.command_names() + list(console_help.SESSION_WORDS))
    head, rest = words[0].upper(), words[1:]
    if head == "ZMQSC":
        return _zmqsc(host, rest, last)
    if head == "ZINET":
        return _zinet(rest, last)
    if head == "HELP":
        from tpfemu.console.parser import VERBS

        return _match(last, list(VERBS) + ["ZINET"]) if not rest else []
    return []
