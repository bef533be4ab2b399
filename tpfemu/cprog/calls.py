"""What the runtime of C programs calls in Python (native/runtime, ``tpfemu._cprog``).

The runtime's MQ calls end here when a handle's plan does not serve them, and its ECB
calls always: each function does what a Python application's call does, through the
same API (:class:`tpfemu.qmgr.connection.Connection`, :mod:`tpfemu.qmgr.mqput`,
:mod:`tpfemu.qmgr.mqget`, :class:`ecb.Ecb`, :mod:`tpfemu.mqi`'s commit scopes). MQ
failures raise :class:`~tpfemu.errors.MQMIError`, which the runtime turns into CompCode
and Reason; anything else raised here (a TPF system error, EXITC of an entered program)
ends the calling C program and goes on up its entry as it would from Python.

A connection made by a C program is known by its hconn in :data:`_conns` (the runtime
reads it directly on its fast path) until MQDISC, or until the entry that made it ends.
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Any

import ecb as ecb_pkg
from ecb import MAX_PARAMS, BlockType, Ecb, ErrorCode, TpfSystemError
from tpfemu import errors, mqi
from tpfemu.errors import MQMIError
from tpfemu.mq import cmqc
from tpfemu.qmgr import mqget, mqput, registry
from tpfemu.qmgr.connection import Connection, Handle
from tpfemu.qmgr.plans import plan_raw, planned_get, planned_put

__all__ = ["MQMIError", "ProgramCrash", "plan_raw", "planned_get", "planned_put"]

#: hconn -> the Connection of a C program (read by the runtime too).
_conns: dict[int, Connection] = {}
#: (entry or thread) -> its C program's connection, for MQCONN's 2002.
_by_owner: dict[int, Connection] = {}
_lock = threading.Lock()
#: How a character attribute is as long for MQSET (IBM allows TriggerData alone).
_CHAR_LENGTHS = {cmqc.MQCA_TRIGGER_DATA: cmqc.MQ_TRIGGER_DATA_LENGTH}


class ProgramCrash(errors.TpfEmuError):
    """A C program ended by a fault signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT):
    its entry ends with a system-error dump; the emulator goes on."""

    def __init__(self, program: str | None, signum: int, address: int) -> None:
        self.program = program
        self.signum = signum
        self.address = address
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = f"signal {signum}"
        where = f" at address {address:#x}" if signum in (signal.SIGSEGV, signal.SIGBUS) \
            else ""
        super().__init__(f"C program {program or '?'} ended by {name}{where}")


def _text(raw: bytes) -> str:
    return raw.decode("ascii", "replace").strip()


def _conn(hconn: int, call: str) -> Connection:
    conn = _conns.get(hconn)
    if conn is None or not conn.connected:
        raise errors.error_for(cmqc.MQRC_HCONN_ERROR, call=call)
    return conn


def _forget(conn: Connection) -> None:
    with _lock:
        _conns.pop(conn.hconn, None)
        for owner, known in list(_by_owner.items()):
            if known is conn:
                del _by_owner[owner]


# -- MQCONN, MQDISC, MQOPEN, MQCLOSE ------------------------------------------------------


def conn(name: bytes, options: int) -> tuple[int, int]:
    """MQCONN/MQCONNX: (hconn, 0), or (the same hconn, 2002) when the calling entry (or
    thread) is connected already."""
    running = ecb_pkg.current()
    owner = id(running) if running is not None else threading.get_ident()
    known = _by_owner.get(owner)
    if known is not None and known.connected:
        return known.hconn, cmqc.MQRC_ALREADY_CONNECTED
    qmgr = registry.lookup(_text(name))
    program = running.program if running is not None else None
    connection = qmgr.connect(appl_name=program or "tpfemu C", user="")
    with _lock:
        _conns[connection.hconn] = connection
        _by_owner[owner] = connection
    if running is not None:
        running.at_exit(lambda: _forget(connection))
    return connection.hconn, 0


def disc(hconn: int) -> None:
    """MQDISC: commit and close (IBM's normal end)."""
    connection = _conn(hconn, "MQDISC")
    try:
        connection.disconnect()
    finally:
        _forget(connection)


def open(hconn: int, name: bytes, qmgr: bytes, object_type: int,  # noqa: A001 - MQOPEN
         options: int) -> tuple[int, bytes, bytes]:
    """MQOPEN: (hobj, ResolvedQName, ResolvedQMgrName).

    The resolved names, as IBM's MQOD has them (version 3): :meth:`Handle.resolved_names`,
    the rule the Python MQI's MQOD follows too."""
    connection = _conn(hconn, "MQOPEN")
    handle = connection.open(_text(name), options, _text(qmgr), object_type)
    q_name, qmgr_name = handle.resolved_names()
    return handle.hobj, q_name.encode(), qmgr_name.encode()


def close(hconn: int, hobj: int, options: int) -> None:
    """MQCLOSE."""
    _conn(hconn, "MQCLOSE").close(hobj, options)


# -- MQPUT, MQPUT1, MQGET (the full paths; the runtime tried the plans) ---------------------


def put(hconn: int, hobj: int, data: bytes, md: Any, pmo: Any) -> None:
    """MQPUT by the full path."""
    connection = _conn(hconn, "MQPUT")
    mqput.put_full(connection, connection.handle(hobj, "MQPUT"), data, md, pmo)


def put1(hconn: int, name: bytes, qmgr: bytes, data: bytes, md: Any, pmo: Any) -> None:
    """MQPUT1."""
    mqput.put1(_conn(hconn, "MQPUT1"), _text(name), data, md, pmo, _text(qmgr))


def get(hconn: int, hobj: int, length: int, md: Any, gmo: Any) -> bytes:
    """MQGET by the full path, into a buffer of ``length`` bytes."""
    connection = _conn(hconn, "MQGET")
    return mqget.get_full(connection, connection.handle(hobj, "MQGET"), length, md, gmo)


def get_limit(handle: Handle) -> int:
    """The longest message ``handle``'s queue accepts now (its MAXMSGL and the
    profile's), which a buffer must hold for a get to take the handle's plan."""
    queue = handle.queue
    if queue is None:
        return -1
    limit = int(queue.definition.maxmsgl)
    profile = handle.conn.qmgr.catalog.profile
    return min(limit, int(profile.maxmsgl)) if profile is not None else limit


# -- MQINQ, MQSET, MQCMIT, MQBACK ---------------------------------------------------------


def inq(hconn: int, hobj: int, selectors: list[int], int_count: int,
        char_length: int) -> tuple[list[int], bytes, int]:
    """MQINQ: the integer attributes, the character attributes (concatenated) and the
    warning reason (2022 too few IntAttrs, 2008 CharAttrs too short; 0: none).

    As IBM's MQINQ: the IntAttrs are filled with as many integers as fit; the CharAttrs
    only with whole attributes, in selector order, up to the first that does not fit
    (it and the ones after it are left out, and the rest of the caller's area is left
    as it was: the runtime copies only the bytes returned)."""
    connection = _conn(hconn, "MQINQ")
    ints: list[int] = []
    chars = bytearray()
    short = False
    for selector in selectors:
        value = connection.inquire(hobj, selector)
        if isinstance(value, int):
            ints.append(value)
        elif not short and len(chars) + len(value) <= char_length:
            chars += value
        else:
            short = True
    reason = 0
    if len(ints) > int_count:
        reason = cmqc.MQRC_INT_ATTR_COUNT_TOO_SMALL
    elif short:
        reason = cmqc.MQRC_CHAR_ATTRS_TOO_SHORT
    return ints[:int_count], bytes(chars), reason


def set(hconn: int, hobj: int, selectors: list[int], ints: list[int],  # noqa: A001 - MQSET
        chars: bytes) -> None:
    """MQSET: each integer selector takes the next of ``ints``, each character selector
    the next attribute's length of ``chars``; then every attribute changes, or (a
    refused selector or value) none, as :meth:`Connection.set_many` sets them.

    As IBM's MQSET, the counts are checked first: 2021 MQRC_INT_ATTR_COUNT_ERROR when
    there are fewer integers than integer selectors, 2006 MQRC_CHAR_ATTR_LENGTH_ERROR
    when ``chars`` is shorter than the character attributes selected. A selector given
    twice takes its last value. No selector: nothing is done."""
    connection = _conn(hconn, "MQSET")
    widths = [_CHAR_LENGTHS.get(s, cmqc.MQ_Q_NAME_LENGTH) for s in selectors
              if s >= cmqc.MQCA_FIRST]
    if len(selectors) - len(widths) > len(ints):
        raise errors.error_for(cmqc.MQRC_INT_ATTR_COUNT_ERROR, call="MQSET")
    if sum(widths) > len(chars):
        raise errors.error_for(cmqc.MQRC_CHAR_ATTR_LENGTH_ERROR, call="MQSET")
    values: dict[int, int | bytes] = {}
    int_at = char_at = 0
    for selector in selectors:
        values.pop(selector, None)  # (the last value, in the order given)
        if selector >= cmqc.MQCA_FIRST:
            width = _CHAR_LENGTHS.get(selector, cmqc.MQ_Q_NAME_LENGTH)
            values[selector] = chars[char_at:char_at + width]
            char_at += width
        else:
            values[selector] = ints[int_at]
            int_at += 1
    if values:
        connection.set_many(hobj, values)


def commit(hconn: int) -> None:
    """MQCMIT."""
    _conn(hconn, "MQCMIT").commit()


def backout(hconn: int) -> None:
    """MQBACK."""
    _conn(hconn, "MQBACK").backout()


# -- the ECB --------------------------------------------------------------------------------


def cbrws(ecb: Ecb) -> tuple[tuple[bytearray, int] | None, ...]:
    """Each data level's block and block type (None: no block), D0 first."""
    levels: list[tuple[bytearray, int] | None] = []
    for level in range(16):
        block = ecb.block(level)
        levels.append(None if block is None else (block, int(block.block_type)))
    return tuple(levels)


def getcc(ecb: Ecb, level: int, value: int, by_size: int, fill: int) -> None:
    """GETCC: ``value`` a block type (or, ``by_size``, a byte count)."""
    size: BlockType | int
    if by_size:
        size = value
    elif value in BlockType._value2member_map_:
        size = BlockType(value)
    else:
        raise TpfSystemError(ErrorCode.BAD_BLOCK_SIZE, "GETCC",
                             f"X'{value & 0xFFFFFFFF:04X}' is not a block type (L0, L1, L2 or L4)")
    ecb.getcc(level, size, fill=None if fill < 0 else fill)


def relcc(ecb: Ecb, level: int) -> None:
    """RELCC."""
    ecb.relcc(level)


def levtest(ecb: Ecb, level: int) -> int:
    """LEVTA: the block type on ``level``, 0 for none."""
    held = ecb.levtest(level)
    return 0 if held is None else int(held)


#: creec's priority (tpf/tpfapi.h).
CREEC_IMMEDIATE, CREEC_DEFERRED = 0, 1


def create(ecb: Ecb, macro: str, params: bytes, name: str | None, level: int,
           priority: int, length: int) -> None:
    """CREMC, CREDC, CREXC, CREEC: ``params`` holds the ``length`` bytes at the C
    program's ``parm`` (none for a negative length or a null pointer). A negative
    ``length``, a null ``parm`` with a length, or a CREEC priority other than
    CREEC_IMMEDIATE and CREEC_DEFERRED is refused (ValueError: the C program ends with a
    dump); more than 104 bytes is the dispatcher's E0301."""
    if name is None:
        raise ValueError(f"{macro}: no program name given")
    if length < 0:
        raise ValueError(f"{macro} {name}: length {length} is negative (0-{MAX_PARAMS})")
    if length and not params:
        raise ValueError(f"{macro} {name}: length {length} with a null parm pointer")
    if macro == "CREEC" and priority not in (CREEC_IMMEDIATE, CREEC_DEFERRED):
        raise ValueError(f"CREEC {name}: priority {priority} is not CREEC_IMMEDIATE or "
                         "CREEC_DEFERRED")
    if macro == "CREEC":
        ecb.creec(name, level, params, deferred=priority == CREEC_DEFERRED)
    else:
        getattr(ecb, macro.lower())(name, params)


def crusa(ecb: Ecb, levels: list[int], count: int) -> None:
    """CRUSA: ``count`` levels (1-64, as the C call's count says), empty ones skipped."""
    if not 1 <= count <= 64:
        raise ValueError(f"CRUSA: count must be 1-64 levels, not {count}")
    ecb.crusa(*levels)


def detac(ecb: Ecb, level: int) -> None:
    """DETAC."""
    ecb.detac(level)


def attac(ecb: Ecb, level: int) -> None:
    """ATTAC (the runtime reads the block's address from the refreshed CBRW)."""
    ecb.attac(level)


#: cretc's flags (tpf/tpfapi.h): the unit of ``units`` and CRETC_1052.
CRETC_SECONDS, CRETC_MINUTES, CRETC_1052 = 0x01, 0x02, 0x04


def cretc(ecb: Ecb, flags: int, name: str | None, units: int, action: bytes) -> None:
    """CRETC: after ``units`` seconds or minutes (``flags``), an entry for ``name`` with
    the 4-byte ``action`` word in EBW000-EBW003. A bad flag combination or a negative
    ``units`` is refused (a ValueError, which ends the C program with a dump)."""
    if name is None:
        raise ValueError("CRETC: no program name given")
    unit = flags & (CRETC_SECONDS | CRETC_MINUTES)
    if flags & ~(CRETC_SECONDS | CRETC_MINUTES | CRETC_1052) or unit not in (
            CRETC_SECONDS, CRETC_MINUTES):
        raise ValueError(f"CRETC {name}: flags {flags:#x} must hold exactly one of "
                         "CRETC_SECONDS and CRETC_MINUTES (and optionally CRETC_1052)")
    if units < 0:
        raise ValueError(f"CRETC {name}: units must be >= 0, not {units}")
    ecb.cretc(name, units * (60 if unit == CRETC_MINUTES else 1), action)


#: serrc_op's status (tpf/tpfapi.h enum t_serrc).
SERRC_EXIT, SERRC_RETURN, SERRC_CATA = 0, 1, 2
#: Longest serrc_op message kept, as on z/TPF.
SERRC_MSG_MAX = 255


def serrc(ecb: Ecb, status: int, number: int, msg: bytes | None) -> None:
    """serrc_op: a system-error dump numbered ``number`` (shown as U and 6 hex digits)
    with ``msg`` (cut to 255 characters); SERRC_RETURN goes on, SERRC_EXIT and SERRC_CATA
    end the entry. A bad status or a number that does not fit 6 hex digits is refused."""
    if status not in (SERRC_EXIT, SERRC_RETURN, SERRC_CATA):
        raise ValueError(f"serrc_op: status {status} is not SERRC_EXIT, SERRC_RETURN or "
                         "SERRC_CATA")
    if not 0 <= number <= 0xFFFFFF:  # IBM asks for 1-X'FFFFFF'; 0 is let through
        raise ValueError(f"serrc_op: number {number:#x} is not in 1-X'FFFFFF'")
    text = "" if msg is None else msg[:SERRC_MSG_MAX].decode("latin-1")
    detail = f"U{number:06X}" + (f" {text}" if text else "")
    ecb.serrc(detail, exit=status != SERRC_RETURN)


def defrc(ecb: Ecb) -> None:
    """DEFRC."""
    ecb.defrc()


#: wtopc's severity letters (TPF's system message format).
WTOPC_SEVERITIES = "IEWAT"


def wtopc(ecb: Ecb, text: bytes | None, rout: int, prefix: bytes, number: int,
          severity: bytes) -> None:
    """WTOPC: ``text`` to the console; with a header (``prefix`` not empty) in TPF's
    system message format ``PPPPnnnnS hh.mm.ss text``. A null text, a routing below 0, or
    a header whose number is over 9999 or whose severity is not I, E, W, A or T is
    refused (a ValueError, which ends the C program with a dump)."""
    if text is None:
        raise ValueError("WTOPC: no message text (a null pointer)")
    if rout < 0:
        raise ValueError(f"WTOPC: routing {rout} is not a sum of WTOPC_ destinations")
    line = text.decode("latin-1")
    if prefix:
        sev = severity.decode("latin-1")
        if number > 9999 or sev not in WTOPC_SEVERITIES:
            raise ValueError(f"WTOPC: header number {number} (0-9999) or severity {sev!r} "
                             f"(one of {WTOPC_SEVERITIES}) is not valid")
        line = (f"{prefix.decode('latin-1')}{number:04d}{sev} "
                f"{time.strftime('%H.%M.%S')} {line}")
    ecb.wtopc(line)


def entrc(ecb: Ecb, name: str | None) -> None:
    """ENTRC."""
    if name is None:
        raise ValueError("ENTRC: no program name given")
    ecb.entrc(name)


def exited(ecb: Ecb, code: int) -> None:
    """exit() in a C program: EXITC (the code is not kept: TPF's EXITC has none)."""
    ecb.exitc()


def crashed(signum: int, address: int) -> ProgramCrash:
    """The exception a C program's fault signal becomes."""
    running = ecb_pkg.current()
    return ProgramCrash(running.program if running is not None else None, signum, address)


#: The C TX calls' return codes (tpf/tpfapi.h).
TX_OK, TX_PROTOCOL_ERROR = 0, -5


def tx(op: str) -> int:
    """tx_begin, tx_commit, tx_rollback: the entry's commit scopes. As z/TPF's C
    functions, tx_commit and tx_rollback with no scope open return TX_PROTOCOL_ERROR
    (nothing changes); the TXCMC/TXRBC macros' E0405 is the Python programs' form."""
    try:
        {"begin": mqi.tx_begin, "commit": mqi.tx_commit, "rollback": mqi.tx_rollback}[op]()
    except TpfSystemError as exc:
        if exc.code is ErrorCode.NO_COMMIT_SCOPE:
            return TX_PROTOCOL_ERROR
        raise
    return TX_OK


def routc(ecb: Ecb, rcpl: bytes, level: int) -> None:
    """ROUTC: the message on ``level`` goes where ``rcpl`` (the bytes the C program's
    pointer holds, 16; empty for a null pointer) routes it, by the dispatcher's router
    (the ROUTC bridge), and the level is released. What the router refuses (an unknown
    LNIATA E0602, an unreadable RCPL or message E0603) is the entry's system error."""
    ecb.routc(rcpl, level)
