"""The user's stack on the inspector's read side: its column beside the built-in configs
under its own embedder, its approximate spans drawn and labelled, the Lab refusing it.
Results built by hand in the contract's shape (tests/helpers/stack_results.py)."""

from __future__ import annotations

import json

import pytest
from helpers.stack_results import (
    DOC,
    PRIMARY,
    STACK_CHUNKING,
    STACK_CONFIG,
    STACK_EMBEDDER,
    stack_results,
)
from helpers.ui_fixtures import chart_specs, open_app, texts

from ragaudit.results import view
from ragaudit.ui.docview import chunk_boxes
from ragaudit.ui.lab_engine import stack_refusal

STACK_LABEL = f"mine ({STACK_EMBEDDER})"


@pytest.fixture
def results_file(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(stack_results()))
    return path


def test_a_stack_config_names_its_own_chunking():
    assert view.chunking_of(STACK_CONFIG) == STACK_CHUNKING
    builtin = stack_results()["configs"][0]
    assert view.chunking_of(builtin) == "recursive-1000-200-carry_tail"


def test_the_stack_is_a_column_beside_the_configs_under_its_own_embedder():
    results = stack_results()
    columns = view.matrix_columns(results, PRIMARY)
    assert [c.label for c in columns] == ["B", "C", STACK_LABEL]
    assert [(c.config, c.embedder) for c in columns][-1] == ("mine", STACK_EMBEDDER)
    probes = view.column_probes(results, columns)
    cells = view.column_cells(results, probes, columns)
    assert cells[("boundary", STACK_LABEL)]["measures"]["gold_in_context"]["count"] == 4
    assert cells[("control", STACK_LABEL)] is None  # the stack runs only boundary
    # its own embedder ran no built-in config: its table would be the stack alone
    assert [c.label for c in view.matrix_columns(results, STACK_EMBEDDER)] == [STACK_LABEL]
    assert view.table_embedders(results) == [PRIMARY]


def test_a_file_without_a_stack_keeps_its_columns():
    results = stack_results(with_stack=False)
    assert [c.label for c in view.matrix_columns(results, PRIMARY)] == ["B", "C"]
    assert view.approximate_spans(results, STACK_CONFIG) is None


def test_the_heatmap_draws_the_stack_column_with_its_own_cells(results_file):
    at = open_app()
    assert not at.exception
    (spec,) = chart_specs(at)
    overlay = spec["data"][1]
    cells = {
        (y, x): (text, hover)
        for x, y, text, hover in zip(
            overlay["x"], overlay["y"], overlay["text"], overlay["hovertext"], strict=True
        )
    }
    assert cells[("boundary", STACK_LABEL)][0] == "80%<br>4/5"  # 4/5, by hand
    assert cells[("boundary", "B")][0] == "40%<br>2/5"
    assert cells[("control", STACK_LABEL)][1] == (
        f"control × {STACK_LABEL}: not run ({STACK_LABEL} runs only boundary)"
    )
    # the primary is certified; the stack's own embedder ran no controls, and the page says so
    assert f"{STACK_LABEL}: No controls are recorded under {STACK_EMBEDDER}" in texts(at)


def test_the_instance_page_opens_the_stack_cell_under_its_embedder(results_file):
    at = open_app(
        results_file,
        page="pages/instance.py",
        probe="boundary",
        config="mine",
        embedder=PRIMARY,
        instance="boundary-000",
    )
    assert not at.exception
    page = texts(at)
    assert f"**boundary × mine** under `{STACK_EMBEDDER}`" in page
    # one of the document's two drawn chunks is the rewritten one: 1/2 = 50%
    assert "approximate span: 50% 1/2 chunks drawn" in page
    labels = [e.label for e in at.expander]
    assert any("approximate span" in label and STACK_CHUNKING in label for label in labels)
    flips = at.dataframe[-1].value
    assert list(flips["config"]) == ["B", "C", f"{STACK_LABEL} (this)"]
    assert list(flips["flip"]) == ["flip", "", ""]  # B missed the gold the stack found


def test_a_rewritten_stack_chunk_is_drawn_as_an_approximate_span():
    results = stack_results()
    boxes = chunk_boxes(results, DOC, STACK_CHUNKING, [])
    assert [b.approximate for b in boxes] == [True, False]
    assert not any(
        b.approximate for b in chunk_boxes(results, DOC, "recursive-1000-200-carry_tail", [])
    )


def test_the_lab_refuses_a_stack_in_one_line(results_file):
    results = stack_results()
    refusal = stack_refusal(results, STACK_EMBEDDER)
    assert refusal is not None and "\n" not in refusal
    assert "stack config mine" in refusal and "ragaudit's chunkers only" in refusal
    assert stack_refusal(results, PRIMARY) is None
    at = open_app(results_file, page="pages/lab.py", embedder=STACK_EMBEDDER)
    assert not at.exception
    assert [e.value for e in at.error] == [refusal]
