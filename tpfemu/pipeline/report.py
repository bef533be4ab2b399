"""Readable reports: PNG charts (matplotlib, no display needed) and an HTML page plus a
Markdown twin that show them. Written into the job's (temporary, then renamed) output
directory, so a report appears complete or not at all."""

from __future__ import annotations

import html
from pathlib import Path

__all__ = ["analyze_report", "analyze_text", "compare_report", "compare_text", "text_table"]

_MAX_QUEUES = 8

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 1.8em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; } td.l, th.l { text-align: left; }
.big { display: inline-block; margin: 0 2em 1em 0; } .big b { font-size: 1.8em; display: block; }
.bad b { color: #b00; } .good b { color: #070; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5em 0; }
code { background: #f6f6f6; padding: 0 0.2em; }
table.ex { table-layout: fixed; width: 100%; } table.ex td, table.ex th { text-align: left; }
table.ex td { overflow-wrap: anywhere; font-family: ui-monospace, monospace; }
table.ex col.f { width: 11em; } td.d { background: #fff0f0; }
"""


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _fmt(value) -> str:
    try:
        import pandas as pd

        if value is None or (not isinstance(value, (str, bytes)) and pd.isna(value)):
            return ""
    except (TypeError, ValueError):
        pass
    if isinstance(value, float):
        return f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    return str(value)


def _html_table(frame, left: tuple[str, ...] = ()) -> str:
    head = "".join(f"<th class='{'l' if c in left else ''}'>{html.escape(str(c))}</th>"
                   for c in frame.columns)
    rows = []
    for record in frame.itertuples(index=False):
        cells = "".join(
            f"<td class='{'l' if c in left else ''}'>{html.escape(_fmt(v))}</td>"
            for c, v in zip(frame.columns, record, strict=True))
        rows.append(f"<tr>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _md_table(frame) -> str:
    if frame.empty:
        return "(none)\n"
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |",
             "|" + "---|" * len(frame.columns)]
    for record in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v).replace("|", "\\|") for v in record) + " |")
    return "\n".join(lines) + "\n"


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"
            f"{body}</body></html>\n")


def _top_queues(queues, n: int = _MAX_QUEUES) -> list[str]:
    if queues.empty:
        return []
    ranked = queues.assign(volume=queues["puts"] + queues["gets"])
    return list(ranked.sort_values(["volume", "queue"], ascending=[False, True])
                ["queue"].head(n))


def _line_chart(path: Path, title: str, ylabel: str, series,
                xlabel: str = "minute (UTC)") -> bool:
    """``series``: (label, x, y) triples. Returns False (no file) when there is nothing.
    Both axes are labelled, with their units."""
    series = [s for s in series if len(s[1])]
    if not series:
        return False
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 3.6), dpi=100)
    for label, x, y in series:
        ax.plot(x, y, marker="o" if len(x) < 40 else None, markersize=3, label=label)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel)
    ax.grid(alpha=0.3)
    # The legend beside the plot and fixed margins: a "best" legend searches every line's
    # points, and tight_layout draws the figure once more to measure its text; the two
    # were about half of the report's CPU (docs/pipeline.md, "analyze in fewer passes").
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    for label in ax.get_xticklabels():
        label.set_rotation(30)
        label.set_horizontalalignment("right")
    fig.subplots_adjust(left=0.09, right=0.84, top=0.9, bottom=0.24)
    fig.savefig(path)
    plt.close(fig)
    return True


def _bar_chart(path: Path, title: str, labels, groups: dict[str, list],
               ylabel: str = "count", xlabel: str = "") -> bool:
    """Grouped bars, one group per label; both axes labelled."""
    if not len(labels):
        return False
    plt = _plt()
    import numpy as np

    fig, ax = plt.subplots(figsize=(9, 3.6), dpi=100)
    x = np.arange(len(labels))
    width = 0.8 / max(1, len(groups))
    for i, (name, values) in enumerate(groups.items()):
        ax.bar(x + i * width - 0.4 + width / 2, values, width, label=name)
    ax.set_xticks(x, [str(label) for label in labels], rotation=30, ha="right")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def _analyze_charts(charts: Path, tables: dict) -> list[tuple[str, str]]:
    """Draw the analyze charts that have data into ``charts``; their titles and files."""
    qm, lat, uow, progs, queues = (tables[k] for k in
                                   ("queue_minute", "latency", "uow", "programs", "queues"))
    top = _top_queues(queues)
    made: list[tuple[str, str]] = []

    def rows(frame, queue):
        return frame[frame["queue"] == queue].sort_values("minute")

    if _line_chart(charts / "throughput.png", "Puts per minute", "messages / minute",
                   [(q, rows(qm, q)["minute"], rows(qm, q)["puts"]) for q in top]):
        made.append(("Puts per minute", "throughput.png"))
    if _line_chart(charts / "gets.png", "Gets per minute", "messages / minute",
                   [(q, rows(qm, q)["minute"], rows(qm, q)["gets"]) for q in top]):
        made.append(("Gets per minute", "gets.png"))
    depth_col = "peak_depth" if "peak_depth" in qm.columns else "depth"
    if _line_chart(charts / "depth.png", "Queue depth (highest in each minute)",
                   "messages on the queue",
                   [(q, rows(qm, q)["minute"], rows(qm, q)[depth_col]) for q in top]):
        made.append(("Queue depth over time", "depth.png"))
    timed = lat[lat["minute"].notna()]
    for q in top[:4]:
        r = rows(timed, q)
        safe = "".join(c if c.isalnum() else "_" for c in q)
        name = f"latency_{safe}.png"
        if _line_chart(charts / name, f"Put->get latency on {q}", "milliseconds",
                       [(p, r["minute"], r[f"{p}_us"] / 1000.0) for p in ("p50", "p95", "p99")]):
            made.append((f"Latency on {q}", name))
    if not queues.empty and _bar_chart(
            charts / "events.png", "Events per queue", list(queues.head(20)["queue"]),
            {k: list(queues.head(20)[k]) for k in ("puts", "gets", "expiries", "triggers")},
            ylabel="events", xlabel="queue"):
        made.append(("Events per queue", "events.png"))
    totals = progs[progs["minute"].isna()].sort_values("entries", ascending=False).head(20)
    if _bar_chart(charts / "programs.png", "Entries per program", list(totals["program"]),
                  {"entries": list(totals["entries"])}, ylabel="entries (ECBs)",
                  xlabel="program"):
        made.append(("Entries per program", "programs.png"))
    if not uow.empty:
        u = uow.groupby("minute", as_index=False)[["commits", "backouts"]].sum()
        if _line_chart(charts / "uow.png", "Units of work per minute", "units of work / minute",
                       [("commits", u["minute"], u["commits"]),
                        ("backouts", u["minute"], u["backouts"])]):
            made.append(("Units of work", "uow.png"))
    return made


def _failed_runs(progs) -> int:
    """Program runs that ended with a system error, over the whole journal."""
    if progs.empty or "failed" not in progs:
        return 0
    return int(progs.loc[progs["minute"].isna(), "failed"].sum())


def analyze_report(out: Path, tables: dict, sources: list[str]) -> list[Path]:
    """Charts + ``report.html`` + ``report.md`` for the analyze tables (pandas frames)."""
    charts = out / "charts"
    charts.mkdir(exist_ok=True)
    qm, progs, queues = (tables[k] for k in ("queue_minute", "programs", "queues"))
    made = _analyze_charts(charts, tables)  # (title, file name)
    totals = progs[progs["minute"].isna()].sort_values("entries", ascending=False).head(20)

    shown = queues.copy()
    for p in ("p50_us", "p95_us", "p99_us"):
        shown[p.replace("_us", "_ms")] = shown.pop(p) / 1000.0
    total_puts = int(queues["puts"].sum()) if not queues.empty else 0
    total_gets = int(queues["gets"].sum()) if not queues.empty else 0
    span = ""
    if not qm.empty:
        span = f"{qm['minute'].min()} to {qm['minute'].max()} (UTC)"
    bigs = "".join(f"<div class='big'><b>{_fmt(v)}</b>{html.escape(k)}</div>" for k, v in (
        ("queues", len(queues)), ("puts", total_puts), ("gets", total_gets),
        ("programs", len(totals)), ("failed runs", _failed_runs(progs)),
        ("minutes", qm["minute"].nunique() if not qm.empty else 0)))
    body = [f"<p>Journal: {html.escape(', '.join(sources))}<br>Minutes: {html.escape(span)}</p>",
            bigs]
    for title, name in made:
        body.append(f"<h2>{html.escape(title)}</h2><img src='charts/{name}' alt='{title}'>")
    body.append("<h2>Queues</h2>" + _html_table(shown, left=("queue",)))
    if not totals.empty:
        body.append("<h2>Programs</h2>" + _html_table(
            totals[["program", "entries", "calls", "puts", "gets", "failed"]],
            left=("program",)))
    body.append("<p>Tables (Parquet): " + ", ".join(
        f"<code>{t}/</code>" for t in ("queue_minute", "latency", "uow", "programs", "queues"))
        + "</p>")
    (out / "report.html").write_text(_page("tpfemu traffic analysis", "".join(body)))
    md = [f"# tpfemu traffic analysis\n\nJournal: {', '.join(sources)}  \nMinutes: {span}\n",
          f"{len(queues)} queues, {total_puts:,} puts, {total_gets:,} gets, "
          f"{_failed_runs(progs):,} failed program runs.\n"]
    for title, name in made:
        md.append(f"## {title}\n\n![{title}](charts/{name})\n")
    md.append("## Queues\n\n" + _md_table(shown))
    md.append("## Programs\n\n" + _md_table(totals[["program", "entries", "calls", "failed"]]))
    (out / "report.md").write_text("\n".join(md))
    return [out / "report.html", out / "report.md"]


def _example_html(example: dict) -> str:
    """One example as a table of field | expected | actual, so that long ids and data
    wrap inside the page; a field whose sides differ is highlighted."""
    head = [f"{k}: {_fmt(v)}" for k, v in example.items()
            if not k.startswith(("expected ", "actual "))]
    fields: list[str] = []
    for key in example:
        for word in ("expected ", "actual "):
            if key.startswith(word) and key[len(word):] not in fields:
                fields.append(key[len(word):])
    rows = []
    for name in fields:
        e, a = (example.get(f"{w} {name}") for w in ("expected", "actual"))
        differ = " class='d'" if e is not None and a is not None and e != a else ""
        rows.append(f"<tr><th>{html.escape(name)}</th><td{differ}>{html.escape(_fmt(e))}"
                    f"</td><td{differ}>{html.escape(_fmt(a))}</td></tr>")
    return (f"<p>{html.escape('; '.join(head))}</p><table class='ex'><col class='f'><col>"
            "<col><tr><th>field</th><th>expected</th><th>actual</th></tr>"
            + "".join(rows) + "</table>")


def compare_report(out: Path, summary: dict, per_queue, examples: dict) -> list[Path]:
    """``report.html`` + ``report.md`` + a chart for a compare result."""
    charts = out / "charts"
    charts.mkdir(exist_ok=True)
    kinds = ["missing", "extra", "payload_changed", "descriptor_changed", "reordered"]
    chart = None
    differing = per_queue[per_queue[kinds].sum(axis=1) > 0] if not per_queue.empty else per_queue
    if not differing.empty and _bar_chart(
            charts / "differences.png", "Differences per queue",
            list(differing.head(20)["queue"]),
            {k: list(differing.head(20)[k]) for k in kinds}, ylabel="messages",
            xlabel="queue"):
        chart = "charts/differences.png"
    verdict = "identical" if summary["identical"] else "DIFFERENT"
    cls = "good" if summary["identical"] else "bad"
    bigs = f"<div class='big {cls}'><b>{verdict}</b>verdict</div>" + "".join(
        f"<div class='big'><b>{_fmt(summary['counts'][k])}</b>{k.replace('_', ' ')}</div>"
        for k in ["expected", "actual", "matched", *kinds])
    body = [f"<p>Expected: {html.escape(', '.join(summary['expected_sources']))}<br>"
            f"Actual: {html.escape(', '.join(summary['actual_sources']))}</p>", bigs]
    if chart:
        body.append(f"<h2>Differences per queue</h2><img src='{chart}' alt='differences'>")
    if summary["descriptor_fields"]:
        body.append("<h2>Changed descriptor fields</h2><ul>" + "".join(
            f"<li><code>{html.escape(f)}</code>: {_fmt(n)}</li>"
            for f, n in summary["descriptor_fields"].items()) + "</ul>")
    body.append("<h2>Per queue</h2>" + _html_table(per_queue, left=("queue",)))
    for kind, frame in examples.items():
        if not frame.empty:
            body.append(f"<h2>Examples: {kind.replace('_', ' ')}</h2>"
                        + "".join(_example_html(r) for r in frame.to_dict("records")))
    (out / "report.html").write_text(_page("tpfemu compare", "".join(body)))
    md = [f"# tpfemu compare: {verdict}\n",
          f"Expected: {', '.join(summary['expected_sources'])}  \n"
          f"Actual: {', '.join(summary['actual_sources'])}\n",
          "| kind | count |\n|---|---|\n" + "".join(
              f"| {k} | {summary['counts'][k]:,} |\n"
              for k in ["expected", "actual", "matched", *kinds])]
    if chart:
        md.append(f"![differences]({chart})\n")
    if summary["descriptor_fields"]:
        md.append("Changed descriptor fields: " + ", ".join(
            f"`{f}` {n}" for f, n in summary["descriptor_fields"].items()) + "\n")
    md.append("## Per queue\n\n" + _md_table(per_queue))
    for kind, frame in examples.items():
        if not frame.empty:
            md.append(f"## Examples: {kind.replace('_', ' ')}\n\n" + _md_table(frame))
    (out / "report.md").write_text("\n".join(md))
    return [out / "report.html", out / "report.md"]


def text_table(headers: list[str], rows: list[list]) -> str:
    """A plain-text table for the terminal: the first column left-aligned, the others
    right-aligned, numbers with thousands separators."""
    cells = [[_fmt(v) for v in row] for row in rows]
    widths = [max([len(h), *[len(r[i]) for r in cells]]) for i, h in enumerate(headers)]

    def line(values: list[str]) -> str:
        return "  ".join(v.ljust(w) if i == 0 else v.rjust(w)
                         for i, (v, w) in enumerate(zip(values, widths, strict=True)))

    return "\n".join([line(headers), line(["-" * w for w in widths]),
                      *[line(r) for r in cells]])


def compare_text(summary: dict) -> str:
    """The terminal's summary table of a compare: each kind with its count."""
    counts = summary["counts"]
    names = {"expected": "expected messages", "actual": "actual messages",
             "matched": "matched pairs", "identical_pairs": "identical pairs"}
    rows = [[names.get(k, k.replace("_", " ")), counts[k]]
            for k in ("expected", "actual", "matched", "identical_pairs", "missing",
                      "extra", "payload_changed", "descriptor_changed", "reordered")]
    rows += [[f"  {field} changed", n] for field, n in summary["descriptor_fields"].items()]
    return text_table(["what", "count"], rows)


def analyze_text(summary: dict) -> str:
    """The terminal's summary table of an analyze: the busiest queues."""
    rows = [[q["queue"], q["puts"], q["gets"], q["max_depth"], q["p95_ms"]]
            for q in summary.get("busiest_queues", [])]
    table = text_table(["queue", "puts", "gets", "peak depth", "p95 latency ms"], rows)
    failed = summary.get("failed_runs")
    return table + (f"\nfailed program runs: {failed:,}" if failed is not None else "")
