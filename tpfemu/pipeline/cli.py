"""The pipeline's commands: ``tpfemu analyze``, ``tpfemu replay``, ``tpfemu compare``.

They need the ``pipeline`` extra (pyspark, pandas, matplotlib; Spark also needs Java 17+).
Without it a command says what to install and exits 1; the rest of tpfemu runs without it.

Exit status: 0 success (compare: identical), 1 compare found differences (or a replay
did not go quiet / had failing entries, or the pipeline extra is not installed), 2 bad
input or usage (a clear message naming the file and field, no traceback).
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

__all__ = ["analyze", "compare", "replay_command"]

master_option = click.option(
    "--master", envvar="TPFEMU_SPARK_MASTER", default=None,
    help="Spark master URL (default local[*]; e.g. spark://host:7077, yarn).")
inbound_option = click.option(
    "--inbound-queue", "inbound", multiple=True, metavar="QUEUE",
    help="A queue whose puts are inbound (every other queue is outbound); repeatable, "
         "a trailing * is a prefix. Default: puts outside a TPF entry are inbound.")
outbound_option = click.option(
    "--outbound-queue", "outbound", multiple=True, metavar="QUEUE",
    help="A queue whose puts are outbound (every other queue is inbound); repeatable.")

verbose_option = click.option(
    "--verbose", "-v", is_flag=True,
    help="Show Spark's, log4j's and the JVM's messages on the terminal (by default they "
         "go to OUT.log, next to the output directory).")
progress_option = click.option(
    "--progress/--no-progress", default=None,
    help="Show Spark's stages and tasks while the job runs (default: when stderr is a "
         "terminal).")


#: The distributions of the ``pipeline`` extra, by the module each provides.
PIPELINE_EXTRA = ("pyspark", "pandas", "matplotlib")
INSTALL_HINT = "pip install 'tpfemu[pipeline]'"


def _fail(command: str, message: str, status: int = 2) -> None:
    click.echo(f"tpfemu {command}: error: {message}", err=True)
    sys.exit(status)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken or half-imported package
        return False


def _missing_extra(command: str, missing: list[str]) -> None:
    """Say what is missing and how to install it; exit 1."""
    _fail(command, f"the pipeline needs {', '.join(missing)}, which "
                   f"{'is' if len(missing) == 1 else 'are'} not installed. Install the "
                   f"pipeline extra: {INSTALL_HINT} (Spark also needs Java 17 or newer)", 1)


def _clean_errors(command: str) -> Callable:
    """Bad input (missing, unreadable, wrong schema) and Spark read failures: exit 2
    with one line naming the file, no traceback. Without the pipeline extra: exit 1
    with what to install."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            missing = [module for module in PIPELINE_EXTRA if not _installed(module)]
            if missing:
                _missing_extra(command, missing)
            from tpfemu import errors
            from tpfemu.journal.schema import SchemaMismatch
            from tpfemu.pipeline.output import OutputError
            from tpfemu.pipeline.sources import InputError

            try:
                return fn(*args, **kwargs)
            except ModuleNotFoundError as exc:
                root = (exc.name or "").split(".")[0]
                if root not in (*PIPELINE_EXTRA, "py4j"):
                    raise
                _missing_extra(command, [root])
            except (InputError, SchemaMismatch, OutputError) as exc:
                _fail(command, str(exc))
            except errors.TpfEmuError as exc:  # the journal's JournalError, replay errors
                if isinstance(exc, ValueError):
                    _fail(command, str(exc))
                raise click.ClickException(str(exc)) from exc
            except Exception as exc:
                spark_error = _spark_error(exc)
                if spark_error is None:
                    raise
                if "not a readable Parquet file" in spark_error:
                    _fail(command, spark_error)
                _fail(command, f"Spark could not run the job: {spark_error}")

        return wrapper

    return wrap


_FAILED_FILE = re.compile(r"error while reading file (?:file:/*)?(/?\S+?)\.?\s")
_CAUSE = re.compile(r"Caused by: [\w.$]+: (.+)")


def _spark_error(exc: BaseException) -> str | None:
    """A Spark/Py4J error in one line, or None for any other exception. A file Spark
    failed to read is named, with the deepest cause Spark gives."""
    names = {cls.__module__.split(".")[0] for cls in type(exc).__mro__}
    if not names & {"pyspark", "py4j"}:
        return None
    text = str(exc)
    failed = _FAILED_FILE.search(text)
    if failed:
        causes = _CAUSE.findall(text)
        why = f" ({causes[-1].strip()})" if causes else ""
        return f"/{failed.group(1).lstrip('/')}: not a readable Parquet file{why}"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def _warn(command: str, summary: dict) -> None:
    """Print the job's warnings (inputs read in part) on stderr."""
    for line in summary.get("warnings", ()):
        click.echo(f"tpfemu {command}: warning: {line}", err=True)


def _log_of(out: str, verbose: bool) -> Path | None:
    """Where the JVM's messages go: ``OUT.log`` beside the output, or None (--verbose)."""
    if verbose:
        return None
    target = Path(out).resolve()
    return target.parent / f"{target.name}.log"


def _started(master: str | None, log: Path | None, inputs: list[Any]):
    """The session of a command on ``inputs`` (:class:`~.sources.Inputs`) and its
    :class:`~.jvm.Launch`: the JVM started with the options :mod:`.jvm` picks for the
    inputs' size (on a ``local[N]`` master; a session already active is used as it
    is). A JVM that cannot start with its class-data archive (damaged) has the archive
    removed and starts without it."""
    from pyspark.errors import PySparkRuntimeError
    from pyspark.sql import SparkSession

    from tpfemu.pipeline import jvm
    from tpfemu.pipeline.session import DEFAULT_MASTER, get_session

    if SparkSession.getActiveSession() is not None:  # (its JVM runs already)
        return get_session(master, log=log), jvm.Launch("")
    sizes = [i.local_bytes() for i in inputs]
    size = None if None in sizes else sum(s for s in sizes if s is not None)
    local = re.fullmatch(r"local(\[[^\]]*\])?", master or DEFAULT_MASTER) is not None
    launch = jvm.launch_options(size, local=local)
    try:
        return get_session(master, log=log, java_options=launch.options), launch
    except PySparkRuntimeError:
        if launch.uses is None:
            raise
        jvm.discard(launch)
        launch = jvm.launch_options(size, local=local)
        return get_session(master, log=log, java_options=launch.options), launch


def _progress(spark, enabled: bool | None):
    from tpfemu.pipeline.progress import StageProgress

    stream = sys.stderr
    if enabled is None:
        enabled = stream.isatty()
    return StageProgress(spark, stream, enabled=bool(enabled))


def _rule(inbound, outbound):
    from tpfemu.pipeline.capture import Direction

    try:
        return Direction(tuple(inbound), tuple(outbound))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


@click.command()
@click.argument("journal", nargs=-1, required=True)
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Output directory (replaced atomically when complete).")
@master_option
@verbose_option
@progress_option
@_clean_errors("analyze")
def analyze(journal: tuple[str, ...], out: str, master: str | None, verbose: bool,
            progress: bool | None) -> None:
    """Per-queue, per-minute traffic of JOURNAL (journal homes, segment files, Parquet
    files or directories, or any URI Spark reads): Parquet tables plus report.html and
    report.md with charts, in OUT."""
    from tpfemu.pipeline import analyze as job
    from tpfemu.pipeline import jvm, report
    from tpfemu.pipeline.output import check_out
    from tpfemu.pipeline.sources import Inputs

    check_out(out, list(journal))
    inputs = Inputs(journal)
    spark, launch = _started(master, _log_of(out, verbose), [inputs])
    try:
        with _progress(spark, progress):
            summary = job.run(spark, inputs, out)
    finally:
        jvm.finish(launch, spark)
    _warn("analyze", summary)
    click.echo(f"analyzed {summary['events']:,} message events on {summary['queues']} "
               f"queues in {summary['seconds']:.1f} s: {out}/report.html")
    click.echo(report.analyze_text(summary))


@click.command()
@click.argument("expected")
@click.argument("actual")
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Output directory (replaced atomically when complete).")
@click.option("--ignore", multiple=True, metavar="FIELD",
              help="A descriptor field not to compare (priority, persistent, expiry, "
                   "length, group_id, msg_id, correl_id); repeatable.")
@inbound_option
@outbound_option
@master_option
@verbose_option
@progress_option
@_clean_errors("compare")
def compare(expected: str, actual: str, out: str, ignore: tuple[str, ...],
            inbound: tuple[str, ...], outbound: tuple[str, ...], master: str | None,
            verbose: bool, progress: bool | None) -> None:
    """Compare the outbound messages of EXPECTED and ACTUAL (captures or journals): missing,
    extra, payload-changed, descriptor-changed and reordered messages, into OUT.

    Exit status 0 when they match, 1 when they differ, 2 on bad input."""
    from tpfemu.pipeline import compare as job
    from tpfemu.pipeline import jvm, report
    from tpfemu.pipeline.output import check_out
    from tpfemu.pipeline.sources import Inputs

    unknown = set(ignore) - set(job.DESCRIPTOR_FIELDS)
    if unknown:
        raise click.BadParameter(f"unknown field(s) {', '.join(sorted(unknown))}; fields "
                                 f"are {', '.join(job.DESCRIPTOR_FIELDS)}", param_hint="--ignore")
    rule = _rule(inbound, outbound)
    check_out(out, [expected, actual])
    expected_inputs, actual_inputs = Inputs([expected]), Inputs([actual])
    spark, launch = _started(master, _log_of(out, verbose),
                             [expected_inputs, actual_inputs])
    try:
        with _progress(spark, progress):
            summary = job.run(spark, expected_inputs, actual_inputs, out, rule=rule,
                              ignore=ignore)
    finally:
        jvm.finish(launch, spark)
    _warn("compare", summary)
    c = summary["counts"]
    verdict = "identical" if summary["identical"] else "DIFFERENT"
    click.echo(f"{verdict}: expected {c['expected']:,}, actual {c['actual']:,}, "
               f"matched {c['matched']:,}; missing {c['missing']:,}, extra {c['extra']:,}, "
               f"payload changed {c['payload_changed']:,}, descriptor changed "
               f"{c['descriptor_changed']:,}, reordered {c['reordered']:,} "
               f"({summary['seconds']:.1f} s): {out}/report.html")
    click.echo(report.compare_text(summary))
    if not summary["identical"]:
        sys.exit(1)


def replay_command(split_script: Callable[[list[str]], list[str]]) -> click.Command:
    """The ``tpfemu replay`` command. ``split_script`` turns the lines of a ``--script``
    file into command lines (the console's script rules, handed in by ``tpfemu.cli``)."""

    @click.command()
    @click.argument("capture", nargs=-1, required=True)
    @click.option("--home", required=True, type=click.Path(file_okay=False),
                  help="Home of the emulated system; its journal (HOME/journal) is the result.")
    @click.option("--script", "scripts", multiple=True, type=click.File("r"),
                  help="Command script to run after boot (e.g. setup.mqsc); repeatable.")
    @click.option("--programs", default=None, metavar="MODULE",
                  help="Module name or .py file whose load(system) loads the programs.")
    @click.option("--name", default="TPF1", show_default=True, help="Queue manager name.")
    @click.option("--cpu", default="B", show_default=True, help="Processor ID (A-Z).")
    @click.option("--speed", type=float, default=None,
                  help="Follow the recorded timing, scaled (1 as recorded, 10 ten times "
                       "faster). Default: put back to back.")
    @click.option("--reply-to", default=None, metavar="QUEUE",
                  help="ReplyToQ for inbound messages whose capture row names none.")
    @click.option("--istreams", type=click.IntRange(1, 64), default=None,
                  help="I-streams (entries running at once); 1 keeps a program's replies in "
                       "arrival order.")
    @click.option("--timeout", type=float, default=60.0, show_default=True,
                  help="Seconds to wait for the system to go quiet after the last put.")
    @inbound_option
    @outbound_option
    @click.option("--quiet", "-q", is_flag=True, help="Do not echo the console.")
    @_clean_errors("replay")
    def replay(capture, home, scripts, programs, name, cpu, speed, reply_to, istreams, timeout,
               inbound, outbound, quiet) -> None:
        """Feed the inbound messages of CAPTURE into an emulated system, in recorded order,
        and journal (level payload) what it produces in HOME/journal."""
        from tpfemu.pipeline.replay import replay as run_replay

        commands = [c for script in scripts for c in split_script(script.readlines())]
        if speed is not None and speed <= 0:
            raise click.BadParameter("must be positive", param_hint="--speed")
        result = run_replay(capture, home, name=name, cpu=cpu, script=commands,
                            programs=programs, speed=speed, rule=_rule(inbound, outbound),
                            reply_to=reply_to, istreams=istreams, timeout=timeout,
                            echo=None if quiet else click.echo)
        click.echo(f"replayed {result.inbound:,} inbound messages in {result.seconds:.2f} s; "
                   f"{result.entries:,} entries ran, {result.failed} failed; journal: "
                   f"{result.journal}")
        if result.full_waits:
            click.echo(f"waited {result.waited:.2f} s for full queues to drain "
                       f"({result.full_waits:,} puts found their queue full)")
        for hint in result.hints or ():
            click.echo(f"hint: {hint}", err=True)
        if not result.quiescent:
            click.echo(f"tpfemu replay: the system did not go quiet within {timeout:g} s",
                       err=True)
            sys.exit(1)
        if result.failed:
            sys.exit(1)

    return replay
