"""Our AM0SG, RCPL, WGTA entry and CUIW parameter layouts, byte by byte (docs/bridge.md)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tpfemu.bridge import Am0sg, CuiwParams, LayoutError, Lniata, Rcpl, WgtaEntry
from tpfemu.bridge.layouts import AM0SG_MAX_TEXT, BLOCK_SIZE

LNI = Lniata.parse("0A0102")


def test_lniata_is_three_bytes_shown_as_hex():
    """An LNIATA parses from 6 hex digits, is the 3 bytes LN, IA, TA, and prints as hex."""
    assert LNI == b"\x0a\x01\x02" and (LNI.line, LNI.interchange, LNI.terminal) == (10, 1, 2)
    assert str(Lniata.parse("fe00ff")) == "FE00FF"
    for bad in ("0A01", "0A01020", "XYZXYZ", ""):
        with pytest.raises(LayoutError, match="6 hexadecimal digits"):
            Lniata.parse(bad)


def test_am0sg_block_is_byte_exact():
    """An AM0SG fills one 381-byte block: id X'C1D4', program stamp in EBCDIC, zero chains,
    the text count, the LNIATA, the MQ flag, then the text and zeros."""
    block = Am0sg(b"BAL 1234", LNI, from_mq=True, program="CMQB").pack()
    assert len(block) == BLOCK_SIZE == 381
    assert block[:22] == bytes.fromhex(
        "C1D4" "00" "00" "C3D4D8C2" "00000000" "00000000" "0008" "0A0102" "80")
    assert block[22:30] == b"BAL 1234" and block[30:] == bytes(381 - 30)
    assert Am0sg.unpack(block) == Am0sg(b"BAL 1234", LNI, True, "CMQB")


def test_am0sg_holds_at_most_359_bytes_of_text():
    """359 bytes of text fit the block; 360 are refused, naming the limit."""
    assert len(Am0sg(b"x" * AM0SG_MAX_TEXT).pack()) == 381
    with pytest.raises(LayoutError, match="at most 359"):
        Am0sg(b"x" * 360).pack()


@pytest.mark.parametrize(("patch", "problem"), [
    ((0, b"XX"), "AM0BID"),
    ((8, b"\x00\x00\x00\x01"), "chained"),
    ((16, b"\x01\x68"), "AM0CCT 360"),
])
def test_unreadable_am0sg_is_refused(patch, problem):
    """A block with a wrong id, a forward chain or a count past its end is not an AM0SG."""
    block = bytearray(Am0sg(b"hi").pack())
    offset, raw = patch
    block[offset:offset + len(raw)] = raw
    with pytest.raises(LayoutError, match=problem):
        Am0sg.unpack(block)


def test_rcpl_is_byte_exact():
    """The 16-byte RCPL: destination program in EBCDIC, origin X'00'+LNIATA, control flags
    X'80' program destination | X'20' AM0SG | X'10' from MQ, then zeros."""
    raw = Rcpl("BAL1", LNI, am0sg=True, from_mq=True).pack()
    assert raw == bytes.fromhex("C2C1D3F1" "000A0102" "B0000000" "00000000")
    assert Rcpl.unpack(raw) == Rcpl("BAL1", LNI, True, True)


def test_rcpl_reply_swaps_destination_and_origin():
    """An answer's RCPL goes back to the origin terminal; the basic 12-byte form reads too."""
    reply = Rcpl("BAL1", LNI, from_mq=True).reply()
    assert reply.destination == LNI and reply.origin == "BAL1"
    assert bytes(reply)[:8] == bytes.fromhex("000A0102C2C1D3F1")
    assert Rcpl.unpack(bytes(reply)[:12]) == reply


def test_rcpl_that_contradicts_its_flags_is_refused():
    """A terminal address must start X'00'; an RCPL shorter than 12 bytes is refused."""
    raw = bytearray(Rcpl(LNI, "BAL1").pack())
    raw[0] = 0x01
    with pytest.raises(LayoutError, match="does not start X'00'"):
        Rcpl.unpack(raw)
    with pytest.raises(LayoutError, match="at least 12"):
        Rcpl.unpack(b"\0" * 11)


def test_wgta_entry_is_byte_exact():
    """A WGTA entry: LNIATA, flags (X'80' MQ, X'40' operator), application, two counts."""
    entry = WgtaEntry(LNI, "BAL1", mq=True, operator=True, inputs=3, outputs=2)
    assert entry.pack() == bytes.fromhex("0A0102" "C0" "C2C1D3F1" "00000003" "00000002")
    assert WgtaEntry.unpack(entry.pack()) == entry
    assert WgtaEntry(LNI).pack()[4:8] == b"\x40" * 4  # no application: blanks


def test_cuiw_parameters_are_byte_exact():
    """CUIW's area: ReplyToQ (48) and ReplyToQMgr (48) blank-padded, LNIATA at EBW096,
    application at EBW099 (X'00' when none), 104 bytes in all."""
    raw = CuiwParams("REPLY.Q", "QM2", LNI, "BAL1").pack()
    assert len(raw) == 104
    assert raw[:48] == b"REPLY.Q".ljust(48) and raw[48:96] == b"QM2".ljust(48)
    assert raw[96:104] == bytes.fromhex("0A0102" "C2C1D3F1" "00")
    assert CuiwParams.unpack(raw) == CuiwParams("REPLY.Q", "QM2", LNI, "BAL1")
    assert CuiwParams("Q", "M").pack()[96:104] == bytes(8)
    assert CuiwParams("", "", LNI, "BAL1").results() == raw[96:104]


@given(st.binary(max_size=AM0SG_MAX_TEXT), st.binary(min_size=3, max_size=3), st.booleans())
def test_am0sg_round_trips(text, lni, from_mq):
    """Any text that fits comes back from the block unchanged, with its LNIATA and flag."""
    message = Am0sg(text, Lniata(lni), from_mq, "QZZ1")
    assert Am0sg.unpack(message.pack()) == message


def test_reading_again_gives_the_same_values_and_bad_bytes_still_fail():
    """Each layout is read once and remembered: reading the same bytes again (from bytes,
    a bytearray or a memoryview) gives an equal value, each LNIATA is a Lniata, and bytes
    that failed to read fail again, also after good ones of the same shape were read."""
    raw = Rcpl("BAL1", LNI, from_mq=True).pack()
    for source in (raw, bytearray(raw), memoryview(raw), raw + b"extra"):
        assert Rcpl.unpack(source) == Rcpl("BAL1", LNI, True, True)
        assert type(Rcpl.unpack(source).origin) is Lniata
    bad = bytearray(raw)
    bad[4] = 0x01  # origin flagged a terminal, not starting X'00'
    for _ in range(2):
        with pytest.raises(LayoutError, match="does not start X'00'"):
            Rcpl.unpack(bad)
    area = CuiwParams("REPLY.Q", "QM2", LNI, "BAL1").pack()
    assert CuiwParams.unpack(bytearray(area)) == CuiwParams.unpack(area)
    assert CuiwParams.unpack(area) == CuiwParams("REPLY.Q", "QM2", LNI, "BAL1")
    assert CuiwParams("REPLY.Q", "QM2", bytearray(LNI), "BAL1").pack() == area
    wrong = bytearray(area)
    wrong[99:103] = b"1BAD"
    for _ in range(2):
        with pytest.raises(LayoutError, match="CUIW application"):
            CuiwParams.unpack(wrong)


def test_many_distinct_values_read_correctly_past_the_remembered_ones():
    """More distinct RCPLs and CUIW areas than are remembered (4096) still each read back
    to their own values."""
    for n in range(5000):
        lni = Lniata(n.to_bytes(3, "big"))
        assert Rcpl.unpack(Rcpl("BAL1", lni).pack()).origin == lni
        area = CuiwParams(f"Q{n}", "QM", lni).pack()
        assert CuiwParams.unpack(area) == CuiwParams(f"Q{n}", "QM", lni)


@pytest.mark.parametrize(("patch", "problem"), [
    (None, None),
    ((0, b"XX"), "AM0BID"),
    ((8, b"\x00\x00\x00\x01"), "chained"),
    ((16, b"\x01\x68"), "AM0CCT 360"),
])
def test_am0sg_text_alone_reads_and_fails_as_the_whole_message(patch, problem):
    """Am0sg.text_of (what ROUTC reads) gives unpack()'s text, from bytes, a bytearray
    or a memoryview, and refuses each bad block with the same error, every time (its
    header read once is remembered, its count checked against each block)."""
    block = bytearray(Am0sg(b"SEATS 042", LNI, program="AVL1").pack())
    if patch is None:
        for source in (bytes(block), block, memoryview(block)):
            assert Am0sg.text_of(source) == Am0sg.unpack(source).text == b"SEATS 042"
        with pytest.raises(LayoutError, match="AM0CCT 9 is more than the 30-byte block"):
            Am0sg.text_of(block[:30])  # the same header, on a block too short for its text
        with pytest.raises(LayoutError, match="shorter than an AM0SG header"):
            Am0sg.text_of(block[:21])
        return
    offset, raw = patch
    block[offset:offset + len(raw)] = raw
    for _ in range(2):
        with pytest.raises(LayoutError, match=problem):
            Am0sg.text_of(block)
        with pytest.raises(LayoutError, match=problem):
            Am0sg.unpack(block)


def test_remembered_pieces_equal_the_ones_made_afresh():
    """The packed RCPL of Rcpl.packed, CUIW's results and the AM0SG header read once and
    remembered equal what the layouts make field by field, for many distinct values."""
    for n in range(0, 5000, 7):
        lni = Lniata(n.to_bytes(3, "big"))
        assert Rcpl.packed("COA4", lni, True, bool(n % 2)) == \
            Rcpl("COA4", lni, True, bool(n % 2)).pack()
        app = None if n % 3 else "AVL1"
        results = CuiwParams("", "", lni, app).results()
        assert results == lni + (b"\0" * 4 if app is None else "AVL1".encode("cp037")) + b"\0"
        area = bytearray(104)
        area[96:104] = results
        assert CuiwParams.results_of(area) == (lni, app)
        text = b"T%d" % n
        assert Am0sg.unpack(Am0sg(text, lni, True, "CMQB").pack()) == \
            Am0sg(text, lni, True, "CMQB")
