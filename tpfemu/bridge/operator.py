"""The operator's view of the bridge: what the ZBRDG console command calls.

The console does not import the bridge (both sit on one layer); it drives this facade
through its port (``tpfemu.console.host.BridgePort``), in plain strings, numbers and
dicts. Bad input raises ValueError with a sentence naming the value at fault; an unknown
terminal raises KeyError; a table that cannot be saved raises OSError. A refused change
changes nothing.
"""

from __future__ import annotations

from typing import Any

from tpfemu.bridge.layouts import EBCDIC, LayoutError, Lniata, program_name
from tpfemu.bridge.terminals import ANY_QUEUE, Pool, Terminals

__all__ = ["BridgeOperator", "show_text"]

_MAX_NAME = 48


def show_text(text: bytes) -> str:
    """Terminal text as the operator sees it: EBCDIC (code page 037), control characters
    as ``?``."""
    return "".join(c if c.isprintable() else "?" for c in text.decode(EBCDIC))


def _lniata(text: str) -> Lniata:
    try:
        return Lniata.parse(text)
    except LayoutError as exc:
        raise ValueError(str(exc)) from None


def _application(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return program_name(text)
    except LayoutError as exc:
        raise ValueError(str(exc)) from None


def _queue_name(text: str, what: str) -> str:
    if not text or len(text) > _MAX_NAME or not text.isascii() or " " in text:
        raise ValueError(f"{what} {text!r} is not an MQ name of 1 to 48 characters")
    return text


class BridgeOperator:
    """String-level operations on a bridge's :class:`Terminals`."""

    def __init__(self, terminals: Terminals) -> None:
        self._t = terminals

    def _routes_of(self, lniata: Lniata) -> list[str]:
        return [f"{q}@{m}" for (q, m), v in sorted(self._t.routes.items()) if v == lniata]

    def _row(self, lniata: Lniata) -> dict[str, Any]:
        t = self._t
        entry = t.entry(lniata)
        reply = t.replies.get(lniata)
        return {
            "lniata": str(lniata), "application": entry.application or "", "mq": entry.mq,
            "kind": "OPERATOR" if entry.operator else "POOL" if entry.pool else "CUIW",
            "inputs": entry.inputs, "outputs": entry.outputs,
            "routes": self._routes_of(lniata),
            "reply": None if reply is None else
            f"{reply.reply_to_q or '(CUIV)'}@{reply.reply_to_qmgr} MSGID "
            f"{reply.msg_id.hex().upper()}",
            "logged": len(t.logs.get(lniata, ())), "wgta": entry.pack().hex().upper(),
        }

    def terminals(self) -> list[dict[str, Any]]:
        """Every terminal of the WGTA, by LNIATA."""
        with self._t.lock:
            return [self._row(k) for k in sorted(self._t.wgta)]

    def terminal(self, lniata: str) -> dict[str, Any]:
        """One terminal. :raises KeyError: not in the WGTA."""
        key = _lniata(lniata)
        with self._t.lock:
            if key not in self._t.wgta:
                raise KeyError(lniata)
            return self._row(key)

    def define(self, lniata: str, application: str | None = None, mq: bool | None = None,
               reply_to_q: str | None = None, reply_to_qmgr: str | None = None) -> None:
        """Define a terminal (DEF), optionally with CUIW's route to it."""
        key = _lniata(lniata)
        route = self._route(reply_to_q, reply_to_qmgr)
        with self._t.lock:
            self._t.define(key, _application(application), mq)
            if route is not None:
                self._t.add_route(*route, key)

    def alter(self, lniata: str, application: str | None = None, mq: bool | None = None,
              reply_to_q: str | None = None, reply_to_qmgr: str | None = None) -> None:
        """Change a defined terminal (ALT); ``application=""`` routes it to none.

        :raises KeyError: not defined.
        """
        key = _lniata(lniata)
        route = self._route(reply_to_q, reply_to_qmgr)
        app = None if application in (None, "") else _application(application)
        with self._t.lock:
            if key not in self._t.wgta:
                raise KeyError(lniata)
            if application == "":
                self._t.clear_application(key)
            self._t.define(key, app, mq)
            if route is not None:
                self._t.remove_routes(key)
                self._t.add_route(*route, key)

    @staticmethod
    def _route(reply_to_q: str | None, reply_to_qmgr: str | None) -> tuple[str, str] | None:
        if reply_to_q is None and reply_to_qmgr is None:
            return None
        if reply_to_qmgr is None:
            raise ValueError("RQ- needs RQM-: a route names the ReplyToQMgr too")
        queue = ANY_QUEUE if reply_to_q in (None, ANY_QUEUE) else \
            _queue_name(reply_to_q, "ReplyToQ")
        return queue, _queue_name(reply_to_qmgr, "ReplyToQMgr")

    def delete(self, lniata: str) -> None:
        """Delete a terminal with its routes. :raises KeyError: not defined."""
        key = _lniata(lniata)
        try:
            self._t.delete(key)
        except KeyError:
            raise KeyError(lniata) from None

    def pool(self) -> dict[str, Any]:
        """The default allocation: first LNIATA, count, application, how many are taken."""
        with self._t.lock:
            pool = self._t.pool
            return {"first": str(pool.first), "count": pool.count,
                    "application": pool.application or "",
                    "allocated": len(self._t.allocated)}

    def set_pool(self, first: str | None = None, count: int | None = None,
                 application: str | None = None) -> None:
        """Change the pool (what is not given is kept; ``application=""``: none)."""
        with self._t.lock:
            old = self._t.pool
            pool = Pool(old.first if first is None else _lniata(first),
                        old.count if count is None else count,
                        old.application if application is None else
                        (_application(application) if application else None))
            try:
                self._t.set_pool(pool)
            except LayoutError as exc:
                raise ValueError(str(exc)) from None

    def log(self, lniata: str) -> list[str]:
        """A terminal's output log, oldest first, as the operator reads it."""
        key = _lniata(lniata)
        with self._t.lock:
            if key not in self._t.wgta:
                raise KeyError(lniata)
            return [show_text(out.text) for out in self._t.output(key)]

    def clear_log(self, lniata: str) -> int:
        """Empty a terminal's log; return how many messages it held."""
        key = _lniata(lniata)
        if key not in self._t.wgta:
            raise KeyError(lniata)
        return self._t.clear_log(key)
