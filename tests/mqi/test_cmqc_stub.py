"""tpfemu/mq/cmqc.pyi is current: every constant of tpfemu.mq.cmqc, named with its type."""

from __future__ import annotations

from tpfemu.mq import cmqc, cmqc_stub


def test_the_stub_is_current():
    """The committed stub is what ``python -m tpfemu.mq.cmqc_stub`` writes today (run it
    after adding a constant)."""
    assert cmqc_stub.STUB.read_text() == cmqc_stub.render()


def test_the_stub_names_every_constant_with_its_type_and_no_value():
    """Every public MQ constant is in the stub, typed as it is at run time, with no value."""
    declared = dict(line.split(": ", 1) for line in cmqc_stub.render().splitlines()
                    if line.startswith(("MQ", "REASONS")))
    constants = {n: v for n, v in vars(cmqc).items() if n.startswith("MQ")}
    assert len(constants) > 900
    assert set(constants) <= set(declared)
    for name, value in constants.items():
        assert declared[name] == type(value).__name__, name
    assert not any("=" in kind for kind in declared.values())


def test_check_mode_says_whether_the_stub_is_current(tmp_path, monkeypatch, capsys):
    """``--check`` exits 0 for a current stub and 1 for a stale one, writing nothing."""
    stub = tmp_path / "cmqc.pyi"
    monkeypatch.setattr(cmqc_stub, "STUB", stub)
    stub.write_text("MQCC_OK: int\n")
    assert cmqc_stub.main(["--check"]) == 1
    assert stub.read_text() == "MQCC_OK: int\n"
    assert cmqc_stub.main([]) == 0
    assert cmqc_stub.main(["--check"]) == 0
    assert "current" in capsys.readouterr().out
