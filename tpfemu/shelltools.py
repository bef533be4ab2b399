"""Shell tools for people: ``tpfemu put``, ``tpfemu get`` and ``tpfemu browse``, in the
manner of IBM's sample programs amqsput, amqsget and amqsbcg.

::

    tpfemu put  APP.Q [TPF1] [MESSAGE ...]   # messages from the arguments, else stdin lines
    tpfemu get  APP.Q [TPF1] [--wait SECONDS]
    tpfemu browse APP.Q [TPF1]               # every MQMD field, then the data as hex and text

Each acts on the queue manager of a home (``--home``/``TPFEMU_HOME``, as the other
subcommands): it starts that system in this process, connects through the MQI as an
application would, does its work and stops the system (a checkpoint), so only persistent
messages outlive one command (``--persistent``, or a queue with DEFPSIST YES). With
``--client CHANNEL/TCP/host(port)`` it connects as a client instead, through the same
connect function as every pymqi program (:mod:`tpfemu.mqi.binding`), and starts nothing.

As amqsput, ``put`` reads one message per line of standard input and ends at an empty
line or the end of input; as amqsget, ``get`` removes and prints messages until there are
none (waiting ``--wait`` seconds for more; amqsget waits 15). Errors are MQ errors with
their mnemonic, exit status 1.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any, TextIO

import click

from tpfemu import errors
from tpfemu.cli_errors import translate_errors
from tpfemu.mq import cmqc, cmqxc
from tpfemu.mq.connstructs import CD
from tpfemu.mq.structs import GMO, MD, PMO
from tpfemu.mqi.api import Queue, QueueManager
from tpfemu.mqi.binding import parse_mqserver

__all__ = ["browse", "commands", "format_message", "get", "hex_dump", "put"]

_BYTES_PER_LINE = 16




def _client_cd(client: str) -> CD:
    """The client-connection MQCD of a ``CHANNEL/TCP/host(port)`` value (checked by the
    connect function's own MQSERVER rules: 2277 when it is not that)."""
    channel, _addresses = parse_mqserver(client)
    conn_name = client.split("/", 2)[2].strip()
    return CD(ChannelName=channel, ConnectionName=conn_name,
              ChannelType=cmqxc.MQCHT_CLNTCONN, TransportType=cmqxc.MQXPT_TCP)


@contextlib.contextmanager
def session(qmgr_name: str, home: str | None, cpu: str,
            client: str | None) -> Iterator[QueueManager]:
    """A connection to ``qmgr_name``: as a client when ``client`` is given, else to the
    system of ``home`` started here (stopped again at the end)."""
    if client:
        qm = QueueManager(None)
        qm.connect_with_options(qmgr_name, cd=_client_cd(client))
        try:
            yield qm
        finally:
            if qm.is_connected:
                qm.disconnect()
        return
    from tpfemu.system import System

    with System.start(name=qmgr_name, home=home, cpu=cpu):
        qm = QueueManager(qmgr_name)
        try:
            yield qm
        finally:
            if qm.is_connected:
                qm.disconnect()


def _messages(args: tuple[str, ...], stdin: TextIO) -> Iterator[str]:
    if args:
        yield from args
        return
    for line in stdin:
        text = line.rstrip("\r\n")
        if not text:
            return  # amqsput: an empty line ends the input
        yield text


def hex_dump(data: bytes) -> list[str]:
    """The data as amqsbcg shows it: offset, 16 bytes in hex groups of 2, then the text
    (``.`` for what is not printable ASCII)."""
    lines = []
    for start in range(0, len(data), _BYTES_PER_LINE):
        chunk = data[start:start + _BYTES_PER_LINE]
        pairs = [chunk[i:i + 2].hex().upper() for i in range(0, len(chunk), 2)]
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{start:08X}:  {' '.join(pairs):<39}  '{text:<16}'")
    return lines


def _field_text(value: Any) -> str:
    if isinstance(value, bytes):
        if all(32 <= b < 127 for b in value):
            return repr(value.decode("ascii"))
        return "X'" + value.hex().upper() + "'"
    return str(value)


def format_message(number: int, md: MD, data: bytes) -> str:
    """One browsed message as amqsbcg prints it: every MQMD field, then the data."""
    lines = [f"MQGET of message number {number}", "****Message descriptor****"]
    lines += [f"  {name:<18}: {_field_text(value)}" for name, value in md.get().items()]
    lines += ["", "****   Message      ****", "",
              f" length - {len(data)} of {len(data)} bytes", ""]
    lines += hex_dump(data)
    return "\n".join(lines) + "\n"


def _connection_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed([
        click.option("--home", envvar="TPFEMU_HOME", type=click.Path(file_okay=False),
                     default=None, help="Directory of the system's files; default: in memory."),
        click.option("--cpu", default="B", show_default=True,
                     help="Processor ID of the system started for the home (A-Z)."),
        click.option("--client", default=None, metavar="CHANNEL/TCP/HOST(PORT)",
                     help="Connect as a client over this channel instead (as MQSERVER)."),
    ]):
        fn = option(fn)
    return fn


@click.command()
@click.argument("queue")
@click.argument("qmgr", required=False, default="TPF1")
@click.argument("messages", nargs=-1)
@_connection_options
@click.option("--persistent/--not-persistent", default=None,
              help="Make the messages persistent or not; default: the queue's DEFPSIST.")
@click.option("--priority", type=click.IntRange(0, 9), default=None,
              help="Message priority; default: the queue's DEFPRTY.")
@translate_errors
def put(queue: str, qmgr: str, messages: tuple[str, ...], home: str | None, cpu: str,
        client: str | None, persistent: bool | None, priority: int | None) -> None:
    """Put MESSAGES (else each line of standard input, up to an empty line) on QUEUE of
    queue manager QMGR, as amqsput does."""
    persistence = {None: cmqc.MQPER_PERSISTENCE_AS_Q_DEF, True: cmqc.MQPER_PERSISTENT,
                   False: cmqc.MQPER_NOT_PERSISTENT}[persistent]
    count = 0
    with session(qmgr, home, cpu, client) as qm:
        q = Queue(qm, queue, cmqc.MQOO_OUTPUT | cmqc.MQOO_FAIL_IF_QUIESCING)
        for text in _messages(messages, sys.stdin):
            md = MD(Format=cmqc.MQFMT_STRING, Persistence=persistence,
                    Priority=cmqc.MQPRI_PRIORITY_AS_Q_DEF if priority is None else priority)
            q.put(text, md, PMO(Options=cmqc.MQPMO_NO_SYNCPOINT | cmqc.MQPMO_FAIL_IF_QUIESCING))
            count += 1
        q.close()
    click.echo(f"{count} message(s) put on {queue}")


@click.command()
@click.argument("queue")
@click.argument("qmgr", required=False, default="TPF1")
@_connection_options
@click.option("--wait", "wait", type=click.FloatRange(0), default=0.0, show_default=True,
              help="Seconds to wait for another message (amqsget waits 15).")
@translate_errors
def get(queue: str, qmgr: str, home: str | None, cpu: str, client: str | None,
        wait: float) -> None:
    """Get every message from QUEUE of queue manager QMGR and print it, as amqsget does."""
    count = 0
    with session(qmgr, home, cpu, client) as qm:
        q = Queue(qm, queue, cmqc.MQOO_INPUT_AS_Q_DEF | cmqc.MQOO_FAIL_IF_QUIESCING)
        options = cmqc.MQGMO_NO_SYNCPOINT | cmqc.MQGMO_FAIL_IF_QUIESCING
        if wait:
            options |= cmqc.MQGMO_WAIT
        while True:
            gmo = GMO(Options=options, WaitInterval=int(wait * 1000))
            try:
                data = q.get(None, MD(), gmo)
            except errors.NoMessageAvailable:
                break
            count += 1
            click.echo(f"message <{data.decode('utf-8', errors='replace')}>")
        q.close()
    click.echo(f"no more messages ({count} got)")


@click.command()
@click.argument("queue")
@click.argument("qmgr", required=False, default="TPF1")
@_connection_options
@translate_errors
def browse(queue: str, qmgr: str, home: str | None, cpu: str, client: str | None) -> None:
    """Browse every message on QUEUE of queue manager QMGR, leaving them there, and print
    each one's MQMD in full and its data as hex and text, as amqsbcg does."""
    count = 0
    with session(qmgr, home, cpu, client) as qm:
        q = Queue(qm, queue, cmqc.MQOO_BROWSE | cmqc.MQOO_FAIL_IF_QUIESCING)
        position = cmqc.MQGMO_BROWSE_FIRST
        while True:
            md = MD(Version=cmqc.MQMD_VERSION_2)
            gmo = GMO(Options=position | cmqc.MQGMO_NO_WAIT | cmqc.MQGMO_FAIL_IF_QUIESCING)
            try:
                data = q.get(None, md, gmo)
            except errors.NoMessageAvailable:
                break
            count += 1
            click.echo(format_message(count, md, data))
            position = cmqc.MQGMO_BROWSE_NEXT
        q.close()
    click.echo(f"No more messages ({count} browsed)")


#: The commands, for the CLI to register.
commands = (put, get, browse)
