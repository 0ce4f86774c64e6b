"""The Instance page: a cell's instances, one instance explained, chunk edges over the gold span."""

from __future__ import annotations

import json

import pytest
from ui_fixtures import build_results, chart_specs, open_app, texts, write_results

from ragaudit.ui.docview import ChunkBox, highlighted_html, span_cut


@pytest.fixture
def results_file(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    return write_results(ragaudit_home / "results" / "latest.json", n=5)


def _record(probe: str, instance: str, config: str, embedder: str = "local:minilm") -> dict:
    (record,) = [
        r
        for r in build_results(n=5)["instances"]
        if (r["probe"], r["instance_id"], r["config"], r["embedder"])
        == (probe, instance, config, embedder)
    ]
    return record


def test_deep_link_opens_one_instance_with_question_gold_and_trap(results_file):
    at = open_app(
        results_file,
        page="pages/instance.py",
        probe="boundary",
        config="B",
        embedder="local:minilm",
        instance="boundary-003",
    )
    assert not at.exception
    record = _record("boundary", "boundary-003", "B")
    page = texts(at)
    assert record["question"] in page
    assert record["gold_spans"][0]["text"] in page
    assert record["trap_spans"][0]["text"] in page
    assert at.selectbox(key="instance_instance").value == "boundary-003"
    assert at.query_params["instance"] == "boundary-003"


def test_a_cut_gold_span_is_called_out_under_fixed_and_not_under_recursive(results_file):
    at = open_app(
        results_file,
        page="pages/instance.py",
        probe="boundary",
        config="A",
        instance="boundary-001",
    )
    assert "the gold span is cut by a chunk boundary" in texts(at)
    timeline = [s for s in chart_specs(at) if "fixed-1000-0" in str(s["layout"].get("title"))]
    assert timeline, "the document timeline is drawn under the config's chunking"
    at.selectbox(key="instance_config").select("A_prime").run()
    assert "no gold span is cut" in texts(at)
    assert at.query_params["config"] == "A_prime"


def test_retrieved_chunks_in_rank_order_marking_gold(results_file):
    record = _record("boundary", "boundary-002", "C")
    at = open_app(
        results_file,
        page="pages/instance.py",
        probe="boundary",
        config="C",
        instance="boundary-002",
    )
    labels = [e.label for e in at.expander if e.label.startswith("rank ")]
    assert [label.split(" · ")[0] for label in labels] == [
        f"rank {h['rank']}" for h in record["retrieved"]
    ]
    gold_rank = record["gold_rank"]
    assert gold_rank is not None
    assert "holds gold" in labels[gold_rank - 1]


def test_reply_verdict_branch_and_citation_check_are_shown(results_file):
    record = _record("distractor", "distractor-000", "B")
    at = open_app(
        results_file,
        page="pages/instance.py",
        probe="distractor",
        config="B",
        instance="distractor-000",
    )
    page = texts(at)
    assert (record["generation"]["reply"] or "(empty reply)") in page
    assert record["grade"]["branch"] in page
    assert record["citation_check"]["outcome"] in page
    at.selectbox(key="instance_config").select("D").run()
    assert "Generation did not run for this record." in texts(at)


def test_flips_table_lists_every_config(results_file):
    at = open_app(
        results_file,
        page="pages/instance.py",
        probe="boundary",
        config="A",
        instance="boundary-000",
    )
    flips = at.dataframe[-1].value
    assert list(flips["config"]) == ["A (this)", "A_prime", "B", "C", "C_prime", "D", "M"]
    # boundary-000 is cut under A and whole under recursive: every gained config is a flip
    assert (flips["flip"] == "flip").sum() >= 1


def test_secondary_embedder_offers_only_its_probes(results_file):
    at = open_app(
        results_file,
        page="pages/instance.py",
        embedder="local:e5-small",
        probe="paraphrase",
        config="A",
    )
    assert not at.exception
    assert at.selectbox(key="instance_probe").options == ["paraphrase", "negation"]


def test_highlighting_marks_chunk_edges_inside_a_cut_span():
    text = "Header line\n\nfiller. The gold sentence is here."
    gold = {"doc_id": "d", "start": 22, "end": 48, "text": text[22:48], "role": "gold"}
    boxes = [ChunkBox("c#0", 0, 0, 30, 1), ChunkBox("c#1", 1, 30, 48, None)]
    html = highlighted_html(text, boxes, [gold])
    assert span_cut(gold, boxes)
    # the edge between chunk 0 and 1 falls inside the highlighted gold span
    assert html.index("⟩0") > html.index("background:#f9d648")
    assert not span_cut(gold, [ChunkBox("c#0", 0, 0, 48, 1)])


def test_selecting_a_row_of_the_cell_table_opens_that_instance(results_file):
    at = open_app(results_file, page="pages/instance.py", probe="boundary", config="B")
    at.session_state["instance_table"] = {"selection": {"rows": [3], "columns": []}}
    at.run()
    assert at.selectbox(key="instance_instance").value == "boundary-003"
    assert at.query_params["instance"] == "boundary-003"
    # the selection persists; choosing another instance in the selectbox still works
    at.selectbox(key="instance_instance").select("boundary-001").run()
    assert at.selectbox(key="instance_instance").value == "boundary-001"


def test_the_cut_verdict_is_the_recorded_one_even_when_the_corpus_on_disk_differs(
    ragaudit_home, monkeypatch
):
    # The file keeps only retrieved chunks and the corpus on disk no longer matches:
    # the page must not chunk a partial text and call the span cut.
    results = build_results(n=5)
    record = next(
        r
        for r in results["instances"]
        if (r["probe"], r["config"], r["embedder"]) == ("boundary", "C", "local:minilm")
        and r["span_preserved"]
    )
    kept = {h["chunk_id"] for r in results["instances"] for h in r["retrieved"]}
    results["chunks"] = {cid: c for cid, c in results["chunks"].items() if cid in kept}
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(results))
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    at = open_app(path, page="pages/instance.py", probe="boundary", config="C",
                  instance=record["instance_id"])  # fmt: skip
    page = texts(at)
    assert "no gold span is cut (span_preserved: true)" in page
    assert "the gold span is cut" not in page
