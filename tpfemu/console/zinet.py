"""ZINET: the operator command of the Internet daemon.

``ZINET <verb> S-name KEYWORD-value ...`` in TPF style: keywords and values joined by a
dash, separated by blanks, unquoted text upper-cased. Verbs: ADD, ALTER (ALT), DELETE
(DEL), DISPLAY (DISP), START, STOP. Example, accepted as written::

    ZINET ADD S-MQS P-TCP MODEL-AOR PORT-1414 PGM-CMQL AORL-8

Keywords (rules in :mod:`tpfemu.inetd.idcf`, applied through the host's daemon port):
``S-`` (SERVER-), ``P-`` (PROTOCOL-), ``MODEL-``, ``PORT-``, ``PGM-``, ``AORL-``,
``PROCID-`` (PROC-), ``ACT-`` (ACTIVATION-), ``STATE-``, ``MAXPROC-``, ``IP-`` (the bind
address, default 127.0.0.1; ``IP-ANY`` is 0.0.0.0) and ``TIMEOUT-``. On DISPLAY,
``STATE-ACT`` / ``STATE-INACT`` select started / stopped servers; on ADD and ALTER,
``STATE-`` is TPF's system state (CRAS or NORM), which is recorded and shown (tpfemu has
no system states).

Every response line is ``INETnnnnS <cpu> text`` (S = I, W or E). A rejected command changes
nothing and names the bad token. The full reference, with every message, is
``docs/zinet.md``.

Definitions are loaded from the system's home the first time ZINET (or :func:`start_auto`)
is used on a system; :func:`start_auto` starts the ``ACT-AUTO`` servers of this processor
and is meant to be called once the system is up.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ecb import EcbError

if TYPE_CHECKING:
    from tpfemu.console.host import (
        ConsoleHost,
        InternetDaemonPort,
        ServerDefinition,
        ServerStatus,
    )

__all__ = ["start_auto", "zinet"]

_VERBS = {
    "ADD": "ADD", "ALTER": "ALTER", "ALT": "ALTER", "DELETE": "DELETE", "DEL": "DELETE",
    "DISPLAY": "DISPLAY", "DISP": "DISPLAY", "START": "START", "STOP": "STOP",
}
_KEYWORDS = {
    "S": "name", "SERVER": "name", "P": "protocol", "PROTOCOL": "protocol", "MODEL": "model",
    "PORT": "port", "PGM": "pgm", "AORL": "aorl", "PROCID": "procid", "PROC": "procid",
    "ACT": "act", "ACTIVATION": "act", "STATE": "state", "MAXPROC": "maxproc", "IP": "ip",
    "TIMEOUT": "timeout",
}
_SETTABLE = frozenset(_KEYWORDS.values())
_ALLOWED = {
    "ADD": _SETTABLE, "ALTER": _SETTABLE, "DELETE": frozenset({"name"}),
    "START": frozenset({"name"}), "STOP": frozenset({"name"}),
    "DISPLAY": frozenset({"name", "state"}),
}
_NUMBERS = frozenset({"port", "aorl", "maxproc", "timeout"})
_LISTENER = ("protocol", "model", "port", "ip", "procid")  # not alterable while started
_KEYWORD_OF = {field: keyword for keyword, field in reversed(_KEYWORDS.items())}
_KEYWORD_OF["name"] = "S"
_KEYWORD_OF["protocol"] = "P"


class _Rejected(Exception):
    """A command is rejected: carries the one response line."""


def zinet(system: ConsoleHost, rest: str) -> str:
    """Run ``ZINET <rest>``; return the response text (never raises for a bad command)."""
    try:
        return "\n".join(_run(system, rest))
    except _Rejected as rejected:
        return str(rejected)


def start_auto(system: ConsoleHost) -> str:
    """Start every ``ACT-AUTO`` server defined for this processor; return the responses."""
    daemon = system.internet_daemon()
    daemon.prune()
    lines = []
    with daemon.lock:
        for name in sorted(daemon.definitions):
            definition = daemon.definitions[name]
            if definition.act == "AUTO" and definition.procid == system.cpu \
                    and name not in daemon.servers:
                try:
                    lines.append(_start(system, daemon, name))
                except _Rejected as rejected:
                    lines.append(str(rejected))
    return "\n".join(lines) or f"INET0009I {system.cpu} NO AUTO SERVERS TO START"


def _reject(system: ConsoleHost, code: str, text: str) -> _Rejected:
    return _Rejected(f"INET{code}E {system.cpu} {text}")


def _parse(system: ConsoleHost, daemon: InternetDaemonPort, verb: str, tokens: list[str]
           ) -> tuple[dict, dict]:
    """Tokens -> ({field: value}, {field: token as typed}); rejects the first bad token."""
    values: dict[str, object] = {}
    typed: dict[str, str] = {}
    for token in tokens:
        keyword, dash, text = token.partition("-")
        if not dash or not keyword or not text:
            raise _reject(system, "0011", f"BAD TOKEN '{token}' - USE KEYWORD-VALUE")
        field = _KEYWORDS.get(keyword.upper())
        if field is None:
            raise _reject(system, "0012", f"UNKNOWN KEYWORD '{token}'")
        if field not in _ALLOWED[verb]:
            raise _reject(system, "0013", f"KEYWORD '{token}' NOT VALID WITH ZINET {verb}")
        if field in values:
            raise _reject(system, "0014", f"KEYWORD '{token}' REPEATED")
        value: object = text.upper()
        try:
            if field in _NUMBERS:
                value = int(text) if re.fullmatch(r"[0-9]{1,9}", text) else None
            elif field == "ip" and value == "ANY":
                value = "0.0.0.0"
            if verb == "DISPLAY" and field == "state":
                if value not in ("ACT", "INACT"):
                    raise ValueError("STATE- on DISPLAY is ACT or INACT")
            else:
                value = daemon.check_field(field, value)
        except ValueError as exc:
            rule = str(exc).upper()
            if field == "protocol" and value == "UDP":
                rule = "P-UDP NOT SUPPORTED - ONLY TCP SERVERS ARE EMULATED"
            raise _reject(system, "0015", f"BAD VALUE '{token}' - {rule}") from None
        values[field] = value
        typed[field] = token
    return values, typed


def _run(system: ConsoleHost, rest: str) -> list[str]:
    tokens = rest.split()
    cpu = system.cpu
    if not tokens:
        raise _reject(system, "0010", "VERB MISSING - ADD, ALTER, DELETE, DISPLAY, START, STOP")
    verb = _VERBS.get(tokens[0].upper())
    if verb is None:
        raise _reject(system, "0010", f"UNKNOWN VERB '{tokens[0]}' -"
                                      " ADD, ALTER, DELETE, DISPLAY, START, STOP")
    daemon = system.internet_daemon()
    values, typed = _parse(system, daemon, verb, tokens[1:])
    daemon.prune()
    if verb == "DISPLAY":
        return _display(system, daemon, values)
    name = values.get("name")
    if name is None:
        raise _reject(system, "0016", f"S- (SERVER NAME) REQUIRED WITH ZINET {verb}")
    with daemon.lock:
        exists = name in daemon.definitions
        if verb == "ADD":
            if exists:
                raise _reject(system, "0018", f"SERVER {name} ALREADY DEFINED")
            return _add(system, daemon, values, typed)
        if not exists:
            raise _reject(system, "0017", f"SERVER {name} NOT DEFINED")
        active = name in daemon.servers
        if verb == "ALTER":
            return _alter(system, daemon, daemon.definitions[name], values, typed, active)
        if verb == "DELETE":
            if active:
                raise _reject(system, "0019", f"SERVER {name} IS ACTIVE - ZINET STOP IT FIRST")
            _save(system, daemon.delete, name)
            return [f"INET0003I {cpu} SERVER {name} DELETED"]
        if verb == "START":
            return [_start(system, daemon, name)]
        if not active:
            raise _reject(system, "0020", f"SERVER {name} IS NOT ACTIVE")
        server = daemon.servers[name]
        daemon.stop_server(name)
        return [f"INET0005I {cpu} SERVER {name} STOPPED - {server.accepted} CONNECTION(S)"
                f" ACCEPTED, {server.entries} ENTR(IES) CREATED"]


def _save(system: ConsoleHost, action, argument) -> None:
    try:
        action(argument)
    except OSError as exc:
        raise _reject(system, "0027", f"ZINET DEFINITIONS NOT SAVED - {exc}") from None


def _settle(system: ConsoleHost, daemon: InternetDaemonPort, old: dict, values: dict,
            typed: dict) -> tuple[ServerDefinition, list]:
    """Merge ``values`` into ``old`` (field -> value), apply the model rules, build it."""
    new = {**old, **values}
    warnings = []
    if new["model"] != "AOR":
        if "aorl" in values:
            raise _reject(system, "0015", f"BAD VALUE '{typed['aorl']}' - AORL- IS VALID ONLY"
                                          " WITH MODEL-AOR")
        new["aorl"] = None
    elif new.get("aorl") is None:
        new["aorl"] = daemon.default_aorl
    if new["model"] == "WAIT":
        if values.get("maxproc", 1) != 1:
            warnings.append(f"INET0008W {system.cpu} MAXPROC-{values['maxproc']} FORCED TO 1"
                            " FOR MODEL-WAIT")
        new["maxproc"] = 1
    elif old.get("model") == "WAIT" and "maxproc" not in values:
        new["maxproc"] = daemon.default_maxproc
    try:
        return daemon.new_definition(new), warnings
    except ValueError as exc:  # a combination the rules above did not foresee
        raise _reject(system, "0015", f"BAD DEFINITION - {str(exc).upper()}") from None


def _add(system: ConsoleHost, daemon: InternetDaemonPort, values: dict, typed: dict) -> list[str]:
    for field in ("port", "pgm"):
        if field not in values:
            raise _reject(system, "0016", f"{_KEYWORD_OF[field]}- REQUIRED WITH ZINET ADD")
    old = {"model": "NOWAIT", "procid": system.cpu}
    definition, warnings = _settle(system, daemon, old, values, typed)
    _save(system, daemon.define, definition)
    return [f"INET0001I {system.cpu} SERVER {definition.name} ADDED", *warnings]


def _alter(system: ConsoleHost, daemon: InternetDaemonPort, current: ServerDefinition, values: dict,
           typed: dict, active: bool) -> list[str]:
    if len(values) == 1:
        raise _reject(system, "0025", f"NOTHING TO ALTER FOR SERVER {current.name}")
    if active:
        for field in _LISTENER:
            if field in values:
                raise _reject(system, "0019", f"SERVER {current.name} IS ACTIVE - ZINET STOP"
                                              f" IT BEFORE ALTERING '{typed[field]}'")
    definition, warnings = _settle(system, daemon, current.to_json(), values, typed)
    _save(system, daemon.define, definition)
    return [f"INET0002I {system.cpu} SERVER {definition.name} ALTERED", *warnings]


def _start(system: ConsoleHost, daemon: InternetDaemonPort, name: str) -> str:
    definition = daemon.definitions[name]
    if definition.procid != system.cpu:
        raise _reject(system, "0023", f"SERVER {name} IS DEFINED FOR PROCESSOR"
                                      f" {definition.procid}, NOT {system.cpu}")
    if name in daemon.servers:
        raise _reject(system, "0021", f"SERVER {name} IS ALREADY ACTIVE")
    if not system.running:
        raise _reject(system, "0024", f"SYSTEM IS NOT RUNNING - SERVER {name} NOT STARTED")
    try:
        server = daemon.start(name)
    except OSError as exc:
        raise _reject(system, "0022", f"SERVER {name} CANNOT LISTEN ON"
                                      f" {_where(definition.ip, definition.port)} - {exc}"
                      ) from None
    except EcbError as exc:
        raise _reject(system, "0026", f"SERVER {name} NOT STARTED - {exc}") from None
    return (f"INET0004I {system.cpu} SERVER {name} STARTED - LISTENING ON"
            f" {_where(*server.address)}")


def _where(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _display(system: ConsoleHost, daemon: InternetDaemonPort, values: dict) -> list[str]:
    cpu = system.cpu
    with daemon.lock:
        name = values.get("name")
        if name is not None and name not in daemon.definitions:
            raise _reject(system, "0017", f"SERVER {name} NOT DEFINED")
        names = [name] if name is not None else sorted(daemon.definitions)
        shown = []
        for each in names:
            server = daemon.servers.get(each)
            wanted = values.get("state")
            if wanted is None or (wanted == "ACT") == (server is not None):
                shown.append((daemon.definitions[each], server))
    lines: list[str] = []
    for definition, server in shown:
        lines.extend(f"INET0006I {cpu} {row}" for row in _block(definition, server))
    lines.append(f"INET0007I {cpu} {len(shown)} SERVER(S) DISPLAYED")
    return lines


def _block(definition: ServerDefinition, server: ServerStatus | None) -> list[str]:
    """The DISPLAY block of one server: a header line, then aligned KEYWORD-value cells."""
    d = definition
    pairs: list[tuple[str, object]] = [
        ("P", d.protocol), ("MODEL", d.model), ("PGM", d.pgm),
        ("IP", d.ip), ("PORT", d.port), ("BOUND", _where(*server.address) if server else "-"),
        ("PROCID", d.procid), ("ACT", d.act), ("STATE", d.state),
        ("MAXPROC", d.maxproc), ("TIMEOUT", d.timeout),
    ]
    if d.aorl is not None:
        pairs.append(("AORL", d.aorl))
    if server is not None:
        pairs += [
            ("ACCEPTED", server.accepted), ("ENTRIES", server.entries),
            ("ACTIVE", server.active), ("REFUSED", server.refused), ("ERRORS", server.errors),
        ]
    cells = [f"{key}-{value}" for key, value in pairs]
    rows = [cells[start:start + 3] for start in range(0, len(cells), 3)]
    widths = [max(len(row[col]) for row in rows if col < len(row)) + 2 for col in range(3)]
    lines = [f"SERVER {d.name}  {'ACTIVE' if server else 'INACTIVE'}"]
    for row in rows:
        lines.append("  " + "".join(c.ljust(widths[i]) for i, c in enumerate(row)).rstrip())
    return lines
