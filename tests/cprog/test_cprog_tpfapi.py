"""TPF's C API from C programs (tpf/tpfapi.h): the create calls, ENTRC with Python
programs, triggered programs and CUIR in C, crashes, exit() and system errors."""

from __future__ import annotations

import re

import pytest
from cprog_helpers import blank, long_at

import tpfemu.mqi as pymqi
from ecb import BlockType, Level
from tpfemu.mqi import CMQC

C_PROGRAMS = ("QCR1", "QCR2", "QCR3", "QENT", "QBCK", "QSEG", "QABT", "QEXT", "QREL",
              "QTRG", "CUIR", "QTIM", "QTM2", "QTMB", "QSRR", "QSRX", "QDET", "QWTO",
              "QBD1", "QBD2", "QBD3", "QBD4", "QDEF", "QGTF", "QTXP")


@pytest.fixture
def ecbcalls(system, build):
    path = build("ecbcalls")
    for name in C_PROGRAMS:
        system.programs.load_shared(name, path)
    return system


def test_cremc_passes_ebw000_and_creec_passes_a_block_on_d0(ecbcalls, results):
    """cremc() gives the new entry its 104 bytes in EBW000 (here EBW000 of the creating
    entry, itself created with data, plus a marker); creec() moves the block on D3 to D0 of
    the new entry (the creator's level is then free) with the parameters in EBW000."""
    params = bytes(range(1, 97))
    ecbcalls.dispatcher.cremc("QCR1", params)
    got = {}
    for _ in range(3):
        data = results.next()
        got[len(data)] = data
    assert long_at(got[4], 0) == 0, "levtest(D3) after creec: no block"
    assert got[104] == params + b"VIA-QCR1"
    from_creec = got[33]
    assert from_creec[:8] == b"CREEC-P\0"
    assert long_at(from_creec, 8) == BlockType.L1 | (381 << 16), "D0's CBRW: L1, 381 bytes"
    assert from_creec[12:33] == b"BLOCK FROM QCR1 ON D3"
    assert ecbcalls.dispatcher.wait_idle(5) and not ecbcalls.dispatcher.dumps


def test_entrc_into_python_and_back_shares_the_ecb(ecbcalls, results):
    """entrc() from C runs a Python program on the same ECB: it sees EBW000 and the D1
    block C wrote, its own writes (EBW020, into D1, a block it gets on D2) are seen by C
    when it returns."""
    seen = {}

    def pyp1(ecb):
        seen["ebw"] = bytes(ecb.ebw[:12])
        seen["d1"] = bytes(ecb.block(Level.D1)[:4])
        ecb.ebw[20:32] = b"PYTHON WROTE"
        ecb.block(Level.D1)[0:8] = b"PY IN D1"
        ecb.getcc(Level.D2, BlockType.L0)[0:8] = b"PY ON D2"

    ecbcalls.programs.load("PYP1", pyp1)
    ecbcalls.dispatcher.cremc("QENT")
    out = results.next()
    assert seen == {"ebw": b"C WROTE THIS", "d1": b"cccc"}
    assert out[:12] == b"C WROTE THIS"
    assert out[12:24] == b"PYTHON WROTE"
    assert long_at(out, 24) == BlockType.L0
    assert out[28:36] == b"PY ON D2"
    assert out[36:44] == b"PY IN D1"
    assert ecbcalls.dispatcher.wait_idle(5) and not ecbcalls.dispatcher.dumps


def test_python_entrc_into_c_and_back(ecbcalls):
    """A Python program's ENTRC into a C program returns to it with what C wrote to EBW."""
    after = []

    def pyp2(ecb):
        ecb.ebw[0:4] = b"PY2 "
        ecb.entrc("QBCK")
        after.append(bytes(ecb.ebw[:21]))

    ecbcalls.programs.load("PYP2", pyp2)
    ecbcalls.dispatcher.cremc("PYP2")
    assert ecbcalls.dispatcher.wait_idle(5)
    assert after == [b"PY2 \0\0\0\0\0\0BACK FROM C"]
    assert not ecbcalls.dispatcher.dumps


@pytest.mark.parametrize(("program", "signal_name"), [("QSEG", "SIGSEGV"), ("QABT", "SIGABRT")])
def test_a_crashing_c_program_ends_its_entry_and_the_emulator_goes_on(ecbcalls, results,
                                                                       program, signal_name):
    """A C program that faults (null pointer write) or aborts ends its entry with a
    system-error dump naming the program and the signal; the emulator goes on: the next
    entries, C and Python, run."""
    ecbcalls.dispatcher.cremc(program)
    assert ecbcalls.dispatcher.wait_idle(5)
    dumps = ecbcalls.dispatcher.dumps
    assert len(dumps) == 1
    assert f"C program {program} ended by {signal_name}" in dumps[0].text
    assert any(signal_name in line for line in ecbcalls.log)
    ecbcalls.dispatcher.cremc(program)  # and again: the handler still catches it
    ecbcalls.dispatcher.cremc("QCR2", b"still running")
    assert results.next().startswith(b"still running")
    assert ecbcalls.dispatcher.wait_idle(5) and len(ecbcalls.dispatcher.dumps) == 2


def test_exit_is_exitc(ecbcalls, results):
    """exit() ends the entry (EXITC) without a dump; the code after it does not run."""
    ecbcalls.dispatcher.cremc("QEXT")
    assert results.next() == b"BEFORE EXIT"
    assert results.empty()
    assert not ecbcalls.dispatcher.dumps


def test_a_system_error_in_a_c_call_ends_the_entry_with_a_dump(ecbcalls, results):
    """relcc() of an empty level is TPF's system error: the entry ends with the dump and
    the C code after the call does not run."""
    ecbcalls.dispatcher.cremc("QREL")
    assert results.empty()
    dumps = ecbcalls.dispatcher.dumps
    assert len(dumps) == 1 and dumps[0].code.name == "LEVEL_EMPTY"
    assert "QREL" in dumps[0].text


def test_triggered_c_program_reads_mqtmc2_from_d0(ecbcalls, results):
    """A process program in C, triggered (EVERY) by a put, finds the MQTMC2 on D0."""
    ecbcalls.console("ZMQSC DEF PROC-TRG.PROC APPLID-QTRG USERDATA-FOR.C")
    ecbcalls.console("ZMQSC DEF QL-TRG.Q TRIGTYPE-EVERY PROCESS-TRG.PROC")
    pymqi.Queue(results.qm, "TRG.Q").put(b"wake up")
    tmc = results.next()
    assert len(tmc) == 732
    assert tmc[:8] == b"TMC    2"
    assert tmc[8:56] == blank("TRG.Q", 48)
    assert tmc[56:104] == blank("TRG.PROC", 48)
    assert tmc[172:428] == blank("QTRG", 256)
    assert tmc[556:684] == blank("FOR.C", 128)
    assert tmc[684:732] == blank(ecbcalls.name, 48)


def test_cuir_in_c_reads_mqmd_and_mqtm_from_d0(ecbcalls, results):
    """The trigger user exit CUIR written in C gets the message's MQMD (version 2) and
    the MQTM on D0 (a queue with TRIGTYPE FIRST and no process)."""
    ecbcalls.console("ZMQSC DEF QL-CUIR.Q TRIGTYPE-FIRST")
    md = pymqi.MD(Priority=4, Format=CMQC.MQFMT_STRING)
    pymqi.Queue(results.qm, "CUIR.Q").put(b"for cuir", md)
    block = results.next()
    assert len(block) == 364 + 684
    assert block[:4] == b"MD  " and long_at(block, 4) == 2
    assert block[48:72] == md.MsgId and long_at(block, 40) == 4
    assert block[32:40] == CMQC.MQFMT_STRING
    tm = block[364:]
    assert tm[:4] == b"TM  " and long_at(tm, 4) == 1
    assert tm[8:56] == blank("CUIR.Q", 48)



def test_cretc_gives_the_action_word_in_seconds_or_minutes(ecbcalls, results):
    """cretc(flags, segname, units, action) and __CRETC, as in z/TPF's C/C++ Language
    Support User's Guide: the created entry has the 4-byte action word in EBW000-EBW003
    (the rest of the work area is zeros); CRETC_SECONDS or CRETC_MINUTES gives the unit
    and CRETC_1052 is accepted."""
    ecbcalls.dispatcher.cremc("QTIM")
    got = {results.next() for _ in range(3)}
    assert got == {b"CRETC DONE", b"ACT1" + bytes(4), b"ACT2" + bytes(4)}
    assert ecbcalls.dispatcher.wait_idle(5, timers=True) and not ecbcalls.dispatcher.dumps


def test_cretc_with_both_units_is_refused(ecbcalls, results):
    """cretc with both CRETC_SECONDS and CRETC_MINUTES ends the entry with a dump that
    says why; nothing is created and the code after the call does not run."""
    ecbcalls.dispatcher.cremc("QTMB")
    assert results.empty()
    assert ecbcalls.dispatcher.wait_idle(5, timers=True)
    dumps = ecbcalls.dispatcher.dumps
    assert len(dumps) == 1 and "exactly one of CRETC_SECONDS and CRETC_MINUTES" in dumps[0].text


def test_serrc_op_return_dumps_and_goes_on(ecbcalls, results):
    """serrc_op(SERRC_RETURN, 0x12345, msg, NULL): a system-error dump numbered U012345
    with the message, then the program goes on."""
    ecbcalls.dispatcher.cremc("QSRR")
    assert results.next() == b"AFTER SERRC"
    assert ecbcalls.dispatcher.wait_idle(5)
    dumps = ecbcalls.dispatcher.dumps
    assert len(dumps) == 1
    assert dumps[0].kind == "SERRC" and dumps[0].code.name == "APPLICATION_SERRC"
    assert dumps[0].message == "U012345 ERROR OCCURRED"
    assert "SYSTEM ERROR" in dumps[0].text and "QSRR" in dumps[0].text
    assert ecbcalls.dispatcher.stats().failed == 0


def test_serrc_op_exit_ends_the_entry(ecbcalls, results):
    """serrc_op(SERRC_EXIT, ...): the dump, and the entry ends there."""
    ecbcalls.dispatcher.cremc("QSRX")
    assert results.empty()
    dumps = ecbcalls.dispatcher.dumps
    assert len(dumps) == 1 and "U000ABC" in dumps[0].message
    assert ecbcalls.dispatcher.stats().failed == 1


def test_detac_attac_and_crusa(ecbcalls, results):
    """detac frees the level, attac brings the same block back (its address returned),
    crusa(2, D2, D5) releases D2 and skips the empty D5."""
    ecbcalls.dispatcher.cremc("QDET")
    out = results.next()
    assert long_at(out, 0) == 0
    assert out[4:12] == b"DETACHED"
    assert long_at(out, 12) == 0
    assert ecbcalls.dispatcher.wait_idle(5) and not ecbcalls.dispatcher.dumps


def test_wtopc_sends_to_the_console(ecbcalls, results):
    """wtopc(text, rout, chain, header): the text reaches the operator's console; with a
    header in TPF's system message format (prefix, 4-digit number, severity, time)."""
    ecbcalls.dispatcher.cremc("QWTO")
    assert long_at(results.next(), 0) == 0
    assert "PLAIN TEXT TO THE OPERATOR" in ecbcalls.log
    (line,) = [line for line in ecbcalls.log if "WITH A HEADER" in line]
    assert re.fullmatch(r"QWTO0012I \d\d\.\d\d\.\d\d WITH A HEADER", line)
    assert ecbcalls.dispatcher.wait_idle(5) and not ecbcalls.dispatcher.dumps


@pytest.mark.parametrize(("program", "says"), [
    ("QBD1", "length -1 is negative"),
    ("QBD2", "length 8 with a null parm pointer"),
    ("QBD3", "priority 7 is not CREEC_IMMEDIATE or CREEC_DEFERRED"),
    ("QBD4", "105 bytes of parameters"),
])
def test_bad_create_arguments_are_a_system_error(ecbcalls, results, program, says):
    """Incorrect arguments of the create calls are a system error that ends the entry
    (z/TPF C/C++ APIs: incorrect parameters result in a system error and exit): the dump
    says what was wrong, nothing is created, and the code after the call does not run."""
    ecbcalls.dispatcher.cremc(program)
    assert results.empty()
    dumps = ecbcalls.dispatcher.dumps
    assert len(dumps) == 1 and says in dumps[0].text
    assert ecbcalls.dispatcher.stats().created == 1


def test_defrc_goes_on_with_the_blocks_held(ecbcalls, results):
    """defrc() defers the entry, which then goes on holding its core blocks (z/TPF C/C++
    Language Support User's Guide, defrc; General Macros, DEFRC)."""
    ecbcalls.dispatcher.cremc("QDEF")
    out = results.next()
    assert long_at(out, 0) == BlockType.L1 and out[4:8] == b"KEPT"
    assert ecbcalls.dispatcher.wait_idle(5) and not ecbcalls.dispatcher.dumps


def test_getcc_fill_char_and_a_bad_block_type(ecbcalls, results):
    """getcc's fill byte is a char (here (char)0xFF fills with X'FF'); GETCC_TYPE with a
    value that is no block type is system error E0104 saying which value."""
    ecbcalls.dispatcher.cremc("QGTF")
    assert results.next() == b"\xff" * 4
    assert results.empty()
    (dump,) = ecbcalls.dispatcher.dumps
    assert dump.code.name == "BAD_BLOCK_SIZE" and "X'0041' is not a block type" in dump.text


def test_tx_commit_and_rollback_without_a_scope_return_protocol_error(ecbcalls, results):
    """tx_commit and tx_rollback with no commit scope open return TX_PROTOCOL_ERROR (-5),
    as z/TPF's C functions document, and the program goes on; a scope begun with
    tx_begin commits with TX_OK."""
    ecbcalls.dispatcher.cremc("QTXP")
    out = results.next()
    assert [long_at(out, i) for i in (0, 4, 8)] == [-5, -5, 0]
    assert ecbcalls.dispatcher.wait_idle(5) and not ecbcalls.dispatcher.dumps
