"""`tpfemu demo --channels`: request/reply over channels with a cut connection recovers."""

from __future__ import annotations

from click.testing import CliRunner

from tpfemu.cli import main


def test_channels_demo_answers_every_request_once():
    """The demo's requests are each answered once, across the cut, and it says so."""
    result = CliRunner().invoke(main, ["demo", "--channels", "--requests", "12"])
    assert result.exit_code == 0, result.output
    assert "replies matched by CorrelId 12, served once each: yes" in result.output
    assert "CHNL0103W" in result.output  # the sender retried after the cut
