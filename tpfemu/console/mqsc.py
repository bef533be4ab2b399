"""MQSC-style commands (runmqsc's ``DEFINE QLOCAL(X) MAXDEPTH(100)``) and their ZMQSC form.

The console runs TPF's commands only. A command written as runmqsc takes it — an MQSC
verb first, object types such as ``QLOCAL``, values in parentheses — is not run: it is
answered with the ZMQSC command that does the same thing, so that an MQ administrator
finds the TPF form::

    DEFINE QLOCAL(APP.IN) MAXDEPTH(100)
    CONS0003E B MQSC SYNTAX IS NOT RUN - THE ZMQSC FORM IS: ZMQSC DEF QL-APP.IN MAXDEPTH-100

:func:`zmqsc_form` does the translation (None when the text does not look like MQSC);
a ZMQSC command written with parentheses (``ZMQSC DIS QL(X)``) gets the same hint after
its syntax error. The verbs are the ZMQSC verbs (:data:`tpfemu.console.parser.VERBS`,
plus runmqsc's ``STA``); keywords pass through unchanged, except the few MQSC spells
differently for the same attribute (:data:`KEYWORDS`: ``APPLICID`` is ``APPLID``), so
the hint is checked by the same rules as any typed command once it is entered.
"""

from __future__ import annotations

__all__ = ["KEYWORDS", "OBJECT_TYPES", "hint_line", "zmqsc_form"]

HINT_ID = "CONS0003E"
#: runmqsc object types -> the ZMQSC object type.
OBJECT_TYPES: dict[str, str] = {
    "QLOCAL": "QL", "QL": "QL", "QALIAS": "QA", "QA": "QA", "QREMOTE": "QR", "QR": "QR",
    "QUEUE": "Q", "Q": "Q", "PROCESS": "PROC", "PRO": "PROC", "PROC": "PROC",
    "CHANNEL": "CHL", "CHL": "CHL", "QMGR": "QMGR", "MQP": "MQP",
}  # fmt: skip
#: MQSC keywords whose ZMQSC keyword is spelled differently, for the same attribute:
#: DEFINE PROCESS's APPLICID and ENVRDATA, DEFINE QALIAS's TARGET (TARGQ's newer name)
#: and DEFINE CHANNEL's NPMSPEED (TPF's fast/normal channels).
KEYWORDS: dict[str, str] = {
    "APPLICID": "APPLID", "ENVRDATA": "ENVDATA", "TARGET": "TARGQ", "NPMSPEED": "SPEED",
}  # fmt: skip
_EXTRA_VERBS = {"STA": "START", "DISP": "DISPLAY"}
_SHORT = {"DEFINE": "DEF", "ALTER": "ALT", "DELETE": "DEL", "DISPLAY": "DISP"}


def _words(text: str) -> list[tuple[str, str | None]] | None:
    """MQSC words: ``(KEY, value)`` for ``KEY(value)``, ``(WORD, None)`` for a bare word;
    None when the parentheses or quotes do not match."""
    words: list[tuple[str, str | None]] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace() or text[i] == ",":
            i += 1
            continue
        start = i
        while i < n and not text[i].isspace() and text[i] not in "(,":
            i += 1
        key = text[start:i]
        if i < n and text[i] == "(":
            i += 1
            value_start, quoted = i, False
            while i < n and (quoted or text[i] != ")"):
                if text[i] == "'":
                    quoted = not quoted
                i += 1
            if i >= n:
                return None
            words.append((key, text[value_start:i].strip()))
            i += 1
        else:
            words.append((key, None))
    return words


def _value(value: str) -> str:
    """An MQSC value in ZMQSC: quoted text stays quoted, an empty value is ``''``."""
    if value == "":
        return "''"
    if value.startswith("'") and value.endswith("'") and len(value) >= 2:
        return value
    return value.upper() if " " not in value else "'" + value.replace("'", "''") + "'"


def zmqsc_form(text: str) -> str | None:
    """The ZMQSC command for an MQSC-style command, or None if ``text`` is not one.

    ``text`` may start with ``ZMQSC`` (a ZMQSC command written with parentheses), or be a
    ZMQSC command typed without ``ZMQSC`` in front (``DISP QL-X``).
    """
    from tpfemu.console.parser import VERBS

    words = _words(text.strip())
    if not words:
        return None
    if words[0][0].upper() == "ZMQSC" and words[0][1] is None:
        words = words[1:]
    if len(words) < 2 or words[0][1] is not None:
        return None
    verb = VERBS.get(words[0][0].upper()) or _EXTRA_VERBS.get(words[0][0].upper())
    obj_word, name = words[1][0].upper(), words[1][1]
    if "(" not in text and obj_word.partition("-")[0] in OBJECT_TYPES.values() and \
            words[0][0].upper() in VERBS and not text.strip().upper().startswith("ZMQSC"):
        return "ZMQSC " + text.strip()  # a ZMQSC command typed without ZMQSC: as typed
    obj = OBJECT_TYPES.get(obj_word)
    if verb is None or obj is None:
        return None
    if obj == "QMGR" and verb in ("DEFINE", "ALTER"):
        obj = "MQP"  # the queue manager's attributes are its profile's on TPF
    target = obj if name is None or obj in ("QMGR", "MQP") else f"{obj}-{_value(name)}"
    parts = ["ZMQSC", _SHORT.get(verb, verb), target]
    for key, value in words[2:]:
        keyword = KEYWORDS.get(key.upper(), key.upper()) if value is not None else key.upper()
        parts.append(keyword if value is None else f"{keyword}-{_value(value)}")
    return " ".join(parts)


def hint_line(cpu: str, text: str) -> str | None:
    """The console's answer to an MQSC-style command (None if ``text`` is not one)."""
    form = zmqsc_form(text)
    if form is None:
        return None
    return f"{HINT_ID} {cpu} MQSC SYNTAX IS NOT RUN - THE ZMQSC FORM IS: {form}"
