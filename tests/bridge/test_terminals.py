"""The LNIATA table and WGTA marks: operator-maintained, kept in the home across restarts."""

from __future__ import annotations

import json

import pytest
from bridge_helpers import FAST_CHANNEL, WAIT

import tpfemu
from tpfemu import mqi
from tpfemu.bridge import LayoutError, Lniata, Terminals


def _start(home) -> tpfemu.System:
    system = tpfemu.System.start(name="TPF1", home=home)
    system.console("ZMQSC DEF MQP")
    return system


def test_table_and_marks_survive_a_restart(tmp_path):
    """Terminals, routes, the pool, pool allocations and MQ marks made in one run are
    there after a restart on the same home."""
    with _start(tmp_path) as system:
        system.programs.load("BAL1", lambda ecb: None)
        system.console("ZBRDG DEF LN-0A0101 APPL-BAL1 RQ-REPLY.Q RQM-QM2")
        system.console("ZBRDG POOL FIRST-F00000 COUNT-8 APPL-BAL1")
        system.bridge.deliver(FAST_CHANNEL, mqi.MD(ReplyToQ=b"R", ReplyToQMgr=b"QM9"), b"X")
        assert system.dispatcher.wait_idle(WAIT)
        before = system.bridge.operator.terminals()
    with _start(tmp_path) as system:
        after = system.bridge.operator.terminals()
        assert [r["lniata"] for r in after] == ["0A0101", "F00000"]
        assert after[0]["routes"] == ["REPLY.Q@QM2"] and after[0]["application"] == "BAL1"
        assert after[1]["mq"] and after[1]["kind"] == "POOL"
        assert after[1]["reply"] is None  # a request does not survive a restart
        assert system.bridge.terminals.assign("R", "QM9") == Lniata.parse("F00000")
        assert system.bridge.operator.pool()["first"] == "F00000"
    assert [r["wgta"] for r in before] == [r["wgta"] for r in after]


def test_unreadable_table_is_refused_naming_the_file(tmp_path):
    """A damaged bridge.json stops the start with an error naming the file."""
    (tmp_path / "bridge.json").write_text(json.dumps({"wgta": ["ZZ"]}))
    with pytest.raises(LayoutError, match="bridge.json"):
        Terminals(tmp_path)


def test_failed_save_changes_nothing(tmp_path):
    """When the table cannot be written, the change is undone and the error raised."""
    terminals = Terminals(tmp_path)
    terminals.define(Lniata.parse("0A0101"))
    (tmp_path / "bridge.json").unlink()
    (tmp_path / "bridge.json").mkdir()  # the file cannot replace a directory
    with pytest.raises(OSError):
        terminals.define(Lniata.parse("0A0102"))
    assert list(terminals.wgta) == [Lniata.parse("0A0101")]
    assert [p.name for p in tmp_path.iterdir()] == ["bridge.json"]  # no temporary left


def test_pool_allocation_skips_operator_terminals_and_runs_out():
    """The pool never hands out an LNIATA the operator defined, and gives None once every
    pool terminal is allocated."""
    from tpfemu.bridge import Pool

    terminals = Terminals()
    terminals.set_pool(Pool(Lniata.parse("FE0000"), 2))
    terminals.define(Lniata.parse("FE0000"))
    assert terminals.assign("Q", "A") == Lniata.parse("FE0001")
    assert terminals.assign("Q", "B") is None
    assert terminals.assign("Q", "A") == Lniata.parse("FE0001")
