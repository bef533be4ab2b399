"""replay puts each inbound message with the MsgType, Format and ReplyToQ(Mgr) its capture
recorded (the journal's columns), unless --reply-to overrides the reply queue."""

from __future__ import annotations

import pyarrow as pa
from journaldata import T0, ident, row, write
from test_replay import ACCOUNTS, BANK

from tpfemu import journal
from tpfemu.cli import script_commands
from tpfemu.mqi import CMQC
from tpfemu.pipeline.replay import replay


def _capture(path, reply_to_q: str):
    """Requests whose ReplyToQ, MsgType and Format are in the journal's columns only."""
    rows = [row("put", "BANK.REQUEST", T0 + i * 20_000, msg_id=ident(f"req{i}"),
                data=account, correl_id=bytes(24), msg_type=CMQC.MQMT_REQUEST,
                format="MQSTR", reply_to_q=reply_to_q)
            for i, account in enumerate(ACCOUNTS)]
    return write(rows, path)


def _run(tmp_path, capture, **kwargs):
    lines: list[str] = []
    result = replay([str(capture)], tmp_path / "home",
                    script=script_commands((BANK / "setup.mqsc").read_text().splitlines()),
                    programs=str(BANK / "bnk1.py"), echo=lines.append, speed=50.0, **kwargs)
    table = journal.read_table(tmp_path / "home")
    puts = table.filter(pa.compute.equal(table.column("event"), "put")).to_pylist()
    return result, puts, lines


def test_the_captured_reply_to_q_and_msg_type_are_replayed(tmp_path):
    """Without --reply-to, the requests are put with their recorded ReplyToQ, MsgType and
    Format (the new journal records them), so BNK1 replies there and no entry fails."""
    capture = _capture(tmp_path / "capture" / "c.parquet", "BANK.REPLY")
    result, puts, lines = _run(tmp_path, capture)
    assert result.failed == 0 and result.inbound == len(ACCOUNTS), lines
    requests = [p for p in puts if p["queue"] == "BANK.REQUEST"]
    assert [(p["msg_type"], p["format"], p["reply_to_q"]) for p in requests] == [
        (CMQC.MQMT_REQUEST, "MQSTR", "BANK.REPLY")] * len(ACCOUNTS)
    replies = [p for p in puts if p["queue"] == "BANK.REPLY"]
    assert sorted(p["correl_id"] for p in replies) == sorted(
        ident(f"req{i}") for i in range(len(ACCOUNTS)))


def test_reply_to_overrides_the_captured_reply_queue(tmp_path):
    """--reply-to replaces a captured ReplyToQ: the replies go to the queue it names."""
    capture = _capture(tmp_path / "capture" / "c.parquet", "NO.SUCH.Q")
    result, puts, lines = _run(tmp_path, capture, reply_to="BANK.REPLY")
    assert result.failed == 0, lines
    requests = [p for p in puts if p["queue"] == "BANK.REQUEST"]
    assert {p["reply_to_q"] for p in requests} == {"BANK.REPLY"}
    assert len([p for p in puts if p["queue"] == "BANK.REPLY"]) == len(ACCOUNTS)
