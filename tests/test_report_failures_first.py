"""What failed, first: the ranked summary built from a hand-made results file, its one-line
why read from the recorded diagnostics, and where it stands (report, `ragaudit report`)."""

from __future__ import annotations

import copy
import json
import re

from helpers.analysis_fixtures import analysed_results

from ragaudit.cli.main import main as cli_main
from ragaudit.report.document import render_html, render_markdown
from ragaudit.report.failures_first import failed_cells, failures_first_text
from ragaudit.report.render import heading_anchor


def _measure(count: int, n: int, wilson: list[float]) -> dict:
    return {"count": count, "n": n, "rate": count / n, "wilson": wilson}


def _cell(probe, config, severity, failures, basis, wilson, generated=True, attribution=None):
    success = "correct" if basis == "answer" else "gold_in_context"
    return {
        "probe": probe,
        "layer": "architectural",
        "config": config,
        "embedder": "local:minilm",
        "n": 4,
        "generated": generated,
        "failure_basis": basis,
        "failures": failures,
        "successes": 4 - failures,
        "measures": {success: _measure(4 - failures, 4, wilson)},
        "severity": {"class": severity, "branch": "hand-made"},
        "attribution": attribution,
        "detectability": {},
    }


def _record(probe, config, i, **fields):
    base = {
        "probe": probe,
        "instance_id": f"{probe}-{i:03d}",
        "config": config,
        "embedder": "local:minilm",
        "k": 3,
        "gold_spans": [{"doc_id": f"{probe}-{i:03d}", "start": 0, "end": 421, "role": "gold"}],
        "trap_spans": [],
        "extra_spans": [],
        "gold_in_context": True,
        "span_preserved": True,
        "gold_rank": 1,
        "trap_rank": None,
        "grade": None,
        "attribution": None,
    }
    return {**base, **fields}


def hand_made() -> dict:
    """Five cells: boundary cut in 4/4 (undetermined, retrieval only); distractor 3/4 and
    negation 2/4 (both critical); superseded 1/4 (high); control 0/4 (none, left out)."""
    attribution = {
        "n": 4,
        "retrieval": _measure(0, 4, [0, 0.49]),
        "generation": _measure(3, 4, [0.3, 0.95]),
        "ceiling": _measure(0, 4, [0, 0.49]),
        "correct": _measure(1, 4, [0.05, 0.7]),
        "failed_call": _measure(0, 4, [0, 0.49]),
    }
    cells = [
        _cell("control", "A", "none", 0, "answer", [0.51, 1.0]),
        _cell("boundary", "A", "undetermined", 4, "gold_in_context", [0.0, 0.49], False),
        _cell("negation", "B", "critical", 2, "answer", [0.15, 0.85]),
        _cell("superseded", "B", "high", 1, "answer", [0.3, 0.95]),
        _cell("distractor", "B", "critical", 3, "answer", [0.05, 0.7], True, attribution),
    ]
    cut = {"span_preserved": False, "gold_in_context": False, "gold_rank": None}
    trap = {
        "trap_spans": [{"doc_id": "d", "start": 0, "end": 9, "role": "trap"}],
        "trap_rank": 1,
        "gold_rank": 2,
        "grade": {"verdict": "trap_taken", "correct": False, "branch": "trap_match:41"},
    }
    right = {"grade": {"verdict": "correct", "correct": True, "branch": "value_match:41"}}
    instances = [_record("boundary", "A", i, **cut) for i in range(4)]
    instances += [_record("distractor", "B", i, **(trap if i < 3 else right)) for i in range(4)]
    instances += [_record("negation", "B", i, **(trap if i < 2 else right)) for i in range(4)]
    instances += [_record("superseded", "B", i, **(trap if i < 1 else right)) for i in range(4)]
    instances += [_record("control", "A", i, **right) for i in range(4)]
    return {
        "configs": [
            {"name": "A", "splitter": "fixed", "chunk_size": 1000, "overlap": 0, "k": 3},
            {"name": "B", "splitter": "recursive", "chunk_size": 1000, "overlap": 200, "k": 3},
        ],
        "embedders": [{"spec": "local:minilm"}],
        "control_certification": {"local:minilm": {"certified": True}},
        "analysis": {"wilson_confidence": 0.95},
        "cells": cells,
        "instances": instances,
    }


def test_ranked_by_class_then_by_the_failure_rates_lower_bound():
    entries = failed_cells(hand_made())
    # critical before high before undetermined; among the critical, distractor's failure
    # rate's lower bound is 1 - 0.7 = 0.30 against negation's 1 - 0.85 = 0.15
    assert [(e.probe, e.severity) for e in entries] == [
        ("distractor", "critical"),
        ("negation", "critical"),
        ("superseded", "high"),
        ("boundary", "undetermined"),
    ]
    distractor = entries[0]
    assert distractor.cell == "distractor × B × local:minilm"
    assert distractor.failed == "75% 3/4 [30–95%] failed"
    assert distractor.attribution == "generation 75% 3/4"
    assert distractor.why == (
        "the trap ranked above the gold in 3 of 3; the reply gave the trap's value in 3 of 3"
    )
    boundary = entries[-1]
    assert (
        boundary.why == "the 421-character gold span is cut by the fixed 1000/0 boundary in 4 of 4"
    )
    assert boundary.attribution == "retrieval (gold not in context; generation not run)"
    assert boundary.section == "Gold in context, local:minilm"


def _why(results: dict, probe: str) -> str:
    return next(e.why for e in failed_cells(results) if e.probe == probe)


def test_changing_one_recorded_diagnostic_changes_the_sentence():
    results = hand_made()
    before = _why(results, "boundary")
    changed = copy.deepcopy(results)
    record = next(r for r in changed["instances"] if r["probe"] == "boundary")
    record["span_preserved"] = True  # the boundary no longer cuts this one's span
    assert _why(changed, "boundary") == (
        "the 421-character gold span is cut by the fixed 1000/0 boundary in 3 of 4"
    )
    longer = copy.deepcopy(results)
    next(r for r in longer["instances"] if r["probe"] == "boundary")["gold_spans"][0]["end"] = 500
    assert _why(longer, "boundary") == (
        "the 421–500-character gold span is cut by the fixed 1000/0 boundary in 4 of 4"
    )
    resized = copy.deepcopy(results)
    resized["configs"][0]["chunk_size"] = 512
    assert "the fixed 512/0 boundary" in _why(resized, "boundary")
    assert before != _why(changed, "boundary")


def test_the_same_probe_gets_another_sentence_from_other_diagnostics():
    # no sentence belongs to a probe: boundary records whose spans are whole but whose gold
    # ranked 7th say so instead
    results = hand_made()
    for record in results["instances"]:
        if record["probe"] == "boundary":
            record.update(span_preserved=True, gold_rank=7)
    assert _why(results, "boundary") == "the gold was not in the top 3 (median rank 7) in 4 of 4"


def test_the_report_opens_with_it_and_links_each_entry_to_its_table():
    results = analysed_results()
    markdown = render_markdown(results)
    assert markdown.startswith("# ragaudit report\n\n## What failed\n")
    assert markdown.index("## What failed") < markdown.index("## Conditions")
    links = re.findall(r"\]\(#([\w-]+)\)", markdown.split("## The run")[0])
    assert links
    headings = {heading_anchor(h) for h in re.findall(r"^#+ (.+)$", markdown, re.MULTILINE)}
    assert set(links) <= headings
    page = render_html(results)
    assert page.index('id="what-failed"') < page.index('id="conditions"')
    for anchor in set(links):
        assert f'href="#{anchor}"' in page and f'id="{anchor}"' in page


def test_ragaudit_report_prints_it_first(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(analysed_results()))
    assert cli_main(["report", "--results", str(path), "--format", "md"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(failures_first_text(analysed_results()))
    assert out.index("What failed") < out.index("| Probe | Layer |")
