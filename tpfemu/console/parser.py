"""Reading a ZMQSC command line: tokens, verb, object and operands.

TPF's operator syntax (tpf-facts §2.1) is ``ZMQSC <VERB> <OBJTYPE>-<name> KEYWORD-value ...``
with a dash, not parentheses, between a keyword and its value::

    ZMQSC DEF QL-APP.IN MAXDEPTH-100 TRIGTYPE-EVERY PROCESS-APP.PROC DESCR-'Payroll input'

Rules:

- Operands are separated by blanks. A value in single quotes keeps its case and may hold
  blanks; a quote inside it is written twice (``DESCR-'Operator''s queue'``); ``''`` is
  the empty value. Everything not quoted is upper-cased, keywords always.
- The value is everything after the *first* dash, so values may contain dashes
  (``CONNAME-NY-HOST.EXAMPLE.COM``).
- A word without a dash is a switch (``TRIGGER``, ``NOTRIGGER``, ``REPLACE``) or an object
  type without a name (``MQP``, ``QMGR``, ``DISP QL`` for all local queues).
- Control characters are refused anywhere; so is a quote that does not open a value, a
  value that does not end at its closing quote, an unterminated quote and ``KEYWORD-``
  with nothing after the dash.

:func:`parse` turns the text after ``ZMQSC`` into a :class:`Command` or raises
:class:`ParseError` naming the token at fault and a console message
(:mod:`tpfemu.console.messages`). What a keyword *means* for an object is decided by
:mod:`tpfemu.console.zmqsc`, which maps keywords onto the catalog's attribute specs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tpfemu.console import messages as m

__all__ = [
    "Command",
    "ParseError",
    "Token",
    "VERBS",
    "VERB_OBJECTS",
    "parse",
    "tokenize",
]

#: Every verb spelling ZMQSC accepts -> the verb it stands for.
VERBS: dict[str, str] = {
    "DEFINE": "DEFINE", "DEF": "DEFINE",
    "ALTER": "ALTER", "ALT": "ALTER",
    "DELETE": "DELETE", "DEL": "DELETE",
    "DISPLAY": "DISPLAY", "DISP": "DISPLAY", "DIS": "DISPLAY",
    "CLEAR": "CLEAR",
    "START": "START",
    "STOP": "STOP",
    "SWQ": "SWQ",
    "RESET": "RESET",
    "RESOLVE": "RESOLVE",
}  # fmt: skip

_DEFINABLE = ("MQP", "QL", "QA", "QR", "PROC", "CHL")
#: The object types each verb acts on (``Q`` = every queue type, for DISPLAY).
VERB_OBJECTS: dict[str, tuple[str, ...]] = {
    "DEFINE": _DEFINABLE,
    "ALTER": _DEFINABLE,
    "DELETE": _DEFINABLE,
    "DISPLAY": ("MQP", "QL", "QA", "QR", "Q", "PROC", "CHL", "QMGR", "TRIGMON"),
    "CLEAR": ("QL",),
    "START": ("QMGR", "CHL", "TRIGMON"),
    "STOP": ("QMGR", "CHL", "TRIGMON"),
    "SWQ": ("QL",),
    "RESET": ("CHL",),
    "RESOLVE": ("CHL",),
}
#: Object types that take no name, or whose name may be left out.
NAMELESS = ("MQP", "QMGR")

_KEYWORD = re.compile(r"[A-Z][A-Z0-9]*")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029]")
_BLANKS = " \t"


class ParseError(Exception):
    """A command line that cannot be read; ``line(cpu)`` is the console's E message."""

    def __init__(self, msg: m.Msg, **fields: object) -> None:
        self.msg = msg
        self.fields = fields
        super().__init__(msg.template.format(**{k: m.shorten(v) for k, v in fields.items()}))

    def line(self, cpu: str) -> str:
        """The console message for processor ``cpu``."""
        return self.msg.line(cpu, **self.fields)


@dataclass(frozen=True)
class Token:
    """One operand as typed.

    ``key`` is the upper-cased part before the first dash (the whole word for a switch);
    ``value`` the part after it (upper-cased unless ``quoted``), None for a switch.
    """

    text: str
    key: str
    value: str | None = None
    quoted: bool = False

    @property
    def is_switch(self) -> bool:
        """True for a word without a dash (``TRIGGER``, ``REPLACE``, ``MQP``)."""
        return self.value is None


@dataclass(frozen=True)
class Command:
    """A command line read into its parts.

    ``obj`` is the object type (``QL``...), ``name`` its name or None (upper-cased unless
    ``name_quoted``), ``operands`` the tokens after the object.
    """

    verb: str
    obj: str
    name: str | None
    operands: tuple[Token, ...] = field(default_factory=tuple)
    name_quoted: bool = False
    text: str = ""


def _split(text: str) -> list[str]:
    """Split at blanks outside quotes; a quote runs to the next lone quote (``''`` is one)."""
    tokens: list[str] = []
    current: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _BLANKS:
            if current:
                tokens.append("".join(current))
                current = []
            i += 1
            continue
        if c == "'":
            start = i
            current.append(c)
            i += 1
            while True:
                if i >= n:
                    raise ParseError(m.SYNTAX, token="".join(current) or text[start:],
                                     problem="THE QUOTE IS NOT CLOSED")
                current.append(text[i])
                if text[i] == "'":
                    if i + 1 < n and text[i + 1] == "'":  # a doubled quote stands for one
                        current.append("'")
                        i += 2
                        continue
                    i += 1
                    break
                i += 1
            continue
        current.append(c)
        i += 1
    if current:
        tokens.append("".join(current))
    return tokens


def _value(token: str, raw: str) -> tuple[str, bool]:
    """The value of a token (after its first dash): unquoted upper-cased, or a quoted string."""
    if not raw:
        raise ParseError(m.SYNTAX, token=token,
                         problem="NO VALUE AFTER THE DASH; USE KEYWORD-'' FOR AN EMPTY VALUE")
    if raw.startswith("'"):
        if len(raw) < 2 or not raw.endswith("'"):
            raise ParseError(m.SYNTAX, token=token,
                             problem="TEXT AFTER THE CLOSING QUOTE; QUOTE THE WHOLE VALUE")
        inner = raw[1:-1]
        # Inside, every quote must be doubled; a lone one means the value ended early.
        if inner.replace("''", "").count("'"):
            raise ParseError(m.SYNTAX, token=token,
                             problem="TEXT AFTER THE CLOSING QUOTE; QUOTE THE WHOLE VALUE")
        return inner.replace("''", "'"), True
    if "'" in raw:
        raise ParseError(m.SYNTAX, token=token,
                         problem="A QUOTE MUST OPEN THE VALUE: KEYWORD-'TEXT'")
    return raw.upper(), False


def _token(text: str) -> Token:
    head, dash, rest = text.partition("-")
    if "'" in head:
        raise ParseError(m.SYNTAX, token=text,
                         problem="A KEYWORD CANNOT BE QUOTED; QUOTE ONLY THE VALUE: KEYWORD-'TEXT'")
    key = head.upper()
    if not _KEYWORD.fullmatch(key):
        problem = "NO KEYWORD BEFORE THE DASH" if not key else "NOT A KEYWORD"
        raise ParseError(m.SYNTAX, token=text, problem=problem)
    if not dash:
        return Token(text, key)
    value, quoted = _value(text, rest)
    return Token(text, key, value, quoted)


def tokenize(text: str) -> list[Token]:
    """Read a line into tokens. :raises ParseError: naming the token at fault."""
    bad = _CONTROL.search(text)
    if bad is not None:
        raise ParseError(m.SYNTAX, token=repr(bad.group()),
                         problem="CONTROL CHARACTERS ARE NOT ALLOWED")
    return [_token(raw) for raw in _split(text)]


def parse(text: str) -> Command:
    """Read the text after ``ZMQSC`` into a Command.

    Checks the verb, that the object type suits it, and the object's name (present
    where needed, absent for QMGR); the operands are left to the verb.

    :raises ParseError: with the console message saying what is wrong.
    """
    tokens = tokenize(text)
    verbs = ", ".join(sorted(set(VERBS.values())))
    if not tokens:
        raise ParseError(m.EMPTY, verbs=verbs)
    first = tokens[0]
    verb = VERBS.get(first.key) if first.is_switch else None
    if verb is None:
        raise ParseError(m.UNKNOWN_VERB, verb=first.text, verbs=verbs)
    objects = VERB_OBJECTS[verb]
    if len(tokens) < 2:
        raise ParseError(m.UNKNOWN_OBJECT, verb=verb, obj="NOTHING", objects=", ".join(objects))
    target = tokens[1]
    obj = target.key
    if obj not in objects:
        raise ParseError(m.UNKNOWN_OBJECT, verb=verb, obj=target.text, objects=", ".join(objects))
    name = target.value
    if obj == "QMGR" and name is not None:
        raise ParseError(m.NO_NAME_ALLOWED, verb=verb, obj=obj, token=target.text)
    if name is None and obj not in _nameless(verb):
        raise ParseError(m.NAME_NEEDED, verb=verb, obj=obj, rule=_rule(obj))
    return Command(verb, obj, name, tuple(tokens[2:]), target.quoted, text)


def _nameless(verb: str) -> tuple[str, ...]:
    """Object types ``verb`` accepts without a name (DISPLAY: every type, meaning all)."""
    if verb == "DISPLAY":
        return VERB_OBJECTS["DISPLAY"]
    return NAMELESS


def _rule(obj: str) -> str:
    if obj == "CHL":
        return "1 TO 20 CHARACTERS"
    return "1 TO 48 CHARACTERS"
