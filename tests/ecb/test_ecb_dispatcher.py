"""The dispatcher: create macros, list order, failures, dumps and counters."""

from __future__ import annotations

import threading

import pytest
from ecb_helpers import WAIT, Console
from hypothesis import given, settings
from hypothesis import strategies as st

from ecb import (
    BlockType,
    Dispatcher,
    EcbError,
    ErrorCode,
    Level,
    Storage,
    StorageShort,
    TpfSystemError,
)


def test_parameters_arrive_in_ebw000(programs, disp):
    """CREMC parameters are copied to EBW000 of the new ECB, zero-padded to 104 bytes."""
    seen = []
    programs.load("QZZ1", lambda ecb: seen.append((bytes(ecb.ebw), ecb.params)))
    disp.cremc("QZZ1", bytearray(b"\xc1\xc2PARMS"))
    assert disp.wait_idle(WAIT)
    assert seen == [(b"\xc1\xc2PARMS" + bytes(97), b"\xc1\xc2PARMS")]


def test_parameters_are_copied_at_create(programs, make_dispatcher):
    """Changing the caller's buffer after the create does not change the new entry's EBW000."""
    seen = []
    programs.load("QZZ1", lambda ecb: seen.append(ecb.params))
    disp = make_dispatcher(1, start=False)
    params = bytearray(b"before")
    disp.cremc("QZZ1", params)
    params[:] = b"after!"
    disp.start()
    assert disp.wait_idle(WAIT)
    assert seen == [b"before"]


@pytest.mark.parametrize("macro", ["cremc", "credc", "crexc"])
def test_too_many_parameters_refused_at_create(programs, disp, macro):
    """More than 104 bytes of parameters is E0301 at create time and no entry is created."""
    with pytest.raises(TpfSystemError) as info:
        getattr(disp, macro)("QZZ1", bytes(105))
    assert info.value.code is ErrorCode.PARAMETERS_TOO_LONG
    assert disp.stats().created == 0


def test_too_many_parameters_from_a_program_is_its_system_error(programs, disp):
    """A program creating an entry with 105 bytes of parameters takes E0301 itself."""
    programs.load("QZZ1", lambda ecb: ecb.cremc("QZZ2", bytes(105)))
    disp.cremc("QZZ1")
    assert disp.wait_idle(WAIT)
    (dump,) = disp.dumps
    assert dump.code is ErrorCode.PARAMETERS_TOO_LONG and dump.programs == ("QZZ1",)
    assert disp.stats().created == 1


def test_creec_from_outside_puts_copy_on_d0(programs, disp, storage):
    """Dispatcher CREEC copies the data into the smallest block, on D0 of the new ECB."""
    seen = []

    def prog(ecb):
        block = ecb.block(Level.D0)
        seen.append((block.block_type, bytes(block[:5]), len(block)))

    programs.load("QZZ1", prog)
    data = bytearray(b"MQMD+" + bytes(295))
    disp.creec("QZZ1", data, b"p")
    data[:5] = b"xxxxx"
    assert disp.wait_idle(WAIT)
    assert seen == [(BlockType.L1, b"MQMD+", 381)]
    assert sum(storage.usage().values()) == 0


def test_creec_block_counted_until_entry_releases_it(programs, make_dispatcher, storage):
    """A CREEC block counts in storage from the create until its entry exits."""
    programs.load("QZZ1", lambda ecb: None)
    disp = make_dispatcher(1, start=False)
    disp.creec("QZZ1", b"x" * 2000)
    assert storage.in_use(BlockType.L4) == 1
    disp.start()
    assert disp.wait_idle(WAIT)
    assert storage.in_use(BlockType.L4) == 0


def test_creec_too_big_is_system_error(programs, disp, storage):
    """CREEC data longer than 4095 bytes is E0104 and nothing is created or counted."""
    with pytest.raises(TpfSystemError) as info:
        disp.creec("QZZ1", bytes(4096))
    assert info.value.code is ErrorCode.BAD_BLOCK_SIZE
    assert disp.stats().created == 0
    assert sum(storage.usage().values()) == 0


def test_creec_from_program_hands_block_to_new_d0(programs, disp, storage):
    """ECB CREEC moves the very block on the given level to D0 of the new ECB; usage stays 1."""
    seen = {}

    def parent(ecb):
        block = ecb.getcc(Level.D3, BlockType.L2)
        block[:4] = b"DATA"
        seen["block"] = block
        ecb.creec("CHLD", Level.D3, b"kid")
        seen["parent_d3"] = ecb.block(Level.D3)
        seen["usage_after_create"] = storage.in_use(BlockType.L2)

    def child(ecb):
        seen["child_d0"] = ecb.block(Level.D0)
        seen["child_params"] = ecb.params
        seen["usage_in_child"] = storage.in_use(BlockType.L2)

    programs.load("PRNT", parent)
    programs.load("CHLD", child)
    disp.cremc("PRNT")
    assert disp.wait_idle(WAIT)
    assert seen["parent_d3"] is None
    assert seen["child_d0"] is seen["block"]
    assert bytes(seen["child_d0"][:4]) == b"DATA"
    assert seen["child_params"] == b"kid"
    assert seen["usage_after_create"] == 1 and seen["usage_in_child"] == 1
    assert storage.in_use(BlockType.L2) == 0
    assert not disp.dumps


def test_creec_from_empty_level_is_system_error(programs, disp):
    """ECB CREEC naming a level that holds no block is E0102 in the creating program."""
    programs.load("PRNT", lambda ecb: ecb.creec("CHLD", Level.D4))
    disp.cremc("PRNT")
    assert disp.wait_idle(WAIT)
    (dump,) = disp.dumps
    assert dump.code is ErrorCode.LEVEL_EMPTY and "CREEC" in dump.message
    assert disp.stats().created == 1


def test_immediate_before_deferred_before_low(programs, disp):
    """Entries created together run ready list first, then deferred, then low priority."""
    order = []

    def creator(ecb):
        ecb.credc("RUNS", b"D1")
        ecb.crexc("RUNS", b"X1")
        ecb.cremc("RUNS", b"M1")
        ecb.creec("RUNS", Level.D0, b"E1", deferred=True)
        ecb.credc("RUNS", b"D2")
        ecb.cremc("RUNS", b"M2")
        ecb.getcc(Level.D1, 10)
        ecb.creec("RUNS", Level.D1, b"E2")

    def creator_with_block(ecb):
        ecb.getcc(Level.D0, 10)
        creator(ecb)

    programs.load("MAKE", creator_with_block)
    programs.load("RUNS", lambda ecb: order.append(ecb.params))
    disp.cremc("MAKE")
    assert disp.wait_idle(WAIT)
    assert order == [b"M1", b"M2", b"E2", b"D1", b"E1", b"D2", b"X1"]


def test_deferred_waits_for_ready_list(programs, make_dispatcher):
    """Queued before start, a deferred entry runs after every immediate one created later."""
    order = []
    programs.load("RUNS", lambda ecb: order.append(ecb.params))
    disp = make_dispatcher(1, start=False)
    disp.credc("RUNS", b"D")
    disp.cremc("RUNS", b"M1")
    disp.cremc("RUNS", b"M2")
    disp.start()
    assert disp.wait_idle(WAIT)
    assert order == [b"M1", b"M2", b"D"]


_MACROS = {"cremc": 0, "credc": 1, "crexc": 2}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(sorted(_MACROS)), max_size=12))
def test_list_order_is_stable_by_priority(macros):
    """With one I-stream, any mix of creates runs ready, then deferred, then low, each FIFO."""
    from ecb import Programs

    programs = Programs()
    order: list[int] = []
    programs.load("RUNS", lambda ecb: order.append(ecb.params[0]))
    disp = Dispatcher(programs, istreams=1, console=lambda text: None)
    for i, macro in enumerate(macros):
        getattr(disp, macro)("RUNS", bytes([i]))
    disp.start()
    try:
        assert disp.wait_idle(WAIT)
    finally:
        disp.stop(1.0)
    expected = sorted(range(len(macros)), key=lambda i: (_MACROS[macros[i]], i))
    assert order == expected


def test_crexc_refused_while_storage_short(programs, console):
    """CREXC is refused with StorageShort while blocks are above the threshold, then allowed."""
    storage = Storage({BlockType.L0: 4}, short_fraction=0.5)
    disp = Dispatcher(programs, istreams=1, console=console, storage=storage)
    programs.load("RUNS", lambda ecb: None)
    blocks = [storage.allocate(BlockType.L0) for _ in range(3)]
    with pytest.raises(StorageShort) as info:
        disp.crexc("RUNS")
    assert "L0" in str(info.value) and "CREXC" in str(info.value)
    disp.cremc("RUNS")
    disp.credc("RUNS")
    storage.release(blocks.pop())
    disp.crexc("RUNS")
    assert disp.stats().created == 3
    storage.release_many(blocks)
    disp.stop(1.0)


def test_crexc_refused_inside_program(programs, make_dispatcher):
    """A program's CREXC while storage is short raises StorageShort, which it can handle."""
    storage = Storage({BlockType.L4: 2}, short_fraction=0.5)
    disp = make_dispatcher(1, storage=storage)
    seen = []

    def prog(ecb):
        ecb.getcc(Level.D0, BlockType.L4)
        ecb.getcc(Level.D1, BlockType.L4)
        try:
            ecb.crexc("RUNS")
        except StorageShort as exc:
            seen.append(exc.program)

    programs.load("PRNT", prog)
    programs.load("RUNS", lambda ecb: None)
    disp.cremc("PRNT")
    assert disp.wait_idle(WAIT)
    assert seen == ["RUNS"]
    assert disp.stats().created == 1


def test_cretc_runs_after_the_delay(programs, disp):
    """A CRETC entry runs no earlier than its delay and within a generous tolerance after it."""
    import time

    ran = threading.Event()
    at = {}

    def prog(ecb):
        at["t"] = time.monotonic()
        ran.set()

    programs.load("TIMD", prog)
    start = time.monotonic()
    disp.cretc("TIMD", 0.2, b"t")
    assert disp.stats().created == 0
    assert ran.wait(WAIT)
    elapsed = at["t"] - start
    assert 0.2 <= elapsed < 0.2 + 1.0
    assert disp.wait_idle(WAIT)
    assert disp.stats().created == 1


def test_cretc_fires_in_deadline_order(programs, disp):
    """Two CRETC requests fire in the order of their deadlines, not of their creation."""
    order = []
    done = threading.Event()

    def prog(ecb):
        order.append(ecb.params)
        if len(order) == 2:
            done.set()

    programs.load("TIMD", prog)
    disp.cretc("TIMD", 0.3, b"LATE")
    disp.cretc("TIMD", 0.05, b"SOON")
    assert done.wait(WAIT)
    assert order == [b"SOON", b"LATE"]


def test_cretc_passes_a_4_byte_action_word(programs, disp):
    """CRETC passes one 4-byte action word to EBW000-EBW003 of the new entry (z/TPF
    General Macros, CRETC PARM=; C/C++ Language Support, cretc's ``action``), not the 104
    bytes of the other create macros: more is system error E0301 and nothing is created."""
    with pytest.raises(TpfSystemError) as info:
        disp.cretc("TIMD", 0.01, b"FIVE!")
    assert info.value.code is ErrorCode.PARAMETERS_TOO_LONG
    assert "4" in info.value.detail
    assert disp.stats().timers == 0


def test_cretc_negative_delay_refused(programs, disp):
    """CRETC with a negative delay is a ValueError."""
    with pytest.raises(ValueError):
        disp.cretc("TIMD", -1)


def test_wait_idle_with_timers(programs, disp):
    """wait_idle(timers=True) waits for pending CRETC entries to run as well."""
    ran = []
    programs.load("TIMD", lambda ecb: ran.append(1))
    disp.cretc("TIMD", 0.1)
    assert disp.wait_idle(WAIT, timers=True)
    assert ran == [1]


def test_exception_in_one_entry_does_not_disturb_others(programs, make_dispatcher, console):
    """Failing entries are dumped and counted; every other entry on both I-streams completes."""
    disp = make_dispatcher(2)
    done = []

    def prog(ecb):
        n = ecb.params[0]
        if n % 3 == 0:
            raise KeyError(f"bad {n}")
        done.append(n)

    programs.load("MIXD", prog)
    for n in range(30):
        disp.cremc("MIXD", bytes([n]))
    assert disp.wait_idle(WAIT)
    assert sorted(done) == [n for n in range(30) if n % 3]
    stats = disp.stats()
    assert (stats.created, stats.completed, stats.failed) == (30, 20, 10)
    assert len(disp.dumps) == 10
    assert all(d.code is ErrorCode.PROGRAM_EXCEPTION for d in disp.dumps)
    assert console.text.count("CPSE0001E") == 10


def test_dump_contents(programs, disp, console):
    """A system-error dump names the ECB, programs, error, and each level's type, count, bytes."""

    def prog(ecb):
        ecb.getcc(Level.D1, BlockType.L1)[:5] = b"HELLO"
        ecb.getcc(Level.DE, BlockType.L4)
        ecb.getcc(Level.D1, BlockType.L0)

    programs.load("QZZ1", prog)
    disp.cremc("QZZ1", b"PARM", origin="LNIATA 010203")
    assert disp.wait_idle(WAIT)
    (dump,) = disp.dumps
    assert dump.kind == "SERRC" and dump.code is ErrorCode.LEVEL_IN_USE
    assert dump.ecb_id == 1 and dump.programs == ("QZZ1",)
    assert dump.level(Level.D1).block_type is BlockType.L1
    assert dump.level(Level.D1).count == 381
    assert dump.level(Level.D1).head.startswith(b"HELLO")
    assert dump.level(Level.DE).block_type is BlockType.L4
    assert dump.level(Level.D0).block_type is BlockType.NONE
    assert dump.work_area.startswith(b"PARM")
    text = console.wait_for("CPSE0001E")
    for needle in (
        "SE-E0101 LEVEL_IN_USE",
        "ECB-1",
        "PGM-QZZ1",
        "GETCC: D1",
        "LNIATA 010203",
        "0021 017D",
        "48 45 4C 4C 4F",
        "|HELLO",
        "0051 0FFF",
        "CR0 --  0001 0000",
    ):
        assert needle in text, needle


def test_dump_of_python_exception_has_traceback(programs, disp):
    """A dump for a Python exception names its type and message and includes the traceback."""

    def prog(ecb):
        raise ValueError("bad message format")

    programs.load("QZZ1", prog)
    disp.cremc("QZZ1")
    assert disp.wait_idle(WAIT)
    (dump,) = disp.dumps
    assert "ValueError: bad message format" in dump.text
    assert "TRACEBACK" in dump.text and "in prog" in dump.text


def test_dump_history_is_bounded(programs, make_dispatcher):
    """Only the last dump_history dumps are kept, oldest dropped first."""
    disp = make_dispatcher(1, dump_history=3)
    programs.load("FAIL", lambda ecb: ecb.serrc(f"number {ecb.params[0]}"))
    for n in range(5):
        disp.cremc("FAIL", bytes([n]))
    assert disp.wait_idle(WAIT)
    assert ["number 2" in d.message for d in disp.dumps] == [True, False, False]
    assert ["number 4" in d.message for d in disp.dumps] == [False, False, True]
    assert all(d.code is ErrorCode.APPLICATION_SERRC for d in disp.dumps)


def test_snapc_dumps_and_continues(programs, disp):
    """SNAPC writes a snapshot dump and the entry carries on to complete normally."""
    after = []

    def prog(ecb):
        ecb.snapc("checkpoint A")
        after.append(True)

    programs.load("QZZ1", prog)
    disp.cremc("QZZ1")
    assert disp.wait_idle(WAIT)
    (dump,) = disp.dumps
    assert dump.kind == "SNAPC" and "checkpoint A" in dump.text and "CPSE0002I" in dump.text
    assert after == [True]
    assert disp.stats().completed == 1 and disp.stats().failed == 0


def test_serrc_with_return_dumps_a_system_error_and_continues(programs, disp):
    """SERRC with return (C serrc_op SERRC_RETURN): a system-error dump (CPSE0001E,
    E0502) and the program goes on; the entry completes."""
    after = []

    def prog(ecb):
        ecb.serrc("U000001 CHECK", exit=False)
        after.append(True)

    programs.load("QZZ1", prog)
    disp.cremc("QZZ1")
    assert disp.wait_idle(WAIT)
    (dump,) = disp.dumps
    assert dump.kind == "SERRC" and dump.code is ErrorCode.APPLICATION_SERRC
    assert "CPSE0001E" in dump.text and "U000001 CHECK" in dump.text
    assert after == [True]
    assert disp.stats().completed == 1 and disp.stats().failed == 0


def test_broken_console_does_not_stop_the_system(programs, capsys):
    """If the console sink raises, the dump goes to stderr and entries keep running."""

    def broken(text):
        raise OSError("console gone")

    disp = Dispatcher(programs, istreams=1, console=broken).start()
    programs.load("FAIL", lambda ecb: 1 / 0)
    programs.load("GOOD", lambda ecb: None)
    disp.cremc("FAIL")
    disp.cremc("GOOD")
    assert disp.wait_idle(WAIT)
    assert disp.stats().completed == 1 and disp.stats().failed == 1
    disp.stop(1.0)
    assert "CPSE0001E" in capsys.readouterr().err


def test_runaway_program_hits_storage_limit(programs, make_dispatcher):
    """A program getting blocks in a loop stops at the limit with E0105; all are then freed."""
    storage = Storage({BlockType.L4: 50})
    disp = make_dispatcher(1, storage=storage)

    def runaway(ecb):
        while True:
            ecb.getcc(Level.D0, BlockType.L4)
            ecb.detac(Level.D0)

    programs.load("LOOP", runaway)
    disp.cremc("LOOP")
    assert disp.wait_idle(WAIT)
    (dump,) = disp.dumps
    assert dump.code is ErrorCode.STORAGE_LIMIT and dump.detached == 50
    assert storage.in_use(BlockType.L4) == 0


def test_cremc_from_running_entry(programs, make_dispatcher):
    """Entries created by running entries run too: a chain of 200 entries completes."""
    disp = make_dispatcher(2)

    def link(ecb):
        n = int.from_bytes(ecb.params, "big")
        if n < 199:
            ecb.cremc("LINK", (n + 1).to_bytes(2, "big"))

    programs.load("LINK", link)
    disp.cremc("LINK", (0).to_bytes(2, "big"))
    assert disp.wait_idle(WAIT)
    stats = disp.stats()
    assert stats.created == stats.completed == 200
    assert stats.calls == {"LINK": 200}


def test_counters_consistent_with_concurrent_creators(programs, make_dispatcher):
    """Four threads creating entries on two I-streams: every counter adds up exactly."""
    disp = make_dispatcher(2)
    programs.load("AAAA", lambda ecb: ecb.entrc("BBBB"))
    programs.load("BBBB", lambda ecb: None)
    programs.load("FAIL", lambda ecb: ecb.relcc(Level.D0))

    def producer() -> None:
        for i in range(500):
            disp.cremc("FAIL" if i % 10 == 0 else "AAAA")

    threads = [threading.Thread(target=producer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert disp.wait_idle(WAIT)
    stats = disp.stats()
    assert stats.created == 2000
    assert stats.completed == 1800 and stats.failed == 200
    assert stats.calls == {"AAAA": 1800, "BBBB": 1800, "FAIL": 200}
    assert stats.ready == stats.deferred == stats.low == stats.running == 0


def test_entries_wait_for_start(programs, make_dispatcher):
    """Entries created before start wait on their lists and run once it is called."""
    ran = []
    programs.load("QZZ1", lambda ecb: ran.append(1))
    disp = make_dispatcher(1, start=False)
    disp.cremc("QZZ1")
    assert disp.stats().ready == 1 and ran == []
    disp.start()
    assert disp.wait_idle(WAIT)
    assert ran == [1]


def test_start_twice_refused(disp):
    """A dispatcher starts once; a second start is an EcbError."""
    with pytest.raises(EcbError):
        disp.start()


def test_bad_configuration(programs):
    """Zero I-streams or a nesting limit below 1 are ValueErrors."""
    with pytest.raises(ValueError):
        Dispatcher(programs, istreams=0)
    with pytest.raises(ValueError):
        Dispatcher(programs, max_nesting=0)


def test_ecb_without_dispatcher_cannot_create(make_ecb):
    """The create macros on an ECB that is not running under a dispatcher raise EcbError."""
    with pytest.raises(EcbError):
        make_ecb().cremc("QZZ1")


def test_origin_is_inherited_by_created_entries(programs, disp):
    """An entry created by a program inherits its creator's origin."""
    seen = []
    programs.load("PRNT", lambda ecb: ecb.cremc("CHLD"))
    programs.load("CHLD", lambda ecb: seen.append(ecb.origin))
    disp.cremc("PRNT", origin="CUIR")
    assert disp.wait_idle(WAIT)
    assert seen == ["CUIR"]


def test_context_manager_starts_and_stops(programs):
    """``with Dispatcher(...)`` starts the I-streams and quiesces them at the end."""
    ran = []
    programs.load("QZZ1", lambda ecb: ran.append(1))
    console = Console()
    with Dispatcher(programs, istreams=2, console=console) as disp:
        assert disp.state == "running"
        disp.cremc("QZZ1")
    assert disp.state == "stopped" and ran == [1]
    assert "dispatcher stopped: clean" in console.text
