"""A config that runs only some probes (T4000) says so on its empty heatmap cells."""

from __future__ import annotations

from ragaudit.ui.charts import heatmap_figure


def test_an_empty_cell_of_a_scoped_config_names_the_probes_it_runs():
    cell = {"measures": {"gold_in_context": {"count": 5, "n": 5, "rate": 1.0}}}
    cells = {("table_split", "T4000"): cell, ("control", "T4000"): None, ("control", "B"): None}
    fig = heatmap_figure(
        ["control", "table_split"],
        ["B", "T4000"],
        cells,
        "gold_in_context",
        {},
        {"T4000": ["table_split"]},
    )
    hover = dict(
        zip(zip(fig.data[1].y, fig.data[1].x, strict=True), fig.data[1].hovertext, strict=True)
    )
    assert hover[("control", "T4000")] == "control × T4000: not run (T4000 runs only table_split)"
    assert hover[("control", "B")] == "control × B: not run"  # no scope: no reason invented
