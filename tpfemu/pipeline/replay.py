"""``replay``: feed a capture's inbound messages into an emulated system and journal what
it produces.

1. The inbound messages are read from the capture (rules in :mod:`.capture`) in recorded
   order (``event_time_us``, then ``seq``). Local files are read with pyarrow, without a
   JVM; URIs (``hdfs://`` ...) through Spark.
2. A system boots with the given home and ``journal="payload"``, so its journal
   (``HOME/journal``) is a capture of the run that ``compare`` can read directly.
3. An optional command script runs (as ``tpfemu run`` runs one: ZMQSC/ZINET lines, ``*``
   comments, ``+`` continuations), then a programs module is loaded: its ``load(system)``
   is called (a module name, or a path to a ``.py`` file).
4. Each inbound message is put with MQPUT on its recorded queue, outside syncpoint, with
   its recorded MsgId, CorrelId, GroupId, priority, persistence and expiry, and with
   the recorded MsgType, Format, ReplyToQ and ReplyToQMgr: the journal's columns
   (schema version 3), else the row's ``detail`` JSON keys of the same names (a capture
   made by another tool, or an older journal). ``reply_to`` overrides the ReplyToQ (and
   makes every message a request). With ``speed``, the puts
   follow the recorded timing scaled (2.0: twice as fast); without, back to back.
   A put that finds its queue full (MQRC_Q_FULL) waits for the programs to drain it and
   is retried, with a line saying so at the first wait of each episode; a queue that
   stays full for ``timeout`` seconds ends the replay with an error.
5. The run waits for quiescence (no entry queued or running, nothing changing, for
   ``settle`` seconds), flushes the journal and stops the system.

The console is echoed as the system shows it: a system-error dump that repeats is shown
once, then counted (``SYST0010W``; ``SYST0011W`` at stop gives the total).
"""

from __future__ import annotations

import importlib
import importlib.util
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tpfemu import errors

__all__ = ["ReplayResult", "load_programs", "read_inbound", "replay"]


@dataclass
class ReplayResult:
    """What a replay did."""

    inbound: int  #: messages put
    journal: Path  #: the journal directory of the run (HOME/journal)
    seconds: float
    quiescent: bool  #: False if ``timeout`` passed before the system went quiet
    entries: int  #: ECBs the dispatcher ran
    failed: int  #: entries that ended in a dump or an error
    full_waits: int = 0  #: puts that found their queue full and waited
    waited: float = 0.0  #: seconds spent waiting on full queues
    hints: list[str] | None = None  #: what may explain failed entries, one line each


def read_inbound(paths: Sequence[str], rule=None):
    """The inbound put rows of a capture, as a pyarrow Table in recorded order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tpfemu.pipeline.capture import arrow_inbound
    from tpfemu.pipeline.sources import EXTRA_COLUMNS, Inputs

    inputs = Inputs(paths)
    with inputs:
        tables = []
        wanted = pa.schema([*__import__("tpfemu.journal.schema", fromlist=["SCHEMA"]).SCHEMA,
                            *EXTRA_COLUMNS])
        for file in inputs.local_files():
            table = pq.read_table(file)
            columns = []
            for field in wanted:
                if field.name in table.column_names:
                    columns.append(table.column(field.name).cast(field.type))
                else:
                    columns.append(pa.nulls(table.num_rows, field.type))
            tables.append(pa.Table.from_arrays(columns, schema=wanted.remove_metadata()))
        if inputs.uris:
            from tpfemu.pipeline.capture import INBOUND, messages
            from tpfemu.pipeline.session import get_session
            from tpfemu.pipeline.sources import read_journal

            spark = get_session()
            only = Inputs(inputs.uris)
            with only:
                frame = messages(read_journal(spark, only), INBOUND, rule)
                got = frame.toArrow()
            tables.append(got.select(wanted.names).cast(wanted.remove_metadata()))
    table = pa.concat_tables(tables) if tables else None
    if table is None or table.num_rows == 0:
        return (table or pa.table({n: [] for n in wanted.names})).slice(0, 0)
    return arrow_inbound(table, rule)


def load_programs(spec: str, system) -> object:
    """Import ``spec`` (a module name or a ``.py`` path) and call its ``load(system)``."""
    path = Path(spec)
    if spec.endswith(".py") or path.is_file():
        if not path.is_file():
            raise errors.TpfEmuError(f"{spec}: no such programs file")
        module_spec = importlib.util.spec_from_file_location(
            f"tpfemu_replay_{path.stem}", path)
        if module_spec is None or module_spec.loader is None:
            raise errors.TpfEmuError(f"{spec}: cannot be loaded as a Python module")
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(spec)
        except ImportError as exc:
            raise errors.TpfEmuError(f"{spec}: cannot import the programs module ({exc})") \
                from None
    loader = getattr(module, "load", None)
    if not callable(loader):
        raise errors.TpfEmuError(f"{spec}: the programs module has no load(system) function")
    loader(system)
    return module


def _wait_quiet(system, timeout: float, settle: float) -> bool:
    """Wait until no entry runs and nothing changes for ``settle`` seconds."""
    deadline = time.monotonic() + timeout

    def snapshot():
        stats = system.dispatcher.stats()
        depths = tuple(sorted((name, q.core.depth) for name, q in system.qmgr.queues.items()))
        return stats.completed, stats.failed, depths

    last = None
    while time.monotonic() < deadline:
        if not system.dispatcher.wait_idle(max(0.0, deadline - time.monotonic())):
            return False
        time.sleep(settle)
        now = snapshot()
        if now == last and system.dispatcher.wait_idle(0):
            return True
        last = now
    return False


_INBOUND_COLUMNS = ["event_time_us", "queue", "msg_id", "correl_id", "group_id",
                    "priority", "persistent", "expiry", "payload", "detail",
                    "msg_type", "format", "reply_to_q", "reply_to_qmgr"]
#: The descriptor fields replayed from the capture: (MQMD field, column/detail key).
_MD_TEXTS = (("ReplyToQ", "reply_to_q"), ("ReplyToQMgr", "reply_to_qmgr"),
             ("Format", "format"))


def _inbound_rows(capture: Sequence[str], rule: Any) -> list[dict[str, Any]]:
    """The capture's inbound messages as rows, in replay order.

    :raises TpfEmuError: there are none, or they were captured without their data.
    """
    inbound = read_inbound(list(capture), rule)
    if inbound.num_rows == 0:
        raise errors.TpfEmuError(f"{', '.join(map(str, capture))}: no inbound messages "
                                 "(see docs/pipeline.md, capture format)")
    rows: list[dict[str, Any]] = inbound.select(_INBOUND_COLUMNS).to_pylist()
    if any(r["payload"] is None for r in rows):
        raise errors.TpfEmuError(
            f"{', '.join(map(str, capture))}: inbound messages without data: replay needs "
            "a capture written at journal level 'payload'")
    return rows


def _md_of(r: dict[str, Any], reply_to: str | None) -> Any:
    """The MQMD to put a captured inbound row with: its ids, priority, persistence,
    expiry, and from its detail the reply-to names, message type and format (a reply-to
    queue, from the capture or ``reply_to``, makes it a request)."""
    import tpfemu.mqi as mqi
    from tpfemu.mqi import CMQC
    from tpfemu.pipeline.capture import detail_of

    extra = detail_of(r["detail"])
    for key in ("msg_type", *(column for _, column in _MD_TEXTS)):
        if r.get(key) is not None:  # the journal's column wins over a detail key
            extra[key] = r[key]
    md = mqi.MD(
        Priority=r["priority"] if r["priority"] is not None else 0,
        Persistence=(CMQC.MQPER_PERSISTENT if r["persistent"]
                     else CMQC.MQPER_NOT_PERSISTENT),
        Expiry=r["expiry"] if r["expiry"] is not None else CMQC.MQEI_UNLIMITED)
    for field, column in (("MsgId", "msg_id"), ("CorrelId", "correl_id"),
                          ("GroupId", "group_id")):
        if r[column]:
            setattr(md, field, r[column])
    if extra.get("msg_type") is not None:
        md.MsgType = int(extra["msg_type"])
    if reply_to:  # the user's reply queue, for every message: a request
        extra["reply_to_q"] = reply_to
        md.MsgType = CMQC.MQMT_REQUEST
    elif extra.get("reply_to_q") and extra.get("msg_type") is None:
        md.MsgType = CMQC.MQMT_REQUEST  # (a reply queue named, no type: a request)
    for field, key in _MD_TEXTS:
        if extra.get(key):
            setattr(md, field, str(extra[key]).encode())
    return md


class _Putter:
    """Puts the inbound rows, waiting and retrying while a queue is full."""

    def __init__(self, qm, say: Callable[[str], None], timeout: float) -> None:
        self.qm = qm
        self.say = say
        self.timeout = timeout
        self.opened: dict[str, Any] = {}
        self.full_waits = 0
        self.waited = 0.0

    def put(self, queue_name: str, data: bytes, md, pmo) -> None:
        import tpfemu.mqi as mqi
        from tpfemu.mqi import CMQC

        queue = self.opened.get(queue_name)
        if queue is None:
            queue = self.opened[queue_name] = mqi.Queue(self.qm, queue_name,
                                                        CMQC.MQOO_OUTPUT)
        started = None
        pause = 0.001
        while True:
            try:
                queue.put(data, md, pmo)
                break
            except errors.MQMIError as exc:
                if exc.reason != CMQC.MQRC_Q_FULL:
                    raise
            now = time.monotonic()
            if started is None:
                started = now
                self.full_waits += 1
                if self.full_waits == 1 or self.full_waits % 100 == 0:
                    self.say(f"replay: {queue_name} is full; waiting for the programs to "
                             f"drain it (full {self.full_waits} time(s) so far)")
            elif now - started > self.timeout:
                raise errors.TpfEmuError(
                    f"replay: {queue_name} stayed full for {self.timeout:g} s: are its "
                    "programs loaded and triggered? (see --programs, --script)")
            time.sleep(pause)
            pause = min(0.05, pause * 2)
        if started is not None:
            self.waited += time.monotonic() - started

    def close(self) -> None:
        for queue in self.opened.values():
            queue.close()
        self.opened.clear()


def _hints(rows: list[dict[str, Any]], reply_to: str | None, failed: int) -> list[str]:
    """Likely causes of failed entries that the capture shows."""
    from tpfemu.pipeline.capture import detail_of

    if not failed or reply_to:
        return []
    unnamed = sum(1 for r in rows
                  if not (r.get("reply_to_q") or detail_of(r["detail"]).get("reply_to_q")))
    if not unnamed:
        return []
    return [f"{unnamed:,} of {len(rows):,} inbound messages name no ReplyToQ in the "
            "capture; if the programs reply to requests, give --reply-to QUEUE"]


def replay(capture: Sequence[str], home: str | Path, *, name: str = "TPF1", cpu: str = "B",
           script: Sequence[str] = (), programs: str | None = None,
           speed: float | None = None, rule=None, reply_to: str | None = None,
           istreams: int | None = None, timeout: float = 60.0, settle: float = 0.2,
           echo: Callable[[str], None] | None = None) -> ReplayResult:
    """Replay ``capture``'s inbound messages into a system with home ``home``.

    :param script: command lines to run after boot (already split, see ``tpfemu run``).
    :param speed: scale the recorded timing (1.0 as recorded, 2.0 twice as fast); None
        puts back to back.
    :param istreams: I-streams of the system (default: the System's); 1 runs one entry
        at a time, so a program that serves a queue answers in arrival order.
    :raises TpfEmuError: the capture has no inbound messages, the programs cannot load.
    """
    import tpfemu.mqi as mqi
    from tpfemu.mqi import CMQC
    from tpfemu.system import System

    if speed is not None and speed <= 0:
        raise ValueError("speed must be positive")
    rows = _inbound_rows(capture, rule)
    say = echo or (lambda line: None)
    started = time.perf_counter()
    home = Path(home)
    more = {} if istreams is None else {"istreams": istreams}
    system = System.start(name=name, home=home, cpu=cpu, journal="payload",
                          console=echo, **more)
    try:
        for command in script:
            say(f"{system.cpu}> {command}")
            say(system.console(command))
        if programs:
            load_programs(programs, system)
        qm = mqi.connect(name)
        putter = _Putter(qm, say, timeout)
        t0 = rows[0]["event_time_us"]
        clock = time.monotonic()
        try:
            for r in rows:
                if speed is not None:
                    due = clock + (r["event_time_us"] - t0) / 1e6 / speed
                    wait = due - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                pmo = mqi.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
                putter.put(r["queue"], r["payload"], _md_of(r, reply_to), pmo)
        finally:
            putter.close()
            qm.disconnect()
        quiet = _wait_quiet(system, timeout, settle)
        stats = system.dispatcher.stats()
        if system.journal is not None:
            system.journal.flush()
    finally:
        system.stop()
    return ReplayResult(inbound=len(rows), journal=home / "journal",
                        seconds=time.perf_counter() - started, quiescent=quiet,
                        entries=stats.completed, failed=stats.failed,
                        full_waits=putter.full_waits, waited=putter.waited,
                        hints=_hints(rows, reply_to, stats.failed))
