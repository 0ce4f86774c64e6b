"""The report's pictures: static SVG drawn from the results file (no JavaScript, nothing
fetched), parsed back with xml.etree; every expected label and count below is written by
hand from the small results file built here, never read back through the code drawn with."""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET

import pytest
from helpers.analysis_fixtures import analysed_results

from ragaudit.report import svg
from ragaudit.report.document import render_html, render_markdown

SVG = "{http://www.w3.org/2000/svg}"
PRIMARY = "local:minilm"
STACK_EMBEDDER = "openai:nomic-embed-text"
STACK = f"mine ({STACK_EMBEDDER})"
RULES = {
    "separable_in_sample": "Wrong, but separable by a score threshold.",
    "generation_not_run": "Generation never ran on this cell.",
    "no_failures": "No failures under this configuration.",
}


def _m(count: int, n: int) -> dict:
    return {"count": count, "n": n, "rate": count / n, "wilson": [0.1, 0.9]}


def _cell(probe, config, embedder, gold, correct, severity, attribution=None) -> dict:
    measures = {"gold_in_context": gold, "span_preserved": gold, "correct": correct}
    if gold is None:
        measures["gold_in_context_reason"] = "this probe has no gold span"
    return {
        "probe": probe,
        "layer": "control" if probe == "control" else "architectural",
        "config": config,
        "embedder": embedder,
        "generated": correct is not None,
        "measures": measures,
        "severity": dict(zip(("class", "branch"), severity, strict=True)),
        "attribution": attribution,
    }


def _attribution(**counts: int) -> dict:
    n = sum(counts.values())
    names = ("retrieval", "generation", "ceiling", "correct", "failed_call")
    return {name: _m(counts.get(name, 0), n) for name in names} | {"no_oracle": _m(0, n), "n": n}


def small_results() -> dict:
    """Built-in B (generated) and C (not), the user's stack `mine` (boundary only, its own
    embedder), three probes; control under C was not run."""
    builtin = {"kind": "builtin", "splitter": "recursive", "chunk_size": 1000, "overlap": 200}
    stack = {"spec": STACK_EMBEDDER}
    none = ("none", "no_failures")
    not_generated = ("undetermined", "generation_not_run")
    return {
        "schema_version": 4,
        "configs": [
            {**builtin, "name": "B", "k": 3},
            {**builtin, "name": "C", "k": 8},
            {
                "name": "mine",
                "kind": "stack",
                "chunking": "stack-mine",
                "k": 3,
                "probes": ["boundary"],
                "stack": {"embedder": stack},
            },
        ],
        "embedders": [{"spec": PRIMARY, "role": "primary"}],
        "corpus": {
            "probes": [
                {"name": "control", "layer": "control"},
                {"name": "boundary", "layer": "architectural"},
                {"name": "unanswerable", "layer": "architectural"},
            ]
        },
        "control_certification": {PRIMARY: {"certified": True, "pass_rate": 1.0}},
        "cells": [
            _cell("control", "B", PRIMARY, _m(5, 5), _m(5, 5), none, _attribution(correct=5)),
            _cell(
                "boundary",
                "B",
                PRIMARY,
                _m(3, 5),
                _m(2, 5),
                ("medium", "separable_in_sample"),
                _attribution(retrieval=2, generation=1, correct=2),
            ),
            _cell("boundary", "C", PRIMARY, _m(4, 5), None, not_generated),
            _cell(
                "unanswerable",
                "B",
                PRIMARY,
                None,
                _m(4, 5),
                ("low", "loud_failures"),
                _attribution(generation=1, correct=4),
            ),
            _cell("unanswerable", "C", PRIMARY, None, None, not_generated),
            _cell("boundary", "mine", STACK_EMBEDDER, _m(1, 5), None, not_generated),
        ],
        "severity_rules": [{"class": "x", "branch": b, "text": t} for b, t in RULES.items()],
    }


def _parse(markup: str | None) -> ET.Element:
    assert markup is not None
    return ET.fromstring(markup)


def _text(element: ET.Element) -> str:
    return " ".join(t.text or "" for t in element.iter(f"{SVG}text"))


def _cells(root: ET.Element) -> dict[tuple[str, str], ET.Element]:
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "cell"]
    found = {(g.get("data-probe"), g.get("data-column")): g for g in groups}
    assert len(found) == len(groups)
    return found


def test_the_retrieval_heatmap_has_a_cell_per_probe_and_column_with_its_label():
    cells = _cells(_parse(svg.measure_grid(small_results(), PRIMARY, "gold_in_context")))
    assert {k: _text(g) for k, g in cells.items()} == {
        ("control", "B"): "100% 5/5",
        ("control", "C"): "not run",
        ("control", STACK): "not run",
        ("boundary", "B"): "60% 3/5",
        ("boundary", "C"): "80% 4/5",
        ("boundary", STACK): "20% 1/5",
        # retrieval ran on the unanswerable questions; there was no gold to find
        ("unanswerable", "B"): "n/a: no gold to retrieve",
        ("unanswerable", "C"): "n/a: no gold to retrieve",
        ("unanswerable", STACK): "not run",
    }


def test_the_heatmap_colours_are_the_inspectors_scale():
    cells = _cells(_parse(svg.measure_grid(small_results(), PRIMARY, "gold_in_context")))
    fill = {k: g.find(f"{SVG}rect").get("fill") for k, g in cells.items()}
    assert fill[("control", "B")] == "#b7e1cd"  # 100%: the scale's green
    # 60%: a fifth of the way from yellow #fce8b2 (50%) to green #b7e1cd (100%), by hand:
    # 252 - 69/5 = 238.2, 232 - 7/5 = 230.6, 178 + 27/5 = 183.4 -> ee e7 b7
    assert fill[("boundary", "B")] == "#eee7b7"
    assert fill[("unanswerable", "B")] == fill[("control", "C")] == "#f3f3f3"


def test_a_hover_names_the_cell_its_interval_and_why_a_cell_is_empty():
    cells = _cells(_parse(svg.measure_grid(small_results(), PRIMARY, "gold_in_context")))
    hover = {k: g.find(f"{SVG}title").text for k, g in cells.items()}
    assert hover[("boundary", "B")] == "boundary × B: 60% 3/5 [10–90%]"
    assert hover[("control", STACK)] == f"control × {STACK}: not run (mine runs only boundary)"


def test_the_answers_heatmap_reads_not_run_where_generation_did_not_run():
    cells = _cells(_parse(svg.measure_grid(small_results(), PRIMARY, "correct")))
    assert _text(cells[("boundary", "B")]) == "40% 2/5"
    assert _text(cells[("unanswerable", "B")]) == "80% 4/5"
    assert _text(cells[("boundary", "C")]) == "not run"
    assert _text(cells[("boundary", STACK)]) == "not run"
    assert len(cells) == 9


def test_the_severity_grid_prints_class_and_branch_and_hovers_the_rule():
    cells = _cells(_parse(svg.severity_grid(small_results(), PRIMARY)))
    assert len(cells) == 9
    assert _text(cells[("boundary", "B")]) == "medium separable_in_sample"
    assert _text(cells[("control", "C")]) == "not run"
    assert cells[("boundary", "C")].find(f"{SVG}title").text == (
        "boundary × C: undetermined (generation_not_run): Generation never ran on this cell."
    )
    fills = {k: g.find(f"{SVG}rect").get("fill") for k, g in cells.items()}
    assert fills[("control", "B")] != fills[("boundary", "B")] != fills[("boundary", "C")]


def test_the_attribution_bars_split_each_cell_by_its_counts():
    root = _parse(svg.attribution_bars(small_results(), PRIMARY))
    bars = [g for g in root.iter(f"{SVG}g") if g.get("class") == "bar"]
    assert [(g.get("data-probe"), g.get("data-column")) for g in bars] == [
        ("control", "B"),
        ("boundary", "B"),
        ("unanswerable", "B"),
    ]
    boundary = bars[1]
    assert _text(boundary) == (
        "boundary × B retrieval 40% 2/5 · generation 20% 1/5 · correct 40% 2/5"
    )
    segments = {
        g.get("data-attribution"): float(g.find(f"{SVG}rect").get("width"))
        for g in boundary.iter(f"{SVG}g")
        if g.get("class") == "segment"
    }
    # 2/5, 1/5 and 2/5 of the 360-pixel bar; nothing drawn for ceiling or failed calls
    assert segments == {"retrieval": 144.0, "generation": 72.0, "correct": 144.0}


def test_a_file_without_attribution_draws_no_bars():
    results = small_results()
    for cell in results["cells"]:
        cell["attribution"] = None
    assert svg.attribution_bars(results, PRIMARY) is None


@pytest.fixture(scope="module")
def report():
    results = copy.deepcopy(analysed_results())
    boundary = next(c for c in results["cells"] if c["generated"] and c["probe"] == "boundary")
    boundary["attribution"] = _attribution(retrieval=3, ceiling=4, correct=3)
    return results, render_html(results), render_markdown(results)


def test_the_html_report_carries_the_pictures_inline_and_offline(report):
    results, page, markdown = report
    figures = re.findall(r"<figure>(<svg.*?</svg>)<figcaption>(.*?)</figcaption>", page)
    captions = [caption.split(",")[0] for _, caption in figures]
    # retrieval and answers for both embedders, severity for both, attribution where recorded
    assert captions == ["Gold in context"] * 2 + ["Correct answers"] * 2 + ["Severity"] * 2 + [
        "Failure attribution"
    ]
    for markup, _ in figures:
        ET.fromstring(markup)  # well-formed on its own
    assert "<script" not in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "<svg" not in markdown  # the Markdown report leaves the pictures out
    bar = _text(ET.fromstring(figures[-1][0]))
    assert "boundary × B retrieval 30% 3/10 · ceiling 40% 4/10 · correct 30% 3/10" in bar
