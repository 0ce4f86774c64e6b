"""The Severity page's grid: each cell's class as a colour in the classes' order, the branch
on hover, the rules beside it; a click selects the cell's detectability and instances.

The results file is the synthetic one with classes written by hand (tests/helpers/grid_fixtures.py),
so every expected value below is that file's (the fixture's eight rules, counted by hand).
"""

from __future__ import annotations

import pytest
from helpers.grid_fixtures import CLASSES, ORDER, hand_results, write_latest
from helpers.ui_fixtures import chart_specs, click_chart, open_app, texts


@pytest.fixture
def results_file(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    return write_latest(ragaudit_home, hand_results())


def _grid(at) -> dict:
    (spec,) = [s for s in chart_specs(at) if any(t["type"] == "heatmap" for t in s["data"])]
    return spec


def _overlay_point(spec: dict, probe: str, config: str) -> tuple[str, str]:
    overlay = spec["data"][1]
    for x, y, text, hover in zip(
        overlay["x"], overlay["y"], overlay["text"], overlay["hovertext"], strict=True
    ):
        if (y, x) == (probe, config):
            return text, hover
    raise AssertionError(f"no cell {probe} × {config}")


def _colour_value(spec: dict, probe: str, config: str):
    heat = spec["data"][0]
    return heat["z"][heat["y"].index(probe)][heat["x"].index(config)]


def test_each_cell_shows_its_class(results_file):
    spec = _grid(open_app(results_file, page="pages/severity.py"))
    for (probe, config), (severity_class, _) in CLASSES.items():
        assert _overlay_point(spec, probe, config)[0] == severity_class


def test_the_colours_follow_the_order_of_the_classes(results_file):
    spec = _grid(open_app(results_file, page="pages/severity.py"))
    by_class = {c: _colour_value(spec, "boundary", cfg) for (_, cfg), (c, _) in CLASSES.items()}
    ranked = sorted(by_class, key=by_class.get)
    assert ranked == [c for c in ORDER if c in by_class]  # none < low < high < critical
    legend = [t["name"] for t in spec["data"] if t.get("name")]  # the legend's entries
    assert legend == [*ORDER, "undetermined"]


def test_hover_names_the_branch_and_its_rule(results_file):
    spec = _grid(open_app(results_file, page="pages/severity.py"))
    hover = _overlay_point(spec, "boundary", "C")[1].replace("<br>", " ")
    assert hover == (
        "boundary × C: low branch loud_failures (rule 4 of 8) "
        "At least 80% of the failures were loud."
    )
    hover = _overlay_point(spec, "boundary", "B")[1].replace("<br>", " ")
    assert "branch critical (rule 8 of 8) Wrong, confident, no signal, uncaught." in hover


def test_a_cell_without_a_class_says_so(results_file):
    spec = _grid(open_app(results_file, page="pages/severity.py"))
    text, hover = _overlay_point(spec, "control", "D")
    assert text.replace("<br>", " ") == "not measured in this file"
    assert _colour_value(spec, "control", "D") is None


def test_the_rules_are_listed_beside_the_grid_numbered_in_order(results_file):
    page = texts(open_app(results_file, page="pages/severity.py"))
    assert "**The 8 rules, in the order they are tested** (first match wins)" in page
    assert "4. **low** (`loud_failures`) At least 80% of the failures were loud." in page
    assert "8. **critical** (`critical`) Wrong, confident, no signal, uncaught." in page


def _click(at, probe: str, config: str):
    point = {"x": config, "y": probe, "customdata": [probe, config, "b"]}
    return click_chart(at, "severity_grid", point)


def test_clicking_a_cell_opens_its_detectability_and_links_its_instances(results_file):
    at = _click(open_app(results_file, page="pages/severity.py"), "boundary", "C")
    assert not at.exception
    assert at.query_params["probe"] == "boundary" and at.query_params["config"] == "C"
    assert "**boundary × C**: severity `low` via branch `loud_failures`" in texts(at)
    (link,) = [e for e in at.get("page_link") if "instances" in e.proto.label]
    assert link.proto.label == "Open the instances of boundary × C"
    assert "probe=boundary" in link.proto.query_string and "config=C" in link.proto.query_string


def test_a_later_choice_in_the_selectboxes_is_not_undone_by_the_old_click(results_file):
    at = _click(open_app(results_file, page="pages/severity.py"), "boundary", "C")
    at.selectbox(key="severity_probe").select("control").run()
    assert "**control × C**" in texts(at)
