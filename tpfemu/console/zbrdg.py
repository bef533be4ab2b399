"""ZBRDG: the operator command of the ROUTC bridge's LNIATA table and WGTA (ours).

TPF's own commands for the terminal tables were not found; this one is tpfemu's, in TPF
style (``KEYWORD-value`` tokens, unquoted text upper-cased, a quoted value keeps its
case). Verbs::

    ZBRDG DISP [LN-0A0101]                   every terminal, or one in detail
    ZBRDG DEF LN-0A0101 [APPL-BAL1] [MQ-YES|NO] [RQ-queue|*] [RQM-qmgr]
    ZBRDG ALT LN-0A0101 [APPL-name|NONE] [MQ-YES|NO] [RQ-queue|*] [RQM-qmgr]
    ZBRDG DEL LN-0A0101
    ZBRDG POOL [FIRST-FE0000] [COUNT-256] [APPL-name|NONE]   (no keyword: display it)
    ZBRDG LOG LN-0A0101 [CLEAR-YES]          an ordinary terminal's output log

``RQ-``/``RQM-`` give CUIW's route: messages with that ReplyToQ (``*``: any) and
ReplyToQMgr get this LNIATA. ``MQ-`` sets or clears the WGTA's MQ mark. The reference is
``docs/console.md`` (section ZBRDG) and ``docs/bridge.md``; messages are MQSC0140-0152.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tpfemu.console import messages as m

if TYPE_CHECKING:
    from tpfemu.console.host import BridgeOperatorPort, ConsoleHost

__all__ = ["zbrdg"]

_VERBS = {"DISP": "DISP", "DISPLAY": "DISP", "DEF": "DEF", "DEFINE": "DEF", "ALT": "ALT",
          "ALTER": "ALT", "DEL": "DEL", "DELETE": "DEL", "POOL": "POOL", "LOG": "LOG"}
_VERB_LIST = "DISP, DEF, ALT, DEL, POOL, LOG"
_KEYWORDS = {"LN": "lniata", "LNIATA": "lniata", "APPL": "application", "MQ": "mq",
             "RQ": "reply_to_q", "RQM": "reply_to_qmgr", "FIRST": "first", "COUNT": "count",
             "CLEAR": "clear"}
_TERMINAL = frozenset({"lniata", "application", "mq", "reply_to_q", "reply_to_qmgr"})
_ALLOWED = {"DISP": frozenset({"lniata"}), "DEF": _TERMINAL, "ALT": _TERMINAL,
            "DEL": frozenset({"lniata"}), "POOL": frozenset({"first", "count", "application"}),
            "LOG": frozenset({"lniata", "clear"})}
_NEEDS_LNIATA = frozenset({"DEF", "ALT", "DEL", "LOG"})
_TOKEN = re.compile(r"[^\s']*'[^']*'|\S+")


class _Rejected(Exception):
    """The command is refused: carries the response line."""


def zbrdg(system: ConsoleHost, rest: str) -> str:
    """Run ``ZBRDG <rest>``; return the response text (never raises for a bad command)."""
    try:
        bridge = system.bridge
        if bridge is None or not system.running:
            return m.BRIDGE_DOWN.line(system.cpu)
        verb, fields = _parse(system.cpu, rest)
        return "\n".join(_run(system.cpu, bridge.operator, verb, fields))
    except _Rejected as rejected:
        return str(rejected)
    except Exception as exc:  # a defect: say so rather than crash the console
        return m.INTERNAL.line(system.cpu, detail=repr(exc))


def _syntax(cpu: str, problem: str) -> _Rejected:
    return _Rejected(m.BRIDGE_SYNTAX.line(cpu, problem=problem, verbs=_VERB_LIST))


def _value(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1]
    return text.upper()


def _parse(cpu: str, rest: str) -> tuple[str, dict[str, str]]:
    tokens = _TOKEN.findall(rest)
    if not tokens:
        raise _syntax(cpu, "NO VERB GIVEN")
    verb = _VERBS.get(tokens[0].upper())
    if verb is None:
        raise _syntax(cpu, f"UNKNOWN VERB {tokens[0]}")
    fields: dict[str, str] = {}
    for token in tokens[1:]:
        keyword, dash, text = token.partition("-")
        field = _KEYWORDS.get(keyword.upper())
        if not dash or not text:
            raise _syntax(cpu, f"BAD TOKEN {token} - USE KEYWORD-VALUE")
        if field is None or field not in _ALLOWED[verb]:
            raise _syntax(cpu, f"{keyword.upper()} IS NOT A ZBRDG {verb} KEYWORD")
        if field in fields:
            raise _syntax(cpu, f"{keyword.upper()} IS GIVEN TWICE")
        fields[field] = _value(text)
    if verb in _NEEDS_LNIATA and "lniata" not in fields:
        raise _syntax(cpu, f"ZBRDG {verb} NEEDS LN-<LNIATA>")
    if verb == "ALT" and len(fields) == 1:
        raise _syntax(cpu, "ZBRDG ALT HAS NOTHING TO CHANGE")
    return verb, fields


def _yes_no(cpu: str, verb: str, keyword: str, value: str | None) -> bool | None:
    if value is None:
        return None
    if value not in ("YES", "NO"):
        raise _Rejected(m.BRIDGE_REFUSED.line(cpu, verb=verb,
                                              detail=f"{keyword}-{value}: USE YES OR NO"))
    return value == "YES"


def _run(cpu: str, op: BridgeOperatorPort, verb: str, fields: dict[str, str]) -> list[str]:
    lniata = fields.get("lniata", "")
    try:
        return _VERB_RUN[verb](cpu, op, verb, fields)
    except KeyError:
        return [m.BRIDGE_NOT_FOUND.line(cpu, lniata=lniata)]
    except (ValueError, OSError) as exc:
        return [m.BRIDGE_REFUSED.line(cpu, verb=verb, detail=str(exc))]


def _display(cpu: str, op: BridgeOperatorPort, verb: str, fields: dict[str, str]
             ) -> list[str]:
    if "lniata" in fields:
        row = op.terminal(fields["lniata"])
        lines = [m.BRIDGE_TERMINAL.line(cpu, lniata=row["lniata"])]
        for name, value in (
                ("APPL", row["application"] or "NONE"), ("MQ", "YES" if row["mq"] else "NO"),
                ("KIND", row["kind"]), ("INPUTS", row["inputs"]), ("OUTPUTS", row["outputs"]),
                ("ROUTES", " ".join(row["routes"]) or "NONE"),
                ("REPLY", row["reply"] or "NONE"), ("LOGGED", row["logged"]),
                ("WGTA", row["wgta"])):
            lines.append(m.BRIDGE_ROW.line(cpu, row=f"{name:<8}{value}"))
        return lines
    rows = op.terminals()
    lines = [m.BRIDGE_ROW.line(cpu, row=f"{'LNIATA':<8}{'APPL':<6}{'MQ':<4}{'KIND':<9}"
                                        f"{'IN':>8}{'OUT':>8}  ROUTES")]
    for row in rows:
        lines.append(m.BRIDGE_ROW.line(cpu, row=(
            f"{row['lniata']:<8}{row['application'] or '-':<6}"
            f"{'YES' if row['mq'] else 'NO':<4}{row['kind']:<9}{row['inputs']:>8}"
            f"{row['outputs']:>8}  {' '.join(row['routes']) or '-'}")))
    pool = op.pool()
    lines.append(m.BRIDGE_POOL.line(cpu, first=pool["first"], count=pool["count"],
                                    application=pool["application"] or "NONE",
                                    allocated=pool["allocated"]))
    lines.append(m.BRIDGE_COUNT.line(cpu, count=len(rows)))
    return lines


def _terminal_args(cpu: str, verb: str, fields: dict[str, str]) -> dict[str, Any]:
    application = fields.get("application")
    if application == "NONE":
        if verb == "DEF":
            application = None
        else:
            application = ""
    return {"application": application,
            "mq": _yes_no(cpu, verb, "MQ", fields.get("mq")),
            "reply_to_q": fields.get("reply_to_q"),
            "reply_to_qmgr": fields.get("reply_to_qmgr")}


def _define(cpu: str, op: BridgeOperatorPort, verb: str, fields: dict[str, str]) -> list[str]:
    op.define(fields["lniata"], **_terminal_args(cpu, verb, fields))
    return [m.BRIDGE_DEFINED.line(cpu, lniata=fields["lniata"])]


def _alter(cpu: str, op: BridgeOperatorPort, verb: str, fields: dict[str, str]) -> list[str]:
    op.alter(fields["lniata"], **_terminal_args(cpu, verb, fields))
    return [m.BRIDGE_ALTERED.line(cpu, lniata=fields["lniata"])]


def _delete(cpu: str, op: BridgeOperatorPort, verb: str, fields: dict[str, str]) -> list[str]:
    op.delete(fields["lniata"])
    return [m.BRIDGE_DELETED.line(cpu, lniata=fields["lniata"])]


def _pool(cpu: str, op: BridgeOperatorPort, verb: str, fields: dict[str, str]) -> list[str]:
    if fields:
        count = fields.get("count")
        if count is not None and not re.fullmatch(r"[0-9]{1,5}", count):
            raise ValueError(f"COUNT-{count} is not a number 0 to 65536")
        application = fields.get("application")
        op.set_pool(fields.get("first"), None if count is None else int(count),
                    "" if application == "NONE" else application)
    pool = op.pool()
    return [m.BRIDGE_POOL.line(cpu, first=pool["first"], count=pool["count"],
                               application=pool["application"] or "NONE",
                               allocated=pool["allocated"])]


def _log(cpu: str, op: BridgeOperatorPort, verb: str, fields: dict[str, str]) -> list[str]:
    lniata = fields["lniata"]
    clear = _yes_no(cpu, verb, "CLEAR", fields.get("clear"))
    if clear:
        return [m.BRIDGE_LOG_CLEARED.line(cpu, lniata=lniata, count=op.clear_log(lniata))]
    texts = op.log(lniata)
    return [m.BRIDGE_LOG.line(cpu, lniata=lniata, count=len(texts)),
            *(m.BRIDGE_ROW.line(cpu, row=text) for text in texts)]


_VERB_RUN = {"DISP": _display, "DEF": _define, "ALT": _alter, "DEL": _delete,
             "POOL": _pool, "LOG": _log}
