"""Oracle context and failure attribution: the oracle context is exactly the gold-holding
chunks, one prompt per distinct oracle context (replayed by the call cache), each failure
attributed to retrieval, generation or the generator's ceiling, and the report and
inspector text read from the results file ("not measured in this file" where it predates
them)."""

from __future__ import annotations

import copy
import json

import pytest
from helpers.ui_fixtures import build_results, open_app, texts

from ragaudit.analysis import analyse
from ragaudit.analysis.attribution import attribute
from ragaudit.backends.cache import CallCache
from ragaudit.backends.cached import CachedGenerator
from ragaudit.grading.grade import grade_records
from ragaudit.report.attribution import attribution_section
from ragaudit.report.document import render_markdown
from ragaudit.results.format import fmt_attribution
from ragaudit.results.schema import ATTRIBUTIONS
from ragaudit.runner.generate import failed_calls, generate_records
from ragaudit.stack.chunking import Chunk
from ragaudit.stack.oracle import chunk_id_index, oracle_chunk_ids, oracle_chunk_ids_of
from ragaudit.ui.attribution import attribution_rows, attribution_words, oracle_lines

CHUNKING = "recursive-1000-200-carry_tail"
GOLD = "Current policy for site EB-4: inspect every 38 days."


class CountingEngine:
    """A generation engine that answers from its context: the value when the context holds
    the gold sentence, else NOT_IN_CONTEXT. Counts its calls; `fail_single` makes every
    one-chunk prompt (an oracle context here) fail."""

    backend, name, digest, digest_reason = "test", "counting", "sha256:" + "0" * 64, None

    def __init__(self, fail_single: bool = False) -> None:
        self.calls: list[str] = []
        self.fail_single = fail_single

    def effective_params(self, params: dict) -> dict:
        return dict(params)

    def chat(self, messages: list[dict], params: dict) -> str:
        user = messages[-1]["content"]
        self.calls.append(user)
        if self.fail_single and "[c2]" not in user:
            raise RuntimeError("engine down")
        return "38 days [c1]" if GOLD in user else "NOT_IN_CONTEXT"


def _chunks_map() -> dict:
    """Doc `sup` has 3 chunks under CHUNKING (the gold is chunk 1), doc `fill` 2."""
    texts = {
        ("sup", 0): (0, 60, "Site EB-4 history. Old policy: inspect every 28 days here."),
        ("sup", 1): (40, 100, GOLD),
        ("sup", 2): (100, 150, "Other notes."),
        ("fill", 0): (0, 40, "The canteen rota changes every Monday."),
        ("fill", 1): (40, 80, "Site EB-9 is audited every 14 days."),
    }
    return {
        f"{CHUNKING}/{doc}#{index}": {
            "doc_id": doc,
            "chunking": CHUNKING,
            "index": index,
            "start": start,
            "end": end,
            "text": text,
        }
        for (doc, index), (start, end, text) in texts.items()
    }


OFFSETS = {
    CHUNKING: {"sup": [[0, 60], [40, 100], [100, 150]], "fill": [[0, 40], [40, 80]]},
}


def _record(config: str, retrieved: list[str], gold_in_context: bool) -> dict:
    return {
        "key": f"superseded/superseded-000/{config}/local:minilm",
        "probe": "superseded",
        "layer": "architectural",
        "instance_id": "superseded-000",
        "config": config,
        "embedder": "local:minilm",
        "chunking": CHUNKING,
        "question": "How often is site EB-4 inspected?",
        "gold_answer": "38 days",
        "gold_spans": [{"doc_id": "sup", "start": 50, "end": 95, "text": "...", "role": "gold"}],
        "grading": {"kind": "value", "accept": ["38 days"], "trap_values": ["28 days"]},
        "retrieved": [
            {"chunk_id": f"{CHUNKING}/{cid}", "rank": rank, "score": 0.5}
            for rank, cid in enumerate(retrieved, start=1)
        ],
        "retrieval_error": None,
        "gold_in_context": gold_in_context,
        "generation": None,
    }


def _b_and_c() -> list[dict]:
    # B (k=2) misses the gold chunk; C (k=3) retrieves it. Same chunking, same instance.
    return [
        _record("B", ["fill#1", "fill#0"], gold_in_context=False),
        _record("C", ["fill#1", "fill#0", "sup#1"], gold_in_context=True),
    ]


def test_the_oracle_context_is_exactly_the_chunks_holding_the_gold_spans():
    # doc d: chunks [0,100] [80,200] [200,300] [300,400] (the second carries a tail).
    # doc f: [0,100] [80,200] [150,260]; doc e: one chunk.
    offsets = {
        "c": {
            "d": [[0, 100], [80, 200], [200, 300], [300, 400]],
            "e": [[0, 50]],
            "f": [[0, 100], [80, 200], [150, 260]],
        }
    }
    chunks = {
        f"c/{doc}#{i}": {"doc_id": doc, "chunking": "c", "index": i, "text": "t"}
        for doc, count in (("d", 4), ("e", 1), ("f", 3))
        for i in range(count)
    }
    ids = chunk_id_index(chunks)

    def oracle(*spans):
        record = {"key": "k", "chunking": "c", "gold_spans": list(spans)}
        return oracle_chunk_ids(record, offsets, ids)

    def span(doc, start, end):
        return {"doc_id": doc, "start": start, "end": end}

    assert oracle(span("d", 120, 180)) == ["c/d#1"]  # whole in chunk 1 only
    # a table row (gold, chunk 3) severed from its header (chunk 0): the oracle holds both
    header = {**span("d", 10, 40), "role": "table_header"}
    table = {"key": "k", "chunking": "c", "gold_spans": [span("d", 310, 340)]}
    assert oracle_chunk_ids({**table, "extra_spans": [header]}, offsets, ids) == [
        "c/d#0",
        "c/d#3",
    ]
    other = {**span("d", 10, 40), "role": "header"}  # a section header is not evidence
    assert oracle_chunk_ids({**table, "extra_spans": [other]}, offsets, ids) == ["c/d#3"]
    assert oracle(span("d", 85, 95)) == ["c/d#0"]  # whole in 0 and 1: the first
    assert oracle(span("d", 180, 250)) == ["c/d#1", "c/d#2"]  # cut: the two that cover it
    assert oracle(span("d", 250, 350), span("d", 10, 20)) == ["c/d#0", "c/d#2", "c/d#3"]
    # cut across three overlapping chunks: the fewest that cover it, not every one it touches
    assert oracle(span("f", 90, 250)) == ["c/f#1", "c/f#2"]
    # documents in the order the gold spans name them, deduplicated
    assert oracle(span("e", 1, 5), span("d", 10, 20), span("d", 30, 40)) == ["c/e#0", "c/d#0"]
    assert oracle() == []


def test_the_retrieval_stage_keeps_every_oracle_chunk_in_the_results_chunks():
    chunk_map = _chunks_map()
    chunks = [
        Chunk(cid, c["doc_id"], c["index"], c["start"], c["end"], c["text"])
        for cid, c in chunk_map.items()
    ]
    assert oracle_chunk_ids_of(_b_and_c(), {CHUNKING: chunks}) == {f"{CHUNKING}/sup#1"}


def test_b_and_c_over_one_chunking_ask_one_oracle_prompt_and_a_rerun_replays_it(ragaudit_home):
    engine = CountingEngine()
    generator = CachedGenerator("test:counting", engine, CallCache())
    records = _b_and_c()
    chunks = _chunks_map()
    seen = []
    counts = generate_records(
        records,
        chunks,
        generator,
        gen_configs=["B", "C"],
        chunk_offsets=OFFSETS,
        progress=lambda done, total, replayed: seen.append((done, total)),
    )
    # two regular prompts (different contexts) + one oracle prompt shared by B and C
    assert len(engine.calls) == 3
    assert sum(1 for call in engine.calls if call.startswith(f"Context:\n[c1] {GOLD}\n\n")) == 1
    assert counts["prompts"] == 3 and counts["oracle_prompts"] == 1
    assert counts["oracle_records"] == 2 and counts["computed"] == 3
    assert seen[-1] == (3, 3)
    b, c = records
    assert b["oracle"]["chunk_ids"] == c["oracle"]["chunk_ids"] == [f"{CHUNKING}/sup#1"]
    assert b["oracle"]["generation"]["prompt_sha256"] == c["oracle"]["generation"]["prompt_sha256"]
    assert b["oracle"]["generation"]["citations"] == [f"{CHUNKING}/sup#1"]

    again = generate_records(
        records, chunks, generator, gen_configs=["B", "C"], chunk_offsets=OFFSETS
    )
    assert len(engine.calls) == 3  # nothing computed on the rerun
    assert again["replayed"] == 3 and again["computed"] == 0
    assert b["oracle"]["generation"]["replayed"] is True

    grade_records(records, chunks)
    assert b["grade"]["verdict"] == "abstained" and b["oracle"]["grade"]["correct"] is True
    results = {"configs": [{"name": "B"}, {"name": "C"}], "instances": records}
    analyse(results)
    assert [r["attribution"] for r in records] == ["retrieval", "correct"]
    cell_b = results["cells"][0]
    assert cell_b["attribution"]["retrieval"]["count"] == 1
    assert cell_b["attribution"]["retrieval"]["n"] == 1


def test_a_failed_oracle_call_is_kept_counted_and_named(ragaudit_home):
    generator = CachedGenerator("test:counting", CountingEngine(fail_single=True), CallCache())
    records = _b_and_c()
    counts = generate_records(
        records, _chunks_map(), generator, gen_configs=["B", "C"], chunk_offsets=OFFSETS
    )
    assert counts["failed"] == 1 and counts["prompts"] == 3
    b, c = records
    assert b["oracle"]["generation"]["status"] == "failed_call"
    grade_records(records, _chunks_map())
    assert b["oracle"]["grade"]["verdict"] == "failed_call"
    assert attribute(b) == "failed_call"  # wrong, and the oracle could not say why
    assert attribute(c) == "correct"  # right: the oracle is not needed
    (entry,) = failed_calls(records, "test:counting")
    assert entry["kind"] == "generate_oracle" and entry["instance_keys"] == [b["key"], c["key"]]


def _attributed(correct, gold_in_context, oracle_correct, *, status="ok", oracle_status="ok"):
    """A hand-built generated record; oracle_correct None means no oracle (no gold span)."""
    record = {
        "key": "k",
        "probe": "p",
        "config": "B",
        "embedder": "e",
        "gold_in_context": gold_in_context,
        "generation": {"status": status},
        "grade": {"correct": correct},
        "oracle": None,
    }
    if oracle_correct is not None:
        record["oracle"] = {
            "chunk_ids": ["x"],
            "generation": {"status": oracle_status},
            "grade": {"correct": oracle_correct},
        }
    return record


def test_each_of_the_five_outcomes_is_attributed_by_the_documented_precedence():
    assert attribute(_attributed(True, False, False)) == "correct"
    assert attribute(_attributed(False, False, True)) == "retrieval"
    assert attribute(_attributed(False, True, True)) == "generation"
    assert attribute(_attributed(False, True, False)) == "ceiling"
    assert attribute(_attributed(False, False, False)) == "ceiling"
    assert attribute(_attributed(False, True, True, status="failed_call")) == "failed_call"
    assert attribute(_attributed(False, False, True, oracle_status="failed_call")) == "failed_call"
    # no gold span: correct or generation, never a ceiling
    assert attribute(_attributed(True, None, None)) == "correct"
    assert attribute(_attributed(False, None, None)) == "generation"
    # not generated, or a file from before oracle contexts: no attribution
    assert attribute({"generation": None, "oracle": None}) is None
    old = _attributed(False, True, True)
    del old["oracle"]
    assert attribute(old) is None


def _fragment() -> dict:
    """A hand-built results fragment: one generated cell of 5 (2 retrieval, 1 generation,
    1 ceiling, 1 correct), one generated cell from an older file, one retrieval-only cell."""
    outcomes = [
        (False, False, True),
        (False, False, True),
        (False, True, True),
        (False, True, False),
        (True, True, None),
    ]
    records = []
    for i, (correct, gic, oracle_correct) in enumerate(outcomes):
        record = _attributed(correct, gic, oracle_correct if oracle_correct is not None else True)
        record.update(key=f"p/p-{i}/B/e", instance_id=f"p-{i}", grade={"correct": correct})
        records.append(record)
    old = [copy.deepcopy(r) | {"config": "C", "key": f"p/p-{i}/C/e"} for i, r in enumerate(records)]
    for record in old:
        del record["oracle"]
    plain = [
        {"key": f"p/p-{i}/A/e", "probe": "p", "config": "A", "embedder": "e"} for i in range(5)
    ]
    results = {
        "configs": [{"name": "A"}, {"name": "B"}, {"name": "C"}],
        "embedders": [{"spec": "e", "role": "primary", "probes": ["p"]}],
        "instances": records + old + plain,
    }
    analyse(results)
    return results


def test_the_report_shows_each_generated_cells_counts_over_n():
    results = _fragment()
    cells = {c["config"]: c for c in results["cells"]}
    assert fmt_attribution(cells["B"]) == (
        "retrieval 40% 2/5, generation 20% 1/5, ceiling 20% 1/5, correct 20% 1/5, "
        "failed_call 0% 0/5"
    )
    assert fmt_attribution(cells["C"]) == "not measured in this file"
    assert fmt_attribution(cells["A"]) == "not run"
    table = next(b for b in attribution_section(results) if b[0] == "table")
    assert table[2] == [
        ["p", "B", "e", "40% 2/5", "20% 1/5", "20% 1/5", "20% 1/5", "0% 0/5", "0% 0/5"]
    ]
    markdown = render_markdown(results)
    assert "Attribution not measured in this file for: p/C." in markdown
    assert cells["B"]["severity"] == _fragment_without_oracle_severity()


def _fragment_without_oracle_severity() -> dict:
    # the same cell with no oracle recorded at all: attribution must not move its class
    results = _fragment()
    for record in results["instances"]:
        record.pop("oracle", None)
    analyse(results)
    return next(c for c in results["cells"] if c["config"] == "B")["severity"]


def test_a_file_without_oracle_fields_reads_not_measured():
    results = _fragment()
    for record in results["instances"]:
        record.pop("oracle", None)
        record.pop("attribution", None)
    for cell in results["cells"]:
        cell.pop("attribution", None)
    blocks = attribution_section(results)
    assert ("p", "Attribution: not measured in this file (it predates oracle contexts).") in blocks
    record = results["instances"][0]
    assert oracle_lines(record) == ["**Oracle context**: not measured in this file."]
    assert attribution_words(record) == "not measured in this file."
    assert attribution_rows(results, "e") == []
    assert "not measured in this file" in render_markdown(results)


@pytest.mark.parametrize(
    ("outcome", "words"),
    [
        ((False, False, True), "a retrieval failure"),
        ((False, True, True), "a generation failure: the gold was in the retrieved context"),
        ((False, True, False), "the generator's ceiling"),
        ((True, True, True), "correct: the answer is right."),
    ],
)
def test_the_instance_page_says_the_attribution_in_words(outcome, words):
    record = _attributed(*outcome)
    record["attribution"] = attribute(record)
    record["oracle"]["chunk_ids"] = ["r/sup#1", "r/sup#2"]
    record["oracle"]["grade"] = {"verdict": "wrong", "correct": False, "branch": "value:other"}
    assert attribution_words(record).startswith(words)
    lines = oracle_lines(record)
    assert lines[0] == (
        "**Oracle context** (only the chunks holding the gold spans and a table row's header): "
        "`r/sup#1`, `r/sup#2`"
    )
    assert lines[1] == "**Oracle verdict** `wrong` (correct: False) · branch `value:other`"


def test_an_unanswerable_instance_has_no_oracle_and_no_ceiling():
    record = _attributed(False, None, None)
    record["attribution"] = attribute(record)
    assert oracle_lines(record) == ["**Oracle context**: none, it has no gold span."]
    assert "no ceiling is measured" in attribution_words(record)


def test_the_inspector_shows_the_oracle_and_the_cells_attribution(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    results = build_results(n=5)
    (record,) = [
        r
        for r in results["instances"]
        if (r["probe"], r["instance_id"], r["config"], r["embedder"])
        == ("distractor", "distractor-001", "B", "local:minilm")
    ]
    assert record["generation"], "the fixture generates superseded at B"
    record["oracle"] = {
        "chunk_ids": ["recursive-1000-200/sup-oracle#0"],
        "generation": {"status": "ok", "reply": "every 38 days [c1]", "citations": []},
        "grade": {"verdict": "correct", "correct": True, "branch": "value:accepted"},
    }
    record["grade"] = {"verdict": "wrong", "correct": False, "branch": "value:other"}
    record["gold_in_context"] = True
    record["attribution"] = "generation"
    cells = {(c["probe"], c["config"], c["embedder"]): c for c in results["cells"]}
    attribution = {name: {"count": 0, "n": 5, "rate": 0.0} for name in ATTRIBUTIONS}
    attribution |= {"ceiling": {"count": 2, "n": 5, "rate": 0.4}, "n": 5}
    cells[("distractor", "B", "local:minilm")]["attribution"] = attribution
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, allow_nan=False))
    page_args = {"probe": "distractor", "config": "B", "embedder": "local:minilm"}
    at = open_app(path, page="pages/instance.py", instance="distractor-001", **page_args)
    shown = texts(at)
    assert "`recursive-1000-200/sup-oracle#0`" in shown
    assert "every 38 days [c1]" in shown
    assert "**Oracle verdict** `correct`" in shown
    assert "a generation failure: the gold was in the retrieved context" in shown
    other = open_app(path, page="pages/instance.py", instance="distractor-002", **page_args)
    assert "**Oracle context**: not measured in this file." in texts(other)
    matrix = open_app(path, page="pages/matrix.py")
    matrix.selectbox(key="matrix_open_probe").select("distractor").run()
    matrix.selectbox(key="matrix_open_config").select("B").run()
    assert "Failure attribution, distractor × B**: retrieval 0% 0/5" in texts(matrix)
    assert "ceiling 40% 2/5" in texts(matrix)
