"""The Matrix page's attribution bars: beside the heatmap, one stacked bar per cell that
records an attribution, each segment its count/n; a click opens the cell like the heatmap's.

The results file is the synthetic one with attributions written by hand
(tests/helpers/grid_fixtures.py), so every expected figure below is counted by hand from that file.
"""

from __future__ import annotations

import pytest
from helpers.grid_fixtures import hand_results, measure, write_latest
from helpers.stack_results import PRIMARY as STACK_PRIMARY
from helpers.stack_results import STACK_EMBEDDER, stack_results
from helpers.ui_fixtures import chart_specs, click_chart, open_app, texts


@pytest.fixture
def results_file(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    return write_latest(ragaudit_home, hand_results())


def _bars(at) -> dict:
    (spec,) = [s for s in chart_specs(at) if any(t["type"] == "bar" for t in s["data"])]
    return spec


def _segments(spec: dict, probe: str, axis: str) -> dict[str, str]:
    """Segment name -> its label for `probe`'s bar in the panel on x-axis `axis`."""
    out = {}
    for trace in spec["data"]:
        if trace["type"] != "bar" or trace.get("xaxis", "x") != axis:
            continue
        for y, text in zip(trace["y"], trace["text"], strict=True):
            if y == probe:
                out[trace["name"]] = text
    return out


def _marks(spec: dict, axis: str) -> dict[str, str]:
    """Probe -> the words drawn where its cell has no bar, in the panel on `axis`."""
    (trace,) = [t for t in spec["data"] if t["type"] == "scatter" and t.get("xaxis", "x") == axis]
    return {
        y: text.replace("<br>", " ")
        for y, text in zip(trace["y"], trace["text"], strict=True)
        if text
    }


def test_the_bars_stand_beside_the_heatmap_one_panel_per_attributed_column(results_file):
    at = open_app(results_file)
    assert not at.exception
    specs = chart_specs(at)
    assert len(specs) == 2  # the heatmap, then the bars
    titles = [a["text"] for a in _bars(at)["layout"]["annotations"]]
    assert titles == ["B", "C"]  # only B and C record an attribution; A and M generate without
    # side by side: the heatmap in one column, the bars in the other
    assert sorted(len(c.get("plotly_chart")) for c in at.columns)[-2:] == [1, 1]


def test_five_panels_go_below_the_heatmap_not_beside_it(ragaudit_home, monkeypatch):
    # The shipped reference generates on A, B, C, M and T4000: five panels beside eight
    # heatmap columns would leave each cell ~35 px, so both charts take the full width.
    from ragaudit.results import reference

    monkeypatch.setenv("RAGAUDIT_RESULTS", str(reference.shipped_reference()))
    at = open_app()
    assert not at.exception
    titles = [a["text"] for a in _bars(at)["layout"]["annotations"]]
    assert titles == ["A", "B", "C", "M", "T4000"]
    assert len(at.get("plotly_chart")) == 2
    assert all(not c.get("plotly_chart") for c in at.columns)


def test_each_segment_is_the_recorded_count_over_n(results_file):
    spec = _bars(open_app(results_file))
    assert _segments(spec, "boundary", "x") == {
        "retrieval failure": "2/5",
        "generation failure": "1/5",
        "generator ceiling": "1/5",
        "correct": "1/5",
    }
    assert _segments(spec, "boundary", "x2") == {"correct": "4/5", "failed call": "1/5"}
    widths = {
        t["name"]: x
        for t in spec["data"]
        if t["type"] == "bar" and t.get("xaxis", "x") == "x"
        for x, y in zip(t["x"], t["y"], strict=True)
        if y == "boundary"
    }
    assert widths == {
        "retrieval failure": 0.4,
        "generation failure": 0.2,
        "generator ceiling": 0.2,
        "correct": 0.2,
    }


def test_the_legend_names_every_value_drawn_once_even_from_a_later_panel(results_file):
    spec = _bars(open_app(results_file))
    legend = [t["name"] for t in spec["data"] if t["type"] == "bar" and t.get("showlegend")]
    # failed call is drawn only in C's panel (boundary × C 1/5): it is in the legend too
    assert sorted(legend) == sorted(
        ["retrieval failure", "generation failure", "generator ceiling", "correct", "failed call"]
    )


def test_hover_gives_every_value_and_the_records_without_an_oracle(results_file):
    spec = _bars(open_app(results_file))
    (hover,) = {
        h
        for t in spec["data"]
        if t["type"] == "bar" and t.get("xaxis", "x") == "x"
        for h, y in zip(t["hovertext"], t["y"], strict=True)
        if y == "unanswerable"
    }
    assert hover.split("<br>") == [
        "unanswerable × B",
        "retrieval failure: 0% 0/5",
        "generation failure: 40% 2/5",
        "generator ceiling: 0% 0/5",
        "correct: 60% 3/5",
        "failed call: 0% 0/5",
        "no oracle context (no gold span, or retrieval failed), so no ceiling measured: 100% 5/5",
    ]


def test_no_oracle_is_said_under_the_bars(results_file):
    page = texts(open_app(results_file))
    assert "so no ceiling measured: unanswerable × B 5/5." in page


def test_a_cell_without_a_bar_says_why(results_file):
    marks = _marks(_bars(open_app(results_file)), "x")
    assert marks["control"] == "not run"  # generation did not run on it
    assert marks["distractor"] == "not measured in this file"  # generated, no attribution
    assert "boundary" not in marks and "unanswerable" not in marks


def test_clicking_a_bar_opens_that_cells_instances(results_file):
    point = {"x": 0.2, "y": "boundary", "customdata": ["boundary", "C", "failed_call"]}
    at = click_chart(open_app(results_file), "matrix_attribution_bars", point)
    assert not at.exception
    assert at.title[0].value == "Instance"
    assert at.query_params["probe"] == "boundary" and at.query_params["config"] == "C"
    assert at.selectbox(key="instance_config").value == "C"


ATTRIBUTION_ORDER = ("retrieval", "generation", "ceiling", "correct", "failed_call")


def _stack_file(home) -> object:
    """tests/helpers/stack_results.py with attributions written by hand on its two generated
    cells: boundary under B and under the user's stack (its own embedder)."""
    results = stack_results()
    cells = {(c["probe"], c["config"]): c for c in results["cells"]}
    cells[("boundary", "B")]["attribution"] = {
        "n": 5,
        **{k: measure(v) for k, v in zip(ATTRIBUTION_ORDER, (3, 1, 0, 1, 0), strict=True)},
    }
    cells[("boundary", "mine")]["attribution"] = {
        "n": 5,
        **{k: measure(v) for k, v in zip(ATTRIBUTION_ORDER, (1, 1, 0, 3, 0), strict=True)},
    }
    return write_latest(home, results)


def test_the_users_stack_has_its_panel_under_its_own_embedder(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    at = open_app(_stack_file(ragaudit_home), embedder=STACK_PRIMARY)
    assert not at.exception
    spec = _bars(at)
    stack_label = f"mine ({STACK_EMBEDDER})"
    assert [a["text"] for a in spec["layout"]["annotations"]] == ["B", stack_label]
    assert _segments(spec, "boundary", "x2") == {
        "retrieval failure": "1/5",
        "generation failure": "1/5",
        "correct": "3/5",
    }
    at = click_chart(at, "matrix_attribution_bars", {"customdata": ["boundary", "mine", "correct"]})
    assert at.title[0].value == "Instance"
    assert at.query_params["config"] == "mine"
