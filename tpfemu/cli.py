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
    """Show the queue manager, its MQI and the ECB runtime at work, step by step.

    \b
    1. Define the profile and queues (as ZMQSC DEF would).
    2. A pymqi program puts and gets by priority.
    3. A request is answered; the reply is found by its CorrelId.
    4. A unit of work is backed out: the message comes back, BackoutCount 1.
    5. An expired message is discarded and reported, as IBM documents.
    6. A legacy program, QZZ1, runs as TPF entries: CREEC hands it a core block on D0,
       and it puts what it reads inside a TPF commit scope.
    """
    import time

    import tpfemu.mqi as pymqi
    from ecb import Dispatcher, Ecb, Level, Programs
    from tpfemu.mqi import CMQC
    from tpfemu.qmgr.manager import QueueManager

    del home  # the demo keeps everything in memory
    say = click.echo

    def step(text: str) -> None:
        say(click.style(text, bold=True))

    with QueueManager("TPF1") as qmgr:
        step("1. Define the profile and queues")
        cat = qmgr.catalog
        cat.define("MQP")
        cat.define("QL", "APP.IN", maxdepth=1000)
        cat.define("QL", "APP.REPLY")
        cat.define("QA", "APP.ALIAS", targq="APP.IN", defprty=4)
        names = ", ".join(d.name for d in cat.list("Q"))
        say(f"   queues: {names}")

        step("2. Priority order through the MQI (pymqi's API)")
        qm = pymqi.connect("TPF1")
        q = pymqi.Queue(
            qm, "APP.IN", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INQUIRE
        )
        for text, prio in [(b"routine 1", 0), (b"URGENT", 9), (b"routine 2", 0), (b"high", 6)]:
            q.put(text, pymqi.MD(Priority=prio))
        order = [q.get().decode() for _ in range(4)]
        say(f"   got in order: {', '.join(order)}")

        step("3. Request and reply, matched by CorrelId")
        request = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"APP.REPLY")
        pymqi.Queue(qm, "APP.ALIAS").put(b"balance?", request)
        server_md = pymqi.MD()
        asked = q.get(None, server_md)
        reply = pymqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=server_md.MsgId)
        replies = pymqi.Queue(qm, "APP.REPLY", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        replies.put(b"noise", pymqi.MD(CorrelId=b"N".ljust(24, b".")))
        replies.put(b"balance: 42", reply)
        gmo = pymqi.GMO(Version=CMQC.MQGMO_VERSION_2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        answer = replies.get(None, pymqi.MD(CorrelId=request.MsgId), gmo)
        say(f"   asked {asked.decode()!r} via the alias (priority {server_md.Priority} from "
            f"its DEFPRTY); the reply by CorrelId: {answer.decode()!r}, past "
            f"{replies.get().decode()!r} put before it")

        step("4. A unit of work backed out")
        q.put(b"order 17")
        md = pymqi.MD()
        q.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        qm.backout()
        md = pymqi.MD()
        got = q.get(None, md)
        say(f"   after MQBACK {got.decode()!r} is back, BackoutCount {md.BackoutCount}")

        step("5. Expiry, as IBM documents it")
        q.put(b"stale quote", pymqi.MD(Expiry=1, ReplyToQ=b"APP.REPLY",
                                       Report=CMQC.MQRO_EXPIRATION_WITH_DATA))
        q.put(b"fresh quote")
        time.sleep(0.15)
        say(f"   0.15 s later the depth is still {q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)}: an "
            "expired message counts until a get meets it")
        fresh = q.get()
        report_md = pymqi.MD()
        report = replies.get(None, report_md)
        say(f"   get returns {fresh.decode()!r}; a report came back with Feedback "
            f"{report_md.Feedback} (MQFB_EXPIRATION) and data {report.decode()!r}")

        step("6. Program QZZ1 runs as TPF entries, using the MQI in a commit scope")
        done = threading.Event()

        def qzz1(ecb: Ecb) -> None:
            block = ecb.block(Level.D0)
            text = bytes(block).rstrip(b"\0") if block is not None else b""
            conn = pymqi.connect("TPF1")
            pymqi.tx_begin()
            pymqi.Queue(conn, "APP.REPLY").put(b"QZZ1 saw " + text)
            pymqi.tx_commit()  # nothing was visible before this
            if text.endswith(b"2"):
                done.set()
            ecb.exitc()

        programs = Programs()
        programs.load("QZZ1", qzz1)
        console: list[str] = []
        with Dispatcher(programs, istreams=2, console=console.append) as disp:
            for i in range(3):
                disp.creec("QZZ1", b"order %d" % i, b"P%03d" % i)
            if not done.wait(5):
                raise errors.TpfEmuError("the QZZ1 entries did not finish within 5 seconds")
            disp.wait_idle(5)
            stats = disp.stats()
        results = sorted(replies.get().decode() for _ in range(3))
        for line in results:
            say(f"   {line}")
        say(f"   entries created {stats.created}, completed {stats.completed}, "
            f"failed {stats.failed}")
        qm.disconnect()
    say("")
    say("Triggering, the ZMQSC console and persistence come next; see README.md.")
