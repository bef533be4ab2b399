"""Internet daemon server definitions and their file: tpfemu's IDCF.

On TPF the Internet daemon configuration file (IDCF) holds one entry per Internet server
application; it is subsystem-unique and processor-shared, kept in fixed records #IDCF1 and
maintained with ZINET ADD/ALTER/DELETE. Here a :class:`ServerDef` is one entry and
:func:`load` / :func:`save` keep them as JSON in ``<home>/zinet.json``.

Value rules (the console quotes them when it rejects a value):

=========  ===================================  =============================================
Field      Keyword                              Rule
=========  ===================================  =============================================
name       ``S-``                               1-10 letters or digits (TPF 4.1's rule)
protocol   ``P-``                               ``TCP`` (UDP servers are not emulated)
model      ``MODEL-``                           ``WAIT``, ``NOWAIT`` or ``AOR``
port       ``PORT-``                            0-65535; 0 = any free port (for tests)
pgm        ``PGM-``                             4-character TPF program name
aorl       ``AORL-``                            1-32767, only with ``MODEL-AOR``
procid     ``PROCID-``                          processor ID A-Z
act        ``ACT-``                             ``AUTO`` or ``OPER``
state      ``STATE-``                           ``CRAS`` or ``NORM``
maxproc    ``MAXPROC-``                         1-999; ``MODEL-WAIT`` forces 1
ip         ``IP-``                              an IPv4/IPv6 address to bind (127.0.0.1)
timeout    ``TIMEOUT-``                         0-86400 seconds a socket call of the
                                                program may wait; 0 = no limit
=========  ===================================  =============================================

Differences from TPF: definitions are keyed by server name alone (the IDCF keys them by
name and processor ID; here PROCID is an attribute naming the one processor that may start
the server); the file is JSON written atomically (temporary file + ``os.replace``) rather
than fixed records — persistence in the LMDB store comes with issue 7. Several processes
sharing one home each rewrite the whole file, so the last writer wins.
"""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_AORL",
    "DEFAULT_IP",
    "DEFAULT_MAXPROC",
    "DEFAULT_TIMEOUT",
    "FILE_NAME",
    "MODELS",
    "ServerDef",
    "check_field",
    "load",
    "save",
]

FILE_NAME = "zinet.json"
"""The definitions file inside a system's home."""

MODELS = ("WAIT", "NOWAIT", "AOR")
DEFAULT_IP = "127.0.0.1"
DEFAULT_MAXPROC = 999
DEFAULT_AORL = 4095
DEFAULT_TIMEOUT = 60
_FORMAT = "tpfemu-zinet"
_VERSION = 1

_NAME = re.compile(r"[A-Z0-9]{1,10}")
_PGM = re.compile(r"[A-Z][A-Z0-9]{3}")


def _ip(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("IP- is an IPv4 or IPv6 address")
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise ValueError(f"IP- is an IPv4 or IPv6 address, not {value}") from None


def _int_range(keyword: str, low: int, high: int) -> Callable[[object], int]:
    def check(value: object) -> int:
        if type(value) is not int or not low <= value <= high:
            raise ValueError(f"{keyword} is a number {low}-{high}")
        return value

    return check


def _one_of(keyword: str, choices: tuple[str, ...], note: str = "") -> Callable[[object], str]:
    def check(value: object) -> str:
        if value not in choices:
            raise ValueError(f"{keyword} is {' or '.join(choices)}{note}")
        return str(value)

    return check


def _pattern(keyword: str, rule: re.Pattern[str], text: str) -> Callable[[object], str]:
    def check(value: object) -> str:
        if not isinstance(value, str) or rule.fullmatch(value) is None:
            raise ValueError(f"{keyword} is {text}")
        return value

    return check


def _aorl(value: object) -> int | None:
    return None if value is None else _int_range("AORL-", 1, 32767)(value)


_CHECKS: dict[str, Callable[[object], Any]] = {
    "name": _pattern("S-", _NAME, "1-10 letters or digits"),
    "protocol": _one_of("P-", ("TCP",), " (UDP servers are not supported)"),
    "model": _one_of("MODEL-", MODELS),
    "port": _int_range("PORT-", 0, 65535),
    "pgm": _pattern("PGM-", _PGM, "a 4-character program name: a letter, then 3 letters or digits"),
    "aorl": _aorl,
    "procid": _pattern("PROCID-", re.compile(r"[A-Z]"), "a processor ID A-Z"),
    "act": _one_of("ACT-", ("AUTO", "OPER")),
    "state": _one_of("STATE-", ("CRAS", "NORM")),
    "maxproc": _int_range("MAXPROC-", 1, 999),
    "ip": _ip,
    "timeout": _int_range("TIMEOUT-", 0, 86400),
}


def check_field(field: str, value: object) -> Any:
    """Check one field's value; return it (normalised: an IP address in canonical form).

    :raises ValueError: stating the rule, keyword first (``"PORT- is a number 0-65535"``).
    """
    return _CHECKS[field](value)


@dataclasses.dataclass(frozen=True)
class ServerDef:
    """One Internet server application: what ZINET ADD defines.

    Immutable: ZINET ALTER builds a new one with :meth:`replace`. Construction checks every
    field (:func:`check_field`) and the combinations: ``aorl`` only with ``MODEL-AOR`` (and
    required there), ``maxproc`` 1 with ``MODEL-WAIT``.
    """

    name: str
    port: int
    pgm: str
    protocol: str = "TCP"
    model: str = "NOWAIT"
    aorl: int | None = None
    procid: str = "B"
    act: str = "OPER"
    state: str = "NORM"
    maxproc: int = DEFAULT_MAXPROC
    ip: str = DEFAULT_IP
    timeout: int = DEFAULT_TIMEOUT

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = check_field(field.name, getattr(self, field.name))
            object.__setattr__(self, field.name, value)
        if self.model == "AOR" and self.aorl is None:
            raise ValueError("AORL- is required with MODEL-AOR")
        if self.model != "AOR" and self.aorl is not None:
            raise ValueError("AORL- is valid only with MODEL-AOR")
        if self.model == "WAIT" and self.maxproc != 1:
            raise ValueError("MAXPROC- is 1 with MODEL-WAIT (one entry at a time)")

    def replace(self, **changes: Any) -> ServerDef:
        """A copy with ``changes`` applied (checked like a new definition)."""
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """The definition as a JSON object."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ServerDef:
        """Rebuild a definition written by :meth:`to_json`.

        :raises ValueError: a field is missing, unknown or invalid.
        """
        names = {field.name for field in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown field(s) {', '.join(sorted(unknown))}")
        try:
            return cls(**data)
        except TypeError as exc:
            raise ValueError(str(exc)) from None


def load(path: Path, say: Callable[[str], None], cpu: str) -> dict[str, ServerDef]:
    """Read the definitions in ``path`` (none if it does not exist).

    A file that cannot be read as definitions is reported on the console and renamed to
    ``<name>.corrupt`` so that the next save does not destroy it; a single invalid entry is
    reported and skipped.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        say(f"INET0090E {cpu} ZINET DEFINITIONS {path} NOT READ: {exc}")
        return {}
    try:
        document = json.loads(text)
        if document.get("format") != _FORMAT or document.get("version") != _VERSION:
            raise ValueError(f"not a {_FORMAT} version {_VERSION} file")
        entries = document["servers"]
        if not isinstance(entries, list):
            raise ValueError("'servers' is not a list")
    except (ValueError, KeyError, AttributeError) as exc:
        bad = path.with_name(path.name + ".corrupt")
        with contextlib.suppress(OSError):
            os.replace(path, bad)
        say(f"INET0091E {cpu} ZINET DEFINITIONS {path} UNUSABLE ({exc}) - MOVED TO {bad.name}")
        return {}
    servers: dict[str, ServerDef] = {}
    for entry in entries:
        try:
            if not isinstance(entry, dict):
                raise ValueError("not an object")
            definition = ServerDef.from_json(entry)
        except ValueError as exc:
            say(f"INET0092E {cpu} ZINET DEFINITION {entry!r:.60} SKIPPED: {exc}")
            continue
        servers[definition.name] = definition
    return servers


def save(path: Path, servers: dict[str, ServerDef]) -> None:
    """Write every definition to ``path`` atomically (temporary file, fsync, ``os.replace``).

    :raises OSError: the file could not be written; the old file is then unchanged.
    """
    document = {
        "format": _FORMAT,
        "version": _VERSION,
        "servers": [servers[name].to_json() for name in sorted(servers)],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(document, file, indent=2)
            file.write("\n")
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
