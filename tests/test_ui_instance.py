"""The Instance page: a cell's instances, one instance explained, chunk edges over the gold span."""

from __future__ import annotations

import json

import pytest
from helpers.ui_fixtures import build_results, chart_specs, open_app, texts, write_results

from ragaudit.ui.docview import ChunkBox, highlighted_html


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
    boxes = [ChunkBox("c#0", 0, 0, 30, 1), ChunkBox(None, 1, 30, 48, None)]
    html = highlighted_html(text, boxes, [gold])
    # the edge between chunk 0 and 1 (char 30) falls inside the highlighted gold span
    assert html.index("background:#f9d648") < html.index("⟩0") < html.index("⟨1")


def _write(path, results: dict):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results))
    return path


def _chunk_bars(at, chunking: str) -> list[tuple[int, int]]:
    """(start, end) of each chunk bar in the timeline drawn under `chunking`."""
    (timeline,) = [s for s in chart_specs(at) if chunking in str(s["layout"].get("title"))]
    bars = [t for t in timeline["data"] if str(t["y"][0]).startswith("chunks")]
    return [(t["base"][0], t["base"][0] + t["x"][0]) for t in bars]


def test_the_timeline_draws_the_chunk_offsets_the_run_recorded(ragaudit_home, monkeypatch):
    # Offsets set by hand in the file: the page draws those, not a chunking of its own.
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    results = build_results(n=5)
    results["chunk_offsets"]["fixed-1000-0"]["boundary-001"] = [[0, 400], [300, 900]]
    path = _write(ragaudit_home / "results" / "latest.json", results)
    at = open_app(path, page="pages/instance.py", probe="boundary", config="A",
                  instance="boundary-001")  # fmt: skip
    assert not at.exception
    assert _chunk_bars(at, "fixed-1000-0") == [(0, 400), (300, 900)]
    assert "Document `boundary-001` under `fixed-1000-0`**: 2 chunks drawn" in "\n".join(
        m.value for m in at.markdown
    )


def test_a_file_without_chunk_offsets_says_so_and_draws_no_boundaries(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    results = build_results(n=5)
    del results["chunk_offsets"]
    path = _write(ragaudit_home / "results" / "latest.json", results)
    at = open_app(path, page="pages/instance.py", probe="boundary", config="A",
                  instance="boundary-001")  # fmt: skip
    assert not at.exception
    page = texts(at)
    assert (
        "This results file records no chunk offsets for boundary-001 under fixed-1000-0 "
        "(chunk_offsets), so its chunk boundaries are not drawn." in page
    )
    assert _chunk_bars(at, "fixed-1000-0") == []
    # the recorded verdict is still given
    assert "the gold span is cut by a chunk boundary (span_preserved: false)" in page


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
    # The file keeps only retrieved chunks and the corpus on disk does not hold these
    # documents: the page pieces the text, draws the recorded offsets, and gives the
    # recorded verdict.
    results = build_results(n=5)
    record = next(
        r
        for r in results["instances"]
        if (r["probe"], r["config"], r["embedder"]) == ("boundary", "C", "local:minilm")
        and r["span_preserved"]
    )
    kept = {h["chunk_id"] for r in results["instances"] for h in r["retrieved"]}
    results["chunks"] = {cid: c for cid, c in results["chunks"].items() if cid in kept}
    path = _write(ragaudit_home / "results" / "latest.json", results)
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    at = open_app(path, page="pages/instance.py", probe="boundary", config="C",
                  instance=record["instance_id"])  # fmt: skip
    page = texts(at)
    assert "no gold span is cut (span_preserved: true)" in page
    assert "the gold span is cut" not in page
    offsets = results["chunk_offsets"]["recursive-1000-200-carry_tail"][record["instance_id"]]
    assert _chunk_bars(at, "recursive-1000-200-carry_tail") == [tuple(pair) for pair in offsets]
