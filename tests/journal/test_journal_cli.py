"""``tpfemu journal``: export to Parquet and show, with clean errors."""

from __future__ import annotations

import pyarrow.parquet as pq
from click.testing import CliRunner

import tpfemu.mqi as pymqi
from tpfemu import cli
from tpfemu.journal import SCHEMA, read_table
from tpfemu.mqi import CMQC


def _home_with_messages(start_system, count: int = 3):
    system = start_system()
    qm = pymqi.connect(system.name)
    q = pymqi.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    for i in range(count):
        q.put(b"msg %d" % i, pymqi.MD())
    q.get(None, pymqi.MD())
    q.close()
    qm.disconnect()
    system.stop()
    return system.home


def test_export_writes_parquet_with_every_event(start_system, tmp_path):
    """`tpfemu journal export HOME --out DIR` writes Parquet files holding every journal
    event with the journal schema, and says how many."""
    home = _home_with_messages(start_system)
    out = tmp_path / "parquet"
    result = CliRunner().invoke(cli.main, ["journal", "export", str(home), "--out", str(out)])
    assert result.exit_code == 0, result.output
    (path,) = out.glob("*.parquet")
    table = pq.read_table(path)
    assert table.schema.equals(SCHEMA)
    assert table.equals(read_table(home))
    assert table.column("event").to_pylist().count("put") == 3
    assert f"1 file, {table.num_rows} events" in result.output


def test_export_of_a_bad_file_is_a_clean_error(tmp_path):
    """Exporting a file that is not a journal exits 1 with a message naming the file and
    no traceback."""
    bad = tmp_path / "B-00000001.arrows"
    bad.write_bytes(b"garbage" * 20)
    result = CliRunner().invoke(cli.main, ["journal", "export", str(bad), "--out",
                                           str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "B-00000001.arrows" in result.output and "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)  # click's error, not a crash


def test_export_of_a_home_without_journal_is_a_clean_error(tmp_path):
    """A home with no journal segments exits 1 saying so."""
    result = CliRunner().invoke(cli.main, ["journal", "export", str(tmp_path), "--out",
                                           str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "no journal segments" in result.output


def test_show_prints_one_line_per_event(start_system):
    """`tpfemu journal show HOME --event put` prints each put, with its queue."""
    home = _home_with_messages(start_system, count=2)
    result = CliRunner().invoke(cli.main, ["journal", "show", str(home), "--event", "put"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == 2
    assert all(" put " in line and "APP.Q" in line and "len=5" in line for line in lines)


def test_run_journal_option(tmp_path):
    """`tpfemu run --home H --journal off` writes no journal; the default writes one."""
    runner = CliRunner()
    off = runner.invoke(cli.main, ["run", "--home", str(tmp_path / "a"), "--journal", "off"],
                        input="ZMQSC DEF MQP\n")
    assert off.exit_code == 0, off.output
    assert not (tmp_path / "a" / "journal").exists()
    on = runner.invoke(cli.main, ["run", "--home", str(tmp_path / "b"), "--name", "JRNCLI"],
                       input="ZMQSC DEF MQP\n")
    assert on.exit_code == 0, on.output
    rows = read_table(tmp_path / "b").to_pylist()
    assert [(r["event"], r["queue"], r["detail"]) for r in rows] == [
        ("define", "JRNCLI", '{"type": "MQP"}'),
        ("define", "DEAD.LETTER.QUEUE", '{"type": "QL"}'),
        ("define", "SPECIAL.RECOVERY.QUEUE", '{"type": "QL"}'),
    ]
