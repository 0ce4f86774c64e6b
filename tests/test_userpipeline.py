"""`pipeline: factory:` stack files end to end through `ragaudit run --stack-only`: the three
forms (plain callable, llama-index query engine, LangChain Runnable), every context located
in the corpus (normalised ones too, rewritten ones counted as matching no document), the
answers graded, attribution without and with an oracle entry, a question the pipeline
raises on counted as a failed call, the pipeline's identity in the call cache, and bad
pipelines refused with exit 2 before any call, changing no file. The pipelines are real
modules in the test's folder (tests/helpers/pipeline_modules.py), zero-delay."""

from __future__ import annotations

import gc
import hashlib
import json
import sqlite3
import uuid
from pathlib import Path

import pytest
from helpers.pipeline_modules import write_word_rag

from ragaudit.cli.main import main
from ragaudit.probes.catalogue import shipped

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus" / "documents"
PROBES = len(shipped())  # the planted corpus's probes: one record each at --n 1


def doc_text(doc_id: str) -> str:
    return (CORPUS / f"{doc_id}.txt").read_text()


def stack_file(folder: Path, body: str) -> Path:
    module = f"word_rag_{uuid.uuid4().hex[:8]}"
    write_word_rag(folder, module)
    path = folder / "pipe.yaml"
    path.write_text(body.replace("MODULE", module))
    return path


def run(home: Path, stack: Path, *extra: str) -> tuple[int, dict | None]:
    out = home / "out.json"
    code = main(["run", "--stack", str(stack), "--stack-only", "--n", "1", "--out", str(out),
                 *extra])  # fmt: skip
    written = out if out.exists() else home / "out.failed.json"
    return code, json.loads(written.read_text()) if written.exists() else None


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


PLAIN = """name: words
pipeline:
  factory: MODULE:make
  args: {k: 3, shape: SHAPE}
"""


@pytest.mark.parametrize("shape", ["plain", "llama", "langchain"])
def test_each_form_is_asked_and_its_contexts_located_exactly(home, tmp_path, shape):
    code, results = run(home, stack_file(tmp_path, PLAIN.replace("SHAPE", shape)))
    assert code == 0
    records = [r for r in results["instances"] if r["config"] == "words"]
    assert len(records) == PROBES
    for record in records:
        assert record["embedder"] == "pipeline:words" and len(record["retrieved"]) == 3
        for hit in record["retrieved"]:
            chunk = results["chunks"][hit["chunk_id"]]
            # the context is one whole paragraph of its document: its span is where that
            # paragraph starts, found here in the corpus file itself
            text = doc_text(chunk["doc_id"])
            assert text[hit["start"] : hit["end"]] == chunk["text"]
            assert text.index(chunk["text"]) == hit["start"]
            # exact when the place is one: in the document the pipeline names (plain and
            # LangChain name it), else in the whole corpus (a duplicate_crowding paragraph
            # is in six documents, so the engine's copy cannot be told apart)
            places = (
                text.count(chunk["text"]) if shape != "llama"
                else sum(p.read_text().count(chunk["text"]) for p in CORPUS.glob("*.txt"))
            )  # fmt: skip
            assert chunk["span_exact"] is (places == 1)
        assert record["generation"]["status"] == "ok" and record["grade"] is not None
    assert results["run"]["indexes"][0]["unmatched_contexts"] == 0
    assert {m["spec"] for m in results["models"]} == {"pipeline:words"}


def test_boundary_answer_graded_and_attributed_from_the_contexts(home, tmp_path):
    code, results = run(home, stack_file(tmp_path, PLAIN.replace("SHAPE", "plain")))
    by_probe = {r["probe"]: r for r in results["instances"]}
    control = by_probe["control"]
    # control-000's gold sentence is in its one paragraph, which the word overlap ranks
    # first: the answer is that paragraph, so the value is in it
    gold = control["gold_spans"][0]
    assert control["gold_in_context"] is True and control["gold_rank"] == 1
    assert gold["text"] in control["generation"]["reply"]
    assert control["grade"]["verdict"] == "correct" and control["attribution"] == "correct"
    wrong = [r for r in results["instances"] if r["attribution"] in ("retrieval", "generation")]
    assert {r["attribution"] for r in wrong} == {"retrieval", "generation"}
    for record in wrong:  # no oracle entry: read from the contexts alone, never "ceiling"
        # unanswerable (no gold) answered: generation; else where the gold was
        expected = "generation" if record["gold_in_context"] in (True, None) else "retrieval"
        assert record["attribution"] == expected
        assert record["ceiling"] == "not measured (no oracle entry)"
    cells = [c for c in results["cells"] if c["config"] == "words" and c["attribution"]]
    assert cells and all(
        c["attribution"]["ceiling_reason"] == "ceiling: not measured (no oracle entry)"
        for c in cells
    )


def test_normalised_contexts_are_found_and_rewritten_ones_counted(home, tmp_path, capsys):
    body = PLAIN.replace("SHAPE", "plain").replace("}", ", normalise: true, rewrite_first: true}")
    code, results = run(home, stack_file(tmp_path, body))
    assert code == 0
    # each of the PROBES questions gets 3 contexts; the first is rewritten (words reversed)
    assert f"{PROBES} of {3 * PROBES} contexts match no document (rewritten by the pipeline)" in (
        capsys.readouterr().err
    )
    index = results["run"]["indexes"][0]
    assert (index["contexts"], index["unmatched_contexts"]) == (3 * PROBES, PROBES)
    for record in results["instances"]:
        first, *rest = record["pipeline"]["contexts"]
        assert first["chunk_id"] is None and first["text"].startswith("In short: ")
        for context in rest:
            # whitespace collapsed and wrapped in ** marks, yet placed on the paragraph
            chunk = results["chunks"][context["chunk_id"]]
            paragraph = next(
                p for p in doc_text(chunk["doc_id"]).split("\n\n")
                if " ".join(p.split()) in chunk["text"]
            )  # fmt: skip
            start = doc_text(chunk["doc_id"]).index(paragraph)
            assert (chunk["start"], chunk["end"]) == (start, start + len(paragraph.rstrip()))
            assert chunk["span_exact"] is False
        assert [h["rank"] for h in record["retrieved"]] == [2, 3]


def test_a_question_the_pipeline_raises_on_is_a_counted_failed_call(home, tmp_path, capsys):
    # "section" is in some of the questions only; each raises once, the rest are answered
    body = PLAIN.replace("SHAPE", "plain").replace("}", ", raise_on: section}")
    stack = stack_file(tmp_path, body)
    questions = [
        json.loads(line)["question"] for line in (ROOT / "corpus" / "questions.jsonl").open()
    ]
    code, results = run(home, stack)
    records = results["instances"]
    raised = [r for r in records if "section" in r["question"]]
    assert raised and len(raised) < len(records) and questions
    assert code == 1
    assert all(r["retrieval_error"].endswith("RuntimeError: the index is rebuilding")
               for r in raised)  # fmt: skip
    assert all(r["generation"]["status"] == "failed_call" for r in raised)
    assert results["conditions"]["calls"]["failed"] == len({r["question"] for r in raised})
    assert "Traceback" not in capsys.readouterr().err


def test_identity_replays_until_the_module_or_version_changes(home, tmp_path):
    stack = stack_file(tmp_path, PLAIN.replace("SHAPE", "plain"))
    assert run(home, stack)[1]["conditions"]["calls"]["computed"] == PROBES
    assert run(home, stack)[1]["conditions"]["calls"]["replayed"] == PROBES
    module = next(tmp_path.glob("word_rag_*.py"))
    module.write_text(module.read_text() + "\n# the prompt was edited\n")
    assert run(home, stack)[1]["conditions"]["calls"]["computed"] == PROBES
    stack.write_text(stack.read_text() + "  version: 2\n")
    assert run(home, stack)[1]["conditions"]["calls"]["computed"] == PROBES
    with sqlite3.connect(home / "cache.sqlite") as db:  # rows carry identity, time
        rows = db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT identity), MIN(seconds >= 0) FROM calls "
            "WHERE model = 'pipeline:words'"
        ).fetchone()
        described = [json.loads(d) for (d,) in db.execute("SELECT description FROM identities")]
    assert rows == (3 * PROBES, 3, 1)
    assert {d.get("version") for d in described} == {None, "2"}


def data_files(home: Path) -> dict[str, str]:
    return {
        str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(home.rglob("*")) if p.is_file()
    }  # fmt: skip


@pytest.mark.parametrize(
    ("pipeline", "said"),
    [
        ("factory: no_such_module_xyz:make", "no_such_module_xyz"),
        ("factory: MODULE:fails_to_build", "cannot reach the vector store"),
        ("factory: MODULE:make\n  args: {documents: []}", "may not set 'documents'"),
        (
            "http:\n    url: http://127.0.0.1:9/ask\n    body: {q: '{{question}}'}\n"
            "    answer: '$.data[['\n  ingest: none",
            "cannot be parsed",
        ),
        (
            "http:\n    url: http://127.0.0.1:9/ask\n    body: {q: x}\n    answer: a\n"
            "  ingest: none",
            "{{question}}",
        ),
        ("factory: MODULE:make\n  ingest: none", "only for an http pipeline"),
    ],
)
def test_a_bad_pipeline_is_refused_before_any_call(home, tmp_path, capsys, pipeline, said):
    assert (
        main(
            [
                "run",
                "--stack-only",
                "--n",
                "1",
                "--no-generate",
                "--stack",
                str(stack_file(tmp_path, PLAIN.replace("SHAPE", "plain"))),
            ]
        )
        == 0
    )
    gc.collect()  # the good run's cache connection closed (its WAL checkpointed)
    before = data_files(home)
    capsys.readouterr()  # the good run's lines
    stack = stack_file(tmp_path, f"name: bad\npipeline:\n  {pipeline}\n")
    code = main(["run", "--stack", str(stack), "--stack-only", "--n", "1"])
    err = capsys.readouterr().err
    assert code == 2 and said in err and str(stack) in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert data_files(home) == before


def test_an_oracle_entry_measures_the_ceiling(home, tmp_path):
    body = PLAIN.replace("SHAPE", "plain") + "oracle:\n  factory: MODULE:first_sentence_oracle\n"
    code, results = run(home, stack_file(tmp_path, body))
    assert code == 0
    with_gold = [r for r in results["instances"] if r["gold_spans"]]
    for record in with_gold:
        oracle = record["oracle"]
        # the oracle's context is the paragraph of the gold span's document holding it
        span = record["gold_spans"][0]
        first = results["chunks"][oracle["chunk_ids"][0]]
        paragraph = next(p for p in doc_text(span["doc_id"]).split("\n\n") if span["text"] in p)
        assert first["text"] == paragraph and first["doc_id"] == span["doc_id"]
        assert oracle["generation"]["reply"] == paragraph.split(". ")[0]
        assert oracle["grade"] is not None
        if not record["grade"]["correct"]:
            expected = (
                "ceiling" if not oracle["grade"]["correct"]
                else "generation" if record["gold_in_context"] else "retrieval"
            )  # fmt: skip
            assert record["attribution"] == expected
    assert "oracle:words" in {m["spec"] for m in results["models"]}


def test_dry_run_counts_the_calls_and_writes_nothing(home, tmp_path, capsys):
    stack = stack_file(tmp_path, PLAIN.replace("SHAPE", "plain"))
    flags = ["run", "--stack", str(stack), "--stack-only", "--n", "1", "--dry-run"]
    assert main(flags) == 0
    out = capsys.readouterr().out
    # PROBES distinct questions at --n 1, none asked yet, no time recorded for it
    assert f"pipeline:words: {PROBES} calls, 0 cached, {PROBES} to compute" in out
    assert "no recorded calls of this pipeline yet" in out and not home.exists()
    run(home, stack)
    capsys.readouterr()
    assert main(flags) == 0
    out = capsys.readouterr().out
    assert f"{PROBES} calls, {PROBES} cached, 0 to compute" in out
    assert f"mean of {PROBES} recorded calls" in out
