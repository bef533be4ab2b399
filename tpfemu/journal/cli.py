"""``tpfemu journal``: export and look at event journals."""

from __future__ import annotations

from pathlib import Path

import click

# pyarrow is imported by the commands, not when the CLI starts.


@click.group("journal")
def journal() -> None:
    """Export and show the event journal of a system's home."""


@journal.command("export")
@click.argument("home", type=click.Path(exists=True))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Directory to write the Parquet files to (created if missing).")
def export(home: str, out_dir: str) -> None:
    """Write the journal in HOME (a home, its journal directory or one segment) as
    Parquet files in --out, one per segment."""
    import pyarrow.parquet as pq

    from tpfemu.journal.reader import JournalError, to_parquet
    from tpfemu.journal.schema import SchemaMismatch

    try:
        written = to_parquet([home], out_dir)
    except (JournalError, SchemaMismatch, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    rows = 0
    for path in written:
        n = pq.ParquetFile(path).metadata.num_rows
        rows += n
        click.echo(f"{path}  {n} events")
    click.echo(f"{len(written)} file{'s' if len(written) != 1 else ''}, {rows} events "
               f"written to {Path(out_dir)}")


@journal.command("show")
@click.argument("home", type=click.Path(exists=True))
@click.option("--queue", default=None, help="Only events of this queue.")
@click.option("--event", "kinds", multiple=True, help="Only this event type (repeatable).")
@click.option("--limit", default=0, show_default=True, help="Show at most this many (0: all).")
def show(home: str, queue: str | None, kinds: tuple[str, ...], limit: int) -> None:
    """Print the events of the journal in HOME, one line each."""
    import datetime

    from tpfemu.journal.reader import JournalError, read_events
    from tpfemu.journal.schema import SchemaMismatch

    shown = 0
    try:
        for e in read_events(home, queue=queue, events=kinds or None):
            when = datetime.datetime.fromtimestamp(e.event_time_us / 1e6, datetime.UTC)
            parts = [f"{e.seq:>8}", when.strftime("%H:%M:%S.%f"), e.cpu, e.qmgr,
                     f"{e.event:<8}", e.queue or "-"]
            if e.msg_id is not None:
                parts.append(f"msgid={e.msg_id.hex()}")
            if e.priority is not None:
                parts.append(f"pri={e.priority}")
            if e.length is not None:
                parts.append(f"len={e.length}")
            if e.program:
                parts.append(f"ecb={e.ecb}/{e.program}")
            if e.detail:
                parts.append(e.detail)
            click.echo(" ".join(parts))
            shown += 1
            if limit and shown >= limit:
                break
    except (JournalError, SchemaMismatch, OSError) as exc:
        raise click.ClickException(str(exc)) from None
