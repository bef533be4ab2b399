"""replay of a small capture through the bank's real trigger-driven program, BNK1."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner
from journaldata import T0, ident, row, write

from tpfemu.cli import main, script_commands
from tpfemu.pipeline.replay import read_inbound, replay

BANK = Path(__file__).resolve().parents[2] / "examples" / "bank"
ACCOUNTS = [b"%08d" % (1000 + 7 * i) for i in range(6)]


def _balance_of(account: bytes) -> int:
    spec = importlib.util.spec_from_file_location("bnk1_for_test", BANK / "bnk1.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.balance_of(account)


def legacy_capture(path: Path) -> Path:
    """What the legacy system saw (requests, put by clients) and made (replies by BNK1)."""
    rows = []
    for i, account in enumerate(ACCOUNTS):
        t = T0 + i * 20_000
        rows.append(row("put", "BANK.REQUEST", t, msg_id=ident(f"req{i}"), data=account,
                        correl_id=bytes(24), detail=json.dumps({"reply_to_q": "BANK.REPLY"})))
        rows.append(row("get", "BANK.REQUEST", t + 5_000, msg_id=ident(f"req{i}"),
                        ecb=100 + i, program="BNK1", data=account))
        answer = b"ACCOUNT %s BALANCE %d" % (account, _balance_of(account))
        rows.append(row("put", "BANK.REPLY", t + 6_000, msg_id=ident(f"legacy-reply{i}"),
                        correl_id=ident(f"req{i}"), ecb=100 + i, program="BNK1",
                        data=answer))
    return write(rows, path)


def test_inbound_rows_in_recorded_order(tmp_path):
    capture = legacy_capture(tmp_path / "capture" / "legacy.parquet")
    inbound = read_inbound([str(capture)])
    assert inbound.column("queue").to_pylist() == ["BANK.REQUEST"] * len(ACCOUNTS)
    assert inbound.column("payload").to_pylist() == ACCOUNTS
    assert inbound.column("event_time_us").to_pylist() == sorted(
        inbound.column("event_time_us").to_pylist())


def test_replay_through_bnk1_journals_the_replies(tmp_path):
    capture = legacy_capture(tmp_path / "capture" / "legacy.parquet")
    lines = []
    result = replay([str(capture)], tmp_path / "home",
                    script=script_commands((BANK / "setup.mqsc").read_text().splitlines()),
                    programs=str(BANK / "bnk1.py"), echo=lines.append, speed=50.0)
    assert result.quiescent and result.failed == 0 and result.inbound == len(ACCOUNTS)
    assert result.entries >= 1
    import tpfemu.journal as journal

    table = journal.read_table(tmp_path / "home")
    puts = table.filter(pa.compute.equal(table.column("event"), "put")).to_pylist()
    requests = [r for r in puts if r["queue"] == "BANK.REQUEST"]
    replies = [r for r in puts if r["queue"] == "BANK.REPLY"]
    assert [r["msg_id"] for r in requests] == [ident(f"req{i}") for i in range(6)]
    assert all(r["ecb"] is None for r in requests)
    assert sorted(r["correl_id"] for r in replies) == sorted(
        ident(f"req{i}") for i in range(6))
    assert all(r["program"] == "BNK1" and r["payload"].startswith(b"ACCOUNT ")
               for r in replies)
    triggers = table.filter(pa.compute.equal(table.column("event"), "trigger"))
    assert triggers.num_rows >= 1
    assert any("DEF QL-BANK.REQUEST" in line for line in lines)


@pytest.mark.spark
def test_replay_cli_then_compare_with_the_legacy_capture(spark, tmp_path):
    capture = legacy_capture(tmp_path / "capture" / "legacy.parquet")
    runner = CliRunner()
    result = runner.invoke(main, ["replay", str(capture), "--home", str(tmp_path / "home"),
                                  "--script", str(BANK / "setup.mqsc"),
                                  "--programs", str(BANK / "bnk1.py"), "-q",
                                  "--istreams", "1"])
    assert result.exit_code == 0, result.output
    assert "replayed 6 inbound messages" in result.output
    # The emulator gives replies new MsgIds; everything else must match the legacy run
    # (one I-stream: BNK1 answers in arrival order, as the legacy system did).
    result = runner.invoke(main, ["compare", str(capture), str(tmp_path / "home"),
                                  "--out", str(tmp_path / "diff"), "--ignore", "msg_id"])
    assert result.exit_code == 0, result.output
    assert "identical: expected 6, actual 6, matched 6" in result.output
    result = runner.invoke(main, ["compare", str(capture), str(tmp_path / "home"),
                                  "--out", str(tmp_path / "diff")])
    assert result.exit_code == 1 and "descriptor changed 6" in result.output


def test_replay_bad_capture_is_a_clean_error(tmp_path):
    write([row("put", "BANK.REPLY", ecb=1, data=b"x")], tmp_path / "c.parquet")
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "c.parquet"),
                                       "--home", str(tmp_path / "home")])
    assert result.exit_code != 0 and "no inbound messages" in result.output
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "missing"),
                                       "--home", str(tmp_path / "home")])
    assert result.exit_code == 2 and "missing: no such file" in result.output
