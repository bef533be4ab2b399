"""The analyze report's line charts: labelled, with the legend beside the plot."""

from __future__ import annotations

import pandas as pd

from tpfemu.pipeline import report


def test_line_chart_legend_stands_beside_the_plot(tmp_path, monkeypatch):
    """A line chart is a PNG whose legend lies right of the axes (never over the lines),
    with both axes labelled and every label inside the figure."""
    plt = report._plt()
    kept = []
    monkeypatch.setattr(plt, "close", kept.append)
    minutes = pd.date_range("2026-11-27 12:00", periods=50, freq="min")
    series = [(f"Q{i}", minutes, list(range(50))) for i in range(8)]
    assert report._line_chart(tmp_path / "c.png", "Puts per minute", "messages / minute",
                              series)
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (fig,) = kept
    (ax,) = fig.axes
    renderer = fig.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    axes = ax.get_window_extent(renderer)
    assert legend.x0 >= axes.x1
    assert ax.get_xlabel() == "minute (UTC)" and ax.get_ylabel() == "messages / minute"
    width, height = fig.bbox.width, fig.bbox.height
    for text in (ax.xaxis.label, ax.yaxis.label, *ax.get_xticklabels()):
        box = text.get_window_extent(renderer)
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height
    fig.clf()
