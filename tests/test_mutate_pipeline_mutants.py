"""A `pipeline:` gets what it can (issue 38): with no splitter of ragaudit's to search,
`boundary` and `table_split` pad its corpus by two fixed sizes, 1,000 and 3,000 characters
of whole sentences, one mutant each (`operator/intent@1000`, `@3000`), each built in a
corpus of its own; a record reads from the located contexts whether the answer's sentence
reached the model whole; an `oracle:` entry is asked each record's gold paragraph, so a
wrong answer is attributed to retrieval or generation. No model: the pipelines are the
paragraph pipeline of test_mutate_pipeline, and one keeping each paragraph's head only."""

from __future__ import annotations

import json
import re
import textwrap
import uuid

import pytest
from test_mutate_discriminates import CASES, FILLER, POLICY, TABLE
from test_mutate_pipeline import PIPELINE

from ragaudit.cli.main import main

HEADS = '''

def make_heads(documents, head=300):
    """Passages are each paragraph's first `head` characters (a chunker that keeps a
    paragraph's head only); the answer is the best passage's text."""
    passages = [(d["id"], p[:head]) for d in documents for p in d["text"].split("\\n\\n")
                if p.strip()]

    def ask(question):
        asked = _words(question)
        best = max(passages, key=lambda p: len(asked & _words(p[1])))
        return {"answer": best[1], "contexts": [{"text": best[1], "doc_id": best[0]}]}
    return ask


def oracle():
    """Answers with the gold passage it is handed: a generator that reads perfectly."""
    return lambda question, contexts: contexts[0]
'''
NOT_MEASURED = "not measured (no oracle entry)"
SENTENCE = "Overtime on the quay is paid at 150 percent of the hourly wage for the first two hours."
OTHERS = [TABLE, *FILLER]
"""The documents other than the handbook: where boundary's padding for it comes from."""
LONGEST = max(len(s) for text in OTHERS for s in re.split(r"(?<=\.)\s+|\n", text))
"""The longest sentence the padding may end on: it overshoots its size by less."""


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.syspath_prepend(str(tmp_path))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "handbook.md").write_text(POLICY, encoding="utf-8")
    (corpus / "cranes.md").write_text(TABLE, encoding="utf-8")
    for i, text in enumerate(FILLER):
        (corpus / f"news-{i}.md").write_text(text, encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    module = f"padded_rag_{uuid.uuid4().hex}"  # its own module: its own build log
    (tmp_path / f"{module}.py").write_text(PIPELINE + HEADS, encoding="utf-8")
    return tmp_path, module


def mutate(workspace, name: str, factory: str, *operators: str, oracle: bool = False) -> dict:
    root, module = workspace
    stack = root / f"{name}.yaml"
    entry = f"oracle:\n  factory: {module}:oracle\n" if oracle else ""
    stack.write_text(
        textwrap.dedent(f"""\
            name: {name}
            pipeline:
              factory: {module}:{factory}
            """) + entry, encoding="utf-8",
    )  # fmt: skip
    out = root / f"{name}.json"
    status = main(["mutate", str(root / "corpus"), str(root / "cases.yaml"), "--stack",
                   str(stack), "--operators", *operators, "--out", str(out)])  # fmt: skip
    results = json.loads(out.read_text(encoding="utf-8"))
    assert status == (1 if results["mutation"]["survivors"] else 0)
    return results


def mutants(results: dict, operator: str) -> dict[str, dict]:
    return {m["mutant"]: m for m in results["mutation"]["mutants"] if m["operator"] == operator}


def records(results: dict, operator: str) -> dict[str, dict]:
    return {r["meta"]["mutant"]: r for r in results["instances"] if r["probe"] == operator}


def padding_of(mutant: dict) -> str:
    (planted,) = [s for s in mutant["planted"] if s["role"] == "padding"]
    return planted["text"]


def test_boundary_pads_a_pipelines_corpus_by_two_sizes_each_built_alone(workspace):
    results = mutate(workspace, "paragraphs", "make", "boundary", "table_split")
    boundary = mutants(results, "boundary")
    assert set(boundary) == {
        "boundary/overtime-rate@1000", "boundary/overtime-rate@3000", "boundary/crane-k2"
    }  # fmt: skip
    assert boundary["boundary/crane-k2"]["status"] == "not_applicable"
    assert boundary["boundary/crane-k2"]["reason"].startswith("the answer is in a table row")
    for size in (1000, 3000):
        mutant = boundary[f"boundary/overtime-rate@{size}"]
        assert mutant["status"] == "killed"
        assert mutant["mutant_doc_id"] == f"handbook~boundary~overtime-rate@{size}"
        padding = padding_of(mutant)
        # whole sentences of the other documents, reaching the size, short of one more
        assert size <= len(padding) < size + LONGEST + 1
        for sentence in re.split(r"(?<=\.) ", padding.strip()):
            assert sentence[0].isupper() and sentence.endswith(".")
            assert any(sentence in text for text in OTHERS) and sentence not in POLICY
        # right before the answer's sentence, inside its paragraph
        assert padding + SENTENCE in mutant["mutant_text"]
        assert mutant["mutant_text"].split(padding)[0].endswith("opening day.\n\n")
        # no splitter to cut it: a whole sentence, and no cut is asked for
        checks = {c["check"]: c["passed"] for c in mutant["validity"]}
        assert checks["sentence_whole"] and "cut_by_splitter" not in checks
    # the 3,000-character padding is the 1,000's and more: one supply
    assert padding_of(boundary["boundary/overtime-rate@3000"]).startswith(
        padding_of(boundary["boundary/overtime-rate@1000"]).strip()
    )
    # the two sizes of one intent never share a corpus: each is its own build
    root, module = workspace
    log = root / f"{module}.py.builds.jsonl"
    builds = [json.loads(line) for line in log.read_text().splitlines()]
    originals = ["cranes", "handbook", "news-0", "news-1", "news-2"]
    assert builds[0] == originals and len(builds) == 3
    for size, built in zip((1000, 3000), builds[1:], strict=True):
        assert f"handbook~boundary~overtime-rate@{size}" in built and "handbook" not in built
        assert f"cranes~table_split~crane-k2@{size}" in built and "cranes" not in built
    # a paragraph pipeline hands the model the whole padded paragraph: the sentence
    # reaches it whole, the answer is right, both mutants are killed
    for size in (1000, 3000):
        record = records(results, "boundary")[f"boundary/overtime-rate@{size}"]
        assert record["key"].startswith(f"boundary/overtime-rate/1@{size}/")
        assert record["mutation"]["sentence_reached_whole"] is True
        assert record["span_preserved"] is True and record["gold_in_context"] is True
        assert record["grade"]["correct"] is True
    score = next(s for s in results["mutation"]["scores"] if s["operator"] == "boundary")
    assert (score["killed"], score["applicable"], score["not_applicable"]) == (2, 2, 1)


def test_table_split_pads_between_a_tables_header_and_rows_by_two_sizes(workspace):
    results = mutate(workspace, "tables", "make", "table_split")
    table = mutants(results, "table_split")
    assert table["table_split/overtime-rate"]["reason"] == "the answer is not in a table row"
    header = "| Crane | Berth | Lifting capacity |\n| --- | --- | --- |\n"
    row = "| Crane K1 | Berth 3 | 41 tonnes |\n| Crane K2 | Berth 5 | 63 tonnes |"
    corpus_text = "\n".join([POLICY, *OTHERS])
    for size in (1000, 3000):
        mutant = table[f"table_split/crane-k2@{size}"]
        assert mutant["status"] == "killed"
        padding = padding_of(mutant)
        assert header + padding + row in mutant["mutant_text"]
        lines = padding.strip("\n").split("\n")
        longest = max(len(s) for s in re.split(r"(?<=\.)\s+|\n", corpus_text))
        assert size <= len(padding) < size + longest + 1
        assert all(line in corpus_text for line in lines)  # the corpus's own sentences
        record = records(results, "table_split")[f"table_split/crane-k2@{size}"]
        # one paragraph holds header, prose and rows: the row reaches the model whole
        assert record["mutation"]["sentence_reached_whole"] is True
        assert record["mutation"]["header_and_row_in_context"] is True


def test_a_pipeline_keeping_a_paragraphs_head_loses_the_padded_sentence(workspace):
    # the overtime paragraph is 150 characters: its head holds it unmutated, but padded by
    # 1,000 or 3,000 characters the head is padding only; the sentence never reaches the
    # model, and no context touches it, so whether the pipeline's chunks cut it is unseen
    results = mutate(workspace, "heads", "make_heads", "boundary")
    assert results["mutation"]["control"]["passed"] == 2
    for size in (1000, 3000):
        record = records(results, "boundary")[f"boundary/overtime-rate@{size}"]
        assert record["mutation"]["sentence_reached_whole"] is False
        assert record["gold_in_context"] is False and record["span_preserved"] is None
        assert record["span_preserved_reason"].startswith("no context the pipeline returned")
        assert record["grade"]["correct"] is False
        # no oracle entry: the ceiling is not measured, the failure read from the contexts
        assert record["oracle"] is None and record["ceiling"] == NOT_MEASURED
        assert record["attribution"] == "retrieval"
    assert {s["mutant"] for s in results["mutation"]["survivors"]} == {
        "boundary/overtime-rate@1000", "boundary/overtime-rate@3000"
    }  # fmt: skip


def test_an_oracle_entry_is_asked_the_gold_paragraph_of_each_mutant(workspace):
    results = mutate(workspace, "heads_oracle", "make_heads", "boundary", oracle=True)
    by_mutant = mutants(results, "boundary")
    for size in (1000, 3000):
        record = records(results, "boundary")[f"boundary/overtime-rate@{size}"]
        text = by_mutant[f"boundary/overtime-rate@{size}"]["mutant_text"]
        # the gold paragraph: the padded second paragraph of the mutant handbook
        paragraph = text.split("\n\n")[1]
        assert paragraph.startswith(padding_of(by_mutant[f"boundary/overtime-rate@{size}"]))
        (chunk_id,) = record["oracle"]["chunk_ids"]
        assert results["chunks"][chunk_id]["text"] == paragraph
        assert results["chunks"][chunk_id]["doc_id"] == f"handbook~boundary~overtime-rate@{size}"
        assert record["oracle"]["generation"]["reply"] == paragraph
        assert record["oracle"]["grade"]["correct"] is True and record["ceiling"] is None
        # the oracle answers from the gold, the pipeline did not: a retrieval failure
        assert record["grade"]["correct"] is False and record["attribution"] == "retrieval"
    control = records(results, "control")["control/overtime-rate"]
    assert control["oracle"]["grade"]["correct"] is True
    assert control["attribution"] == "correct"
    models = {m["kind"]: m["spec"] for m in results["models"]}
    assert models["oracle"] == "oracle:heads_oracle"
    assert results["conditions"]["calls_by_model"]["oracle:heads_oracle"]["computed"] == 4
