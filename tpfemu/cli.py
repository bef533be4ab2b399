"""The ``tpfemu`` command: one click group; every command's errors become clear messages.

Exit status: 0 success, 1 failure (a tpfemu error), 2 usage error (click's own, and the
option checks of :mod:`tpfemu.cli_validation`). Errors are one line; a defect too (its
traceback is shown when ``TPFEMU_DEBUG`` is set).
"""

from __future__ import annotations

import click

from tpfemu import __version__, errors
from tpfemu import cli_validation as cv
from tpfemu.cli_errors import translate_errors
from tpfemu.console.script import script_commands
from tpfemu.journal.cli import journal as journal_commands
from tpfemu.pipeline.cli import analyze, compare, replay_command

home_option = click.option(
    "--home",
    envvar="TPFEMU_HOME",
    type=click.Path(file_okay=False),
    default=None,
    help="Directory holding the system's files (LMDB stores); default: in memory only.",
)




@click.group()
@click.version_option(__version__, prog_name="tpfemu")
def main() -> None:
    """Emulate an IBM TPF system and its MQSeries local queue manager."""


name_option = click.option("--name", default="TPF1", show_default=True,
                           callback=lambda _ctx, _param, value: cv.check_name(value),
                           help="Queue manager name (what MQCONN names).")
cpu_option = click.option("--cpu", default="B", show_default=True, type=cv.CPU,
                          help="Processor ID of this TPF system (A-Z).")


@main.command()
@click.argument("scripts", nargs=-1, type=click.File("r"))
@home_option
@cv.create_option
@name_option
@cpu_option
@click.option("--journal", "journal", type=click.Choice(["off", "events", "payload"]),
              default="events", show_default=True, envvar="TPFEMU_JOURNAL",
              help="Event journal level in HOME/journal (needs --home).")
@click.option("-e", "--no-echo", "no_echo", is_flag=True,
              help="Do not echo the commands of scripts and piped input (runmqsc -e).")
@click.option("-v", "--verify", is_flag=True,
              help="Check the syntax of ZMQSC commands; run nothing (runmqsc -v).")
@click.option("--load", "loads", multiple=True, metavar="NAME=FILE",
              help="Load the C program NAME from the shared object FILE (repeatable).")
@translate_errors
def run(scripts, home: str | None, create: bool, name: str, cpu: str, journal: str,
        no_echo: bool, verify: bool, loads: tuple[str, ...] = ()) -> None:
    """Boot a TPF system, run command SCRIPTS, then take commands from the console.

    \b
    Scripts hold one command per line (ZMQSC ..., ZINET ...); lines starting with * or #
    are comments; a line ending in + or - continues on the next. After the scripts,
    commands are read from the terminal (line editing, history in the home, Tab
    completion, HELP) or from standard input until END, EXIT, Ctrl-D or ZMQSC STOP QMGR.
    """
    import sys

    from tpfemu.console.interactive import Session
    from tpfemu.system import System

    path = cv.prepare_home(home, create=create)
    with System.start(name=name, home=path, cpu=cpu, console=click.echo,
                      journal=journal) as system:
        session = Session(system, click.echo, echo=not no_echo, verify=verify)
        _load_programs(system, loads)
        for script in scripts:
            if not session.run_lines(script):
                return
        session.run_terminal(sys.stdin, home=path)


@main.command()
@click.argument("command")
@home_option
@cv.create_option
@name_option
@cpu_option
@translate_errors
def cmd(command: str, home: str | None, create: bool, name: str, cpu: str) -> None:
    """Run one console COMMAND on a new system with that home and print the response.

    \b
    Example: tpfemu cmd "ZMQSC DISP QMGR"
    Exit status 1 when the response is an error (an E message).
    """
    from tpfemu.system import System

    path = cv.prepare_home(home, create=create)
    with System.start(name=name, home=path, cpu=cpu) as system:
        response = system.console(command)
    click.echo(response)
    first = response.split(" ", 1)[0]
    if first[-1:] == "E":
        raise SystemExit(1)


def _load_example(path):
    """Import an example program module from the repository's examples/ directory."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"tpfemu_example_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise errors.TpfEmuError(f"cannot load the example program {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@main.command()
@home_option
@click.option("--requests", "count", default=40, show_default=True,
              type=click.IntRange(1, 100_000), help="How many balance requests to send.")
@click.option("--channels", is_flag=True,
              help="Show two systems doing request/reply over channels, with a cut "
                   "connection and its recovery (issue 25).")
@click.option("--bridge", is_flag=True,
              help="Show a second system driving a legacy application through the ROUTC "
                   "bridge over a FAST channel (issue 27, examples/bridge/inquiry.py).")
@translate_errors
def demo(home: str | None, count: int, channels: bool, bridge: bool = False) -> None:
    """Run a legacy TPF application end to end, the way an operator and a client see it.

    \b
    1. Boot a TPF system (processor B) with queue manager TPF1.
    2. Define the profile, the queues, a process and a trigger with ZMQSC commands
       (examples/bank/setup.mqsc).
    3. Send balance requests before the application is loaded: the trigger cannot
       start it, the console says so, the queue fills past its depth warning level.
    4. Load the legacy program BNK1 (examples/bank/bnk1.py): the next trigger starts it
       as a TPF entry with the MQTMC2 on data level 0, and it answers every request.
    5. Show the console, the queue display with its trigger counters, and a summary.
    """
    if bridge:
        _bridge_demo(count)
    elif channels:
        _channels_demo(count)
    else:
        _bank_demo(home, count)


def _channels_demo(count: int) -> None:
    """The channels demo (tpfemu/channels/demo.py) on two in-memory systems."""
    from tpfemu.channels.demo import run as channels_demo
    from tpfemu.system import System

    if not channels_demo(lambda name: System.start(name=name, journal="off"), click.echo,
                         min(count, 200)):
        raise errors.TpfEmuError("the channels demo did not get every reply once")


def _bridge_demo(count: int) -> None:
    """The ROUTC bridge demo over channels (examples/bridge/inquiry.py, ``wire``)."""
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "bridge" / "inquiry.py"
    if not example.is_file():
        raise errors.TpfEmuError(f"the demo's application is not here: {example}")
    if not _load_example(example).wire(min(count, 1000), click.echo):
        raise errors.TpfEmuError("the bridge demo did not get every reply")


def _bank_demo(home: str | None, count: int) -> None:
    """The bank demo: the steps ``demo`` lists."""
    import time
    from pathlib import Path

    import tpfemu.mqi as pymqi
    from tpfemu.mqi import CMQC
    from tpfemu.system import System

    examples = Path(__file__).resolve().parents[1] / "examples" / "bank"
    if not examples.is_dir():
        raise errors.TpfEmuError(f"the demo's application is not here: {examples}")
    say = click.echo

    def step(text: str) -> None:
        say(click.style(text, bold=True))

    import tempfile

    console_lines: list[str] = []
    started = time.monotonic()
    embedded = None
    if home is None:  # the demo's own home, removed afterwards
        embedded = tempfile.TemporaryDirectory(prefix="tpfemu-demo-")
        home = embedded.name
    else:
        home = str(cv.prepare_home(home, create=False))
    with System.start(name="TPF1", home=home, cpu="B", console=console_lines.append) as system:
        step("1. A TPF system is up: processor B, queue manager TPF1")
        step("2. The operator defines the application with ZMQSC (examples/bank/setup.mqsc)")
        for command in script_commands((examples / "setup.mqsc").read_text().splitlines()):
            say(click.style(f"   B> {command}", fg="cyan"))
            for line in system.console(command).splitlines():
                say(f"   {line}")

        step(f"3. A client sends {count} balance requests; BNK1 is not loaded yet")
        qm = pymqi.connect("TPF1")
        requests = pymqi.Queue(qm, "BANK.REQUEST", CMQC.MQOO_OUTPUT)
        msg_ids = []
        with click.progressbar(range(count), label="   sending") as bar:
            for i in bar:
                md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"BANK.REPLY",
                              Format=CMQC.MQFMT_STRING)
                requests.put(b"%08d" % (1000 + i), md)
                msg_ids.append(bytes(md.MsgId))
        system.console("ZMQSC DISP QL-BANK.REQUEST")  # lets the depth monitor look now
        monitor = getattr(system, "depth_monitor", None)
        if monitor is not None:
            monitor.check()
        kept = [line for line in console_lines if "BNK1" in line]
        if kept:
            say(f"   console: {kept[0]}")
            if len(kept) > 1:
                say(f"   console: ... and so for each of the {len(kept)} triggers, all kept")
        for line in console_lines:
            if "QDEPTHHI" in line:
                say(f"   console: {line}")

        step("4. The operator loads BNK1; the next request's trigger starts it")
        _load_example(examples / "bnk1.py").load(system)
        md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"BANK.REPLY",
                      Format=CMQC.MQFMT_STRING)
        requests.put(b"%08d" % 9999, md)
        msg_ids.append(bytes(md.MsgId))
        replies = pymqi.Queue(qm, "BANK.REPLY", CMQC.MQOO_INPUT_SHARED)
        gmo = pymqi.GMO(Version=CMQC.MQGMO_VERSION_2, Options=CMQC.MQGMO_WAIT,
                        WaitInterval=5000, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        answers = []
        with click.progressbar(msg_ids, label="   replies ") as replies_bar:
            for msg_id in replies_bar:
                answers.append(replies.get(None, pymqi.MD(CorrelId=msg_id), gmo))
        say(f"   first reply: {answers[0].decode()!r}")
        say(f"   last reply:  {answers[-1].decode()!r}")
        system.dispatcher.wait_idle(5)

        step("5. What the operator sees")
        for line in system.console("ZMQSC DISP QL-BANK.REQUEST").splitlines():
            say(f"   {line}")
        stats = system.dispatcher.stats()
        queue = system.qmgr.queues["BANK.REQUEST"]
        say("")
        say(f"   requests sent {len(msg_ids)}, replies matched by CorrelId {len(answers)}, "
            f"requests left {queue.core.depth}")
        say(f"   triggers fired {queue.trigger_state.get('fired', 0)}, BNK1 entries "
            f"{stats.calls.get('BNK1', 0)}, entries failed {stats.failed}, "
            f"console lines {len(console_lines)}, {time.monotonic() - started:.2f} s")
        replies.close()
        requests.close()
        qm.disconnect()
    if embedded is not None:
        embedded.cleanup()


# The journal and the Spark pipeline (pyarrow and Spark are imported only when they run).
# Replay runs command scripts: it is handed the console's script rules (the pipeline does
# not import the console, which sits on its layer).
main.add_command(journal_commands)
for _command in (analyze, replay_command(script_commands), compare):
    main.add_command(_command)

# amqsput/amqsget/amqsbcg-like shell tools: tpfemu put, get, browse.
from tpfemu.shelltools import commands as _shell_tools  # noqa: E402

for _command in _shell_tools:
    main.add_command(_command)

# Every command's --cpu and --name are checked alike, before it runs.
cv.check_common_options(main)

# -- C programs (docs/cprograms.md) ------------------------------------------------------------


def _load_programs(system, loads: tuple[str, ...]) -> None:
    """Load each NAME=FILE C program into the system's program table."""
    for spec in loads:
        pgm, sep, path = spec.partition("=")
        if not sep or not path:
            raise click.BadParameter(f"{spec!r}: expected NAME=FILE", param_hint="--load")
        try:
            system.programs.load_shared(pgm.strip().upper(), path)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--load") from None


@main.command("cc", context_settings={"ignore_unknown_options": True})
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The shared object to write.")
@click.option("--show", is_flag=True, help="Print the compiler line instead of running it.")
@click.argument("sources", nargs=-1, required=True)
@translate_errors
def cc(output: str, show: bool, sources: tuple[str, ...]) -> None:
    """Build a C program (SOURCES, and compiler flags) into a shared object to load.

    \b
    It compiles against tpfemu's headers (cmqc.h, tpf/tpfapi.h) with -Wall -Wextra
    -Werror, and links exit() as EXITC. Example: tpfemu cc -o qzz1.so qzz1.c
    """
    import shlex

    from tpfemu.cprog.build import compile_program, compiler_line

    files = [s for s in sources if not s.startswith("-")]
    flags = [s for s in sources if s.startswith("-")]
    if show:
        click.echo(shlex.join(compiler_line(files, output, flags)))
        return
    compile_program(files, output, flags)


@main.command("exec", context_settings={"ignore_unknown_options": True})
@click.argument("program", type=click.Path(exists=True, dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@home_option
@name_option
@cpu_option
@click.option("--script", "scripts", multiple=True, type=click.File("r"),
              help="Run this command script before the program (repeatable).")
@click.option("--load", "loads", multiple=True, metavar="NAME=FILE",
              help="Load the C program NAME from the shared object FILE (repeatable).")
@click.option("--program", "program_name", default=None,
              help="The entry's 4-character program name (default: from the file name).")
@translate_errors
def exec_command(program: str, args: tuple[str, ...], home: str | None, name: str, cpu: str,
                 scripts, loads: tuple[str, ...], program_name: str | None) -> None:
    """Run the main() of a C PROGRAM (a shared object) in an entry of a TPF system.

    \b
    The program reads standard input and writes standard output; console lines go to
    standard error. The exit status is main's. Example:
      tpfemu exec --script setup.mqsc sput.so APP.Q < lines.txt
    """
    import sys

    from tpfemu.console.interactive import Session
    from tpfemu.cprog.execute import exec_program
    from tpfemu.system import System

    def say(line: str) -> None:
        click.echo(line, err=True)

    with System.start(name=name, home=home, cpu=cpu, console=say) as system:
        _load_programs(system, loads)
        session = Session(system, say)
        for script in scripts:
            if not session.run_lines(script):
                break
        code = exec_program(system, program, args, program=program_name, say=say)
    sys.stdout.flush()
    raise SystemExit(code)
