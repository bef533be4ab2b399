"""The examples of each kind of difference that ``compare``'s report shows: a few rows
of the differing messages, their ids in hexadecimal and the first bytes of their data as
text (:func:`examples_of`)."""

from __future__ import annotations

__all__ = ["EXAMPLES", "examples_of"]

#: How many examples of each kind the report shows.
EXAMPLES = 5


def _hex(value) -> str:
    return bytes(value).hex().upper() if value is not None else ""


def _shown(preview: bytes | None, length: int | None) -> str:
    """The first bytes of a message's data as text: UTF-8, other bytes as \\xNN, and
    how many bytes are not shown."""
    if preview is None:
        return "(no data captured)"
    text = bytes(preview).decode("utf-8", "backslashreplace")
    rest = (length or 0) - len(preview)
    return text + (f" ... (+{rest:,} bytes)" if rest > 0 else "")


def examples_of(table, kind: str):
    """A few rows of one kind (a pyarrow table of them) as a small pandas frame."""
    import pandas as pd

    rows = table.slice(0, EXAMPLES).to_pylist()
    out = []
    for r in rows:
        item = {"queue": r["queue"], "matched by": r["matched_by"] or ""}
        for prefix, word in (("e", "expected"), ("a", "actual")):
            if (kind == "extra" and prefix == "e") or (kind == "missing" and prefix == "a"):
                continue
            item[f"{word} CorrelId"] = _hex(r[f"{prefix}_correl_id"])
            item[f"{word} MsgId"] = _hex(r[f"{prefix}_msg_id"])
            preview = r[f"{prefix}_preview"]
            item[f"{word} data"] = _shown(preview, r[f"{prefix}_length"])
            if kind == "payload_changed":
                item[f"{word} hash"] = _hex(r[f"{prefix}_payload_hash"])
            if kind == "descriptor_changed":
                for f in ("priority", "persistent", "expiry", "length"):
                    item[f"{word} {f}"] = r[f"{prefix}_{f}"]
                for f, label in (("msg_type", "MsgType"), ("reply_to_q", "ReplyToQ")):
                    if r[f"{prefix}_{f}"] is not None:  # (shown when recorded)
                        item[f"{word} {label}"] = r[f"{prefix}_{f}"]
            item[f"{word} seq"] = r[f"{prefix}_seq"]
        if kind == "descriptor_changed":
            item["fields"] = ", ".join(r["changed_fields"] or [])
        out.append(item)
    return pd.DataFrame(out)
