"""Helpers for the console tests: reading responses, refused commands leave no trace."""

from __future__ import annotations

import re

LINE = re.compile(r"^[A-Z]{4}\d{4}[IWE] [A-Z] ")


def ids(response: str) -> list[str]:
    """The message identifiers of a response, one per line, checking every line's form."""
    lines = response.splitlines()
    assert lines, "a response has at least one line"
    for line in lines:
        assert LINE.match(line), f"not a console message line: {line!r}"
    return [line.split()[0] for line in lines]


def severity(response: str) -> str:
    """The worst severity in a response: E over W over I."""
    found = {identifier[-1] for identifier in ids(response)}
    return next(s for s in "EWI" if s in found)


def ok(system, command: str) -> str:
    """Run a command that must succeed (no E line); return its response."""
    response = system.console(command)
    assert severity(response) != "E", f"{command!r} was refused:\n{response}"
    return response


def refused(system, command: str, *words: str) -> str:
    """Run a command that must be refused without changing the catalog; return the response.

    Every word must appear in the response (case-insensitive).
    """
    catalog = system.qmgr.catalog
    before = (catalog.snapshot(), dict(catalog.xmitq_routes), dict(catalog.channel_requests))
    response = system.console(command)
    assert severity(response) == "E", f"{command!r} was not refused:\n{response}"
    after = (catalog.snapshot(), dict(catalog.xmitq_routes), dict(catalog.channel_requests))
    assert after == before, f"{command!r} was refused but changed the catalog"
    for word in words:
        assert word.upper() in response.upper(), f"{word!r} not in {response!r}"
    return response
