"""The Matrix page: heatmap cells read from the results file, selectors, deep links, clicks."""

from __future__ import annotations

import pytest
from helpers.ui_fixtures import (
    build_results,
    chart_specs,
    click_chart,
    open_app,
    texts,
    write_results,
)


@pytest.fixture
def results_file(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    return write_results(ragaudit_home / "results" / "latest.json", n=5)


def _overlay(at) -> dict:
    (spec,) = chart_specs(at)
    return spec["data"][1]


def _cell_label(overlay: dict, probe: str, config: str) -> str:
    for x, y, text in zip(overlay["x"], overlay["y"], overlay["text"], strict=True):
        if (y, x) == (probe, config):
            return text
    raise AssertionError(f"no cell {probe} × {config}")


def _measure(results: dict, probe: str, config: str, embedder: str, measure: str) -> dict:
    (cell,) = [
        c
        for c in results["cells"]
        if (c["probe"], c["config"], c["embedder"]) == (probe, config, embedder)
    ]
    return cell["measures"][measure]


def _half_up_percent(count: int, n: int) -> int:
    """The spec's rounding in whole numbers: floor(100 * count / n + 1/2)."""
    return (200 * count + n) // (2 * n)


def test_default_results_path_renders_rate_and_count_per_cell(results_file):
    results = build_results(n=5)
    at = open_app()
    assert not at.exception
    overlay = _overlay(at)
    for probe, config in [("boundary", "A"), ("boundary", "A_prime"), ("control", "M")]:
        m = _measure(results, probe, config, "local:minilm", "gold_in_context")
        expected = f"{_half_up_percent(m['count'], m['n'])}%<br>{m['count']}/{m['n']}"
        assert _cell_label(overlay, probe, config) == expected
    # the fixed splitter cuts every boundary span: the page must show it, read from the file
    assert _cell_label(overlay, "boundary", "A") == "0%<br>0/5"
    hover = [
        h
        for h, y, x in zip(overlay["hovertext"], overlay["y"], overlay["x"], strict=True)
        if (y, x) == ("boundary", "A_prime")
    ][0]
    # the fixture's cell is 4/5; its Wilson 95% interval, by hand (z = 1.96): centre
    # (0.8 + z²/10) / (1 + z²/5) = 0.6697, half-width z·√(0.8·0.2/5 + z²/100) / (1 + z²/5)
    # = 0.2941, so [0.3755, 0.9638]
    assert _measure(results, "boundary", "A_prime", "local:minilm", "gold_in_context")["count"] == 4
    assert "80% 4/5<br>Wilson interval [38–96%]" in hover


def test_generation_measure_shows_not_run_where_generation_did_not_run(results_file):
    at = open_app(results_file)
    at.selectbox(key="matrix_measure").select("correct").run()
    overlay = _overlay(at)
    assert _cell_label(overlay, "boundary", "A_prime") == "not run"  # not a gen config
    assert "<br>" in _cell_label(overlay, "boundary", "B")
    assert at.query_params["measure"] == "correct"


def test_secondary_embedder_is_marked_uncertified_and_lists_its_probes_only(results_file):
    at = open_app(results_file, embedder="local:e5-small")
    assert at.selectbox(key="matrix_embedder").value == "local:e5-small"
    assert "Uncertified" in texts(at)
    assert sorted(set(_overlay(at)["y"])) == ["negation", "paraphrase"]


def test_deep_link_selects_embedder_and_measure(results_file):
    at = open_app(results_file, embedder="local:minilm", measure="span_preserved")
    assert at.selectbox(key="matrix_measure").value == "span_preserved"
    assert _cell_label(_overlay(at), "boundary", "A") == "0%<br>0/5"
    assert _cell_label(_overlay(at), "boundary", "D") == "100%<br>5/5"


def test_clicking_a_cell_opens_that_cells_instances(results_file):
    point = {"x": "A", "y": "boundary", "customdata": ["boundary", "A", "run"]}
    at = click_chart(open_app(results_file), "matrix_heatmap", point)
    assert not at.exception
    assert at.title[0].value == "Instance"
    assert at.query_params["probe"] == "boundary" and at.query_params["config"] == "A"
    assert at.selectbox(key="instance_probe").value == "boundary"
    assert at.selectbox(key="instance_config").value == "A"
    assert "boundary × A" in texts(at)


def test_open_cell_button_is_a_keyboard_route_to_the_same_place(results_file):
    at = open_app(results_file)
    at.selectbox(key="matrix_open_probe").select("distractor")
    at.selectbox(key="matrix_open_config").select("M")
    at.button(key="matrix_open_cell").click().run()
    assert at.title[0].value == "Instance"
    assert at.selectbox(key="instance_probe").value == "distractor"
    assert at.selectbox(key="instance_config").value == "M"


def test_failed_calls_are_a_measure_and_the_header_counts_them(results_file):
    conditions = build_results(n=5)["conditions"]["calls"]
    at = open_app(results_file)
    assert (
        f"replayed {conditions['replayed']}, computed {conditions['computed']}, "
        f"failed {conditions['failed']}" in texts(at)
    )
    at.selectbox(key="matrix_measure").select("retrieval_failed_call").run()
    assert _cell_label(_overlay(at), "boundary", "A") == "0%<br>0/5"
