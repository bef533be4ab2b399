"""ROUTC in the ECB runtime: the router port, level checks, and the release of the level."""

from __future__ import annotations

from ecb_helpers import WAIT

from ecb import BlockType, ErrorCode, Level, TpfSystemError


class Recorder:
    """A message router that records what ROUTC hands it (or fails as told)."""

    def __init__(self, fail: TpfSystemError | None = None) -> None:
        self.calls: list[tuple[int, bytes, bytes, BlockType]] = []
        self.fail = fail

    def routc(self, ecb, rcpl, block) -> None:
        self.calls.append((ecb.ecb_id, rcpl, bytes(block), block.block_type))
        if self.fail is not None:
            raise self.fail


class Rc:
    """An RCPL object that converts itself to bytes, as tpfemu's Rcpl does."""

    def __bytes__(self) -> bytes:
        return b"R" * 16


def _run(disp, programs, fn):
    programs.load("QRT1", fn)
    disp.cremc("QRT1")
    assert disp.wait_idle(WAIT)


def test_routc_hands_rcpl_and_block_to_the_router_and_releases_the_level(disp, programs):
    """The router gets the RCPL bytes and the block on the level; afterwards the level is
    free and the block is back in storage."""
    router = disp.router = Recorder()
    after = {}

    def prog(ecb):
        ecb.getcc(Level.D2, BlockType.L1)[:3] = b"abc"
        ecb.routc(Rc(), Level.D2)
        after["held"] = ecb.levta(Level.D2)
        after["in_use"] = disp.storage.in_use(BlockType.L1)

    _run(disp, programs, prog)
    [(_, rcpl, block, block_type)] = router.calls
    assert rcpl == b"R" * 16 and block[:3] == b"abc" and block_type is BlockType.L1
    assert after == {"held": False, "in_use": 0}


def test_routc_without_a_router_is_a_system_error(disp, programs, console):
    """With no router installed, ROUTC is E0601 and the entry ends with a dump."""
    _run(disp, programs, lambda ecb: (ecb.getcc(Level.D0, 381), ecb.routc(b"x" * 12, Level.D0)))
    assert disp.dumps[0].error.code == ErrorCode.ROUTC_NO_ROUTER
    assert "E0601" in console.text


def test_routc_of_an_empty_level_is_a_system_error(disp, programs):
    """ROUTC of a level that holds no block is E0102; the router is not called."""
    router = disp.router = Recorder()
    _run(disp, programs, lambda ecb: ecb.routc(b"x" * 12, Level.D4))
    assert disp.dumps[0].error.code == ErrorCode.LEVEL_EMPTY and router.calls == []


def test_router_error_keeps_the_block_for_the_dump(disp, programs):
    """A system error from the router names this entry's program and level, and the dump
    still shows the block on that level."""
    disp.router = Recorder(TpfSystemError(ErrorCode.ROUTC_UNKNOWN_DESTINATION, "ROUTC",
                                          "LNIATA 0C0C0C is not a terminal"))
    _run(disp, programs, lambda ecb: (ecb.getcc(Level.D1, 381), ecb.routc(b"x" * 12, Level.D1)))
    [dump] = disp.dumps
    assert dump.error.code == ErrorCode.ROUTC_UNKNOWN_DESTINATION
    assert dump.error.program == "QRT1" and dump.error.level == Level.D1
    assert dump.level(Level.D1).block_type is BlockType.L1 and "0C0C0C" in dump.text
