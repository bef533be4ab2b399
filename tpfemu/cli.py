"""The ``tpfemu`` command: one click group; every command's errors become clear messages.

Exit status: 0 success, 1 failure (a tpfemu error), 2 usage error (click's own).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import click

from tpfemu import __version__, errors

home_option = click.option(
    "--home",
    envvar="TPFEMU_HOME",
    type=click.Path(file_okay=False),
    default=None,
    help="Directory holding the system's files (LMDB stores); default: in memory only.",
)


def _translate_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn tpfemu errors into click errors (exit status 1) with the MQ mnemonic."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except errors.TpfEmuError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


@click.group()
@click.version_option(__version__, prog_name="tpfemu")
def main() -> None:
    """Emulate an IBM TPF system and its MQSeries local queue manager."""


@main.command()
@home_option
@_translate_errors
def demo(home: str | None) -> None:
    """Show the message core and the ECB runtime at work, step by step.

    \b
    1. A queue delivers by priority, then first-in first-out.
    2. A reply is found by its CorrelId among many messages.
    3. A browse cursor reads without removing; a unit of work backs out.
    4. An expired message is discarded by the get that meets it.
    5. A legacy program, QZZ1, runs as TPF entries (CREEC hands it a core block on
       data level D0) and puts what it reads onto a queue.
    """
    from ecb import Dispatcher, Ecb, Level, Programs
    from tpfemu._lowlevel import CoreQueue

    del home  # the demo keeps everything in memory
    say = click.echo

    say(click.style("1. Priority order", bold=True))
    with CoreQueue("APP.IN") as q:
        for text, prio in [(b"routine 1", 0), (b"URGENT", 9), (b"routine 2", 0), (b"high", 6)]:
            q.put(text, prio)
            say(f"   put {text.decode():<10} priority {prio}")
        order = [q.get().decode() for _ in range(4)]
        say(f"   got in order: {', '.join(order)}")

    say(click.style("2. A reply matched by CorrelId among 10 000 messages", bold=True))
    with CoreQueue("APP.REPLY") as q:
        for i in range(10_000):
            q.put_message(b"reply %d" % i, correl_id=b"%024d" % i)
        msg = q.get_message(correl_id=b"%024d" % 7_777)
        say(f"   get by CorrelId 7777 -> {msg.data.decode()!r}; depth now {q.depth}")

    say(click.style("3. Browse, and a unit of work backed out", bold=True))
    with CoreQueue("APP.WORK") as q:
        for text in (b"first", b"second"):
            q.put(text)
        with q.cursor() as c:
            say(f"   browse: {[m.data.decode() for m in c]} (depth still {q.depth})")
        got = q.get_message(uow=1)
        say(f"   got {got.data.decode()!r} under unit of work 1; depth {q.depth} until commit")
        q.backout(1)
        again = q.get_message()
        say(
            f"   after backout it is back first: {again.data.decode()!r}, "
            f"backout count {again.descriptor.backout_count}"
        )

    say(click.style("4. Expiry, as IBM documents it", bold=True))
    with CoreQueue("APP.TIMED") as q:
        second = 1_000_000
        q.put_message(b"stale quote", priority=5, expiry=10 * second)
        q.put_message(b"fresh quote", priority=5)
        say(f"   depth {q.depth}: an expired message still counts until a get meets it")
        msg = q.get_message(now=11 * second)
        expired = q.take_expired()
        say(
            f"   get returns {msg.data.decode()!r}; discarded for an expiration report: "
            f"{expired.data.decode() if expired else None!r}"
        )

    say(click.style("5. Program QZZ1 runs as TPF entries", bold=True))
    console: list[str] = []
    done = threading.Event()
    with CoreQueue("APP.OUT") as out:

        def qzz1(ecb: Ecb) -> None:
            block = ecb.block(Level.D0)
            text = bytes(block).rstrip(b"\0") if block is not None else b"(no block)"
            out.put(b"QZZ1 saw " + text + b" params=" + bytes(ecb.ebw[:4]))
            if out.depth == 3:
                done.set()
            ecb.exitc()

        programs = Programs()
        programs.load("QZZ1", qzz1)
        with Dispatcher(programs, istreams=2, console=console.append) as disp:
            for i in range(3):
                disp.creec("QZZ1", b"order %d" % i, b"P%03d" % i)
            if not done.wait(5):
                raise errors.TpfEmuError("the QZZ1 entries did not finish within 5 seconds")
            disp.wait_idle(5)
            stats = disp.stats()
        results = sorted(out.get().decode() for _ in range(3))
    for line in results:
        say(f"   {line}")
    say(f"   entries created {stats.created}, completed {stats.completed}, failed {stats.failed}")
    say("")
    say("The MQI (pymqi-compatible), triggering, the ZMQSC console and persistence build")
    say("on these two layers; see README.md.")
