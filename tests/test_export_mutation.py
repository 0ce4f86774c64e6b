"""`ragaudit export` of a mutate file (issue 39, item 5): each record's row carries its
mutant (operator, id, intent, status), `handled`, the retrieval-side measures, the closed-book
answer, the validity checks and the documents touched; a mutant without records (not
applicable, robust) is a row of its own; and docs/export.md's pandas lines, run as written,
give each operator's `mutation.scores` entry. The file is written by `ragaudit mutate
--no-generate` through the harbour's word-overlap retriever (no model)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from helpers.analysis_fixtures import make_results
from test_mutate_discriminates import CASES, FILLER, POLICY, RETRIEVER, TABLE

from ragaudit.cli.main import main
from ragaudit.export.table import records_frame

DOCS = Path(__file__).resolve().parent.parent / "docs" / "export.md"
SNIPPET_OPERATOR = 'operator = "supersede"\n'
MUTANT_COLUMNS = ("operator", "mutant", "intent", "status", "status_reason", "rule")
STACK = """\
name: plain
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {chunk_size: 400, chunk_overlap: 0}
retriever:
  factory: overlap_retriever:make
  args: {}
k: 2
"""


def _write_harbour(root: Path) -> None:
    """test_mutate_discriminates' corpus and cases, and a stack of its plain word-overlap
    retriever (named by the stack file beside it)."""
    corpus = root / "corpus"
    corpus.mkdir()
    (corpus / "handbook.md").write_text(POLICY, encoding="utf-8")
    (corpus / "cranes.md").write_text(TABLE, encoding="utf-8")
    for i, text in enumerate(FILLER):
        (corpus / f"news-{i}.md").write_text(" ".join([text] * 3), encoding="utf-8")
    (root / "cases.yaml").write_text(CASES, encoding="utf-8")
    (root / "overlap_retriever.py").write_text(RETRIEVER, encoding="utf-8")
    (root / "plain.yaml").write_text(STACK, encoding="utf-8")


@pytest.fixture(scope="module")
def mutate_file(tmp_path_factory) -> Path:
    """The harbour's mutate file, every operator, one run for the module."""
    root = tmp_path_factory.mktemp("harbour")
    _write_harbour(root)
    out = root / "mutate.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGAUDIT_HOME", str(root / "home"))
        argv = ["mutate", str(root / "corpus"), str(root / "cases.yaml"), "--stack"]
        argv += [str(root / "plain.yaml"), "--no-generate", "--out", str(out)]
        assert main(argv) == 1  # the plain overlap retriever lets supersede survive
    return out


@pytest.fixture
def exported(mutate_file, tmp_path, capsys):
    """`export(edit=None)`: a copy of the mutate file, changed by `edit`, exported as Parquet;
    returns (its results, the export read back, the line printed)."""

    def export(edit=None) -> tuple[dict, pd.DataFrame, str]:
        results = json.loads(mutate_file.read_text(encoding="utf-8"))
        if edit is not None:
            edit(results)
        path = tmp_path / "mutate.json"
        path.write_text(json.dumps(results), encoding="utf-8")
        capsys.readouterr()
        assert main(["export", "--results", str(path), "--format", "parquet"]) == 0
        printed = capsys.readouterr().out
        return results, pd.read_parquet(tmp_path / "mutate.records.parquet"), printed

    return export


def test_every_record_and_every_mutant_without_records_is_a_row(exported):
    results, frame, printed = exported()
    records, mutants = results["instances"], results["mutation"]["mutants"]
    measured = {r["mutation"]["mutant"] for r in records}
    unrecorded = [m for m in mutants if m["mutant"] not in measured]
    # the harbour: crane-k2's answer is in a table row (boundary leaves it to table_split),
    # overtime-rate's is not in a table (no table_split): docs/mutate.md
    assert [m["mutant"] for m in unrecorded] == ["boundary/crane-k2", "table_split/overtime-rate"]
    assert len(frame) == len(records) + 2
    assert f"{len(records)} of {len(records)} instance records, one a row, " in printed
    assert "then 2 mutants without records" in printed
    assert list(frame.key[: len(records)]) == [r["key"] for r in records]
    tail = frame.iloc[len(records) :]
    assert tail.key.isna().all() and tail.probe.isna().all() and tail.handled.isna().all()
    assert tail.generated.isna().all() and tail.top_score.isna().all()
    assert list(tail.status) == ["not_applicable", "not_applicable"]
    assert list(tail.operator) == ["boundary", "table_split"]
    assert tail.status_reason.iloc[1] == "the answer is not in a table row"
    assert tail.rule.isna().all()  # nothing was planted
    assert list(tail.validity_passed.isna()) == [True, True]  # no check ran


def test_a_records_row_carries_its_mutant_and_its_measures(exported):
    results, frame, _ = exported()
    by_key = frame.set_index("key")
    mutants = {m["mutant"]: m for m in results["mutation"]["mutants"]}
    for record in results["instances"]:
        row, mutant = by_key.loc[record["key"]], mutants[record["meta"]["mutant"]]
        for column in MUTANT_COLUMNS:
            name = "reason" if column == "status_reason" else column
            assert (None if pd.isna(row[column]) else row[column]) == (mutant[name] or None)
        assert row.operator == record["probe"] and row.intent == record["meta"]["intent"]
        measures = record["mutation"]
        for name in ("handled", "handled_retrieval", "measure", "source_in_top_k", "top_score"):
            assert (None if pd.isna(row[name]) else row[name]) == measures[name], name
        control = mutant["phrasings"][record["instance_id"]]["control"]
        assert row.control_status == control == "passed"  # the harbour's control row: 2/2
        assert pd.isna(row.known_without_context)  # --no-generate asks no closed book
    # by hand, docs/mutate.md: supersede adds a revision beside the handbook, remove_answer
    # replaces it by a copy without the fact; a mutant document is <doc>~<operator>~<intent>
    remove = by_key.loc[by_key.mutant == "remove_answer/overtime-rate"].iloc[0]
    assert json.loads(remove.dropped_documents) == ["handbook"]
    assert json.loads(remove.added_documents) == ["handbook~remove_answer~overtime-rate"]
    assert json.loads(remove.removed_fact_documents) == ["handbook"]
    supersede = by_key.loc[by_key.mutant == "supersede/overtime-rate"].iloc[0]
    assert json.loads(supersede.dropped_documents) == []
    assert json.loads(supersede.added_documents) == ["handbook~supersede~overtime-rate"]
    assert json.loads(supersede.removed_fact_documents) == []
    assert supersede.status == "survived" and not supersede.handled
    assert supersede.measure == "gold_ranked_above_trap"
    assert supersede.validity_passed and pd.isna(supersede.validity_failed)
    checks = json.loads(supersede.validity)
    assert {"planted_where_recorded", "old_value_absent"} <= {c["check"] for c in checks}
    # the top score drop: the control row's top score minus the mutant's, same phrasing
    for case in ("overtime-rate/1", "crane-k2/1"):
        rows = frame[frame.instance_id == case].set_index("operator")
        drop = rows.top_score["control"] - rows.top_score["remove_answer"]
        assert rows.top_score_drop["remove_answer"] == pytest.approx(drop)
        assert rows.top_score_drop.drop("remove_answer").isna().all()


def test_known_without_context_is_the_closed_book_entry_of_the_phrasing(exported):
    def asked(results: dict) -> None:
        entry = {"question": "q", "reply": "r", "verdict": "correct", "correct": True,
                 "error": None, "replayed": False, "prompt_sha256": "0" * 64}  # fmt: skip
        results["closed_book"] = {
            "overtime-rate/1": {**entry, "known_without_context": True, "status": "ok"},
            "crane-k2/1": {**entry, "known_without_context": None, "status": "failed_call"},
        }

    _, frame, _ = exported(asked)
    recorded = frame[frame.key.notna()]
    known = recorded.groupby("instance_id").known_without_context
    assert known.apply(lambda v: list(v.unique())).to_dict() == {
        "crane-k2/1": [pd.NA],  # its call failed: not known either way
        "overtime-rate/1": [True],
    }
    assert frame[frame.key.isna()].known_without_context.isna().all()


def test_a_withdrawn_mutants_failed_checks_are_named(exported):
    def withdrawn(results: dict) -> None:
        # a mutant failing a check is kept as not applicable with its checks (mutate.grouping)
        mutants = {m["mutant"]: m for m in results["mutation"]["mutants"]}
        mutants["boundary/crane-k2"]["validity"] = [
            {"check": "planted_where_recorded", "passed": True, "detail": "every span"},
            {"check": "sentence_whole", "passed": False, "detail": "cut mid-sentence"},
            {"check": "cut_by_splitter", "passed": False, "detail": "no boundary inside"},
        ]

    _, frame, _ = exported(withdrawn)
    row = frame[frame.mutant == "boundary/crane-k2"].iloc[0]
    assert row.validity_passed == False  # noqa: E712 (nullable)
    assert row.validity_failed == "sentence_whole; cut_by_splitter"
    checks = json.loads(row.validity)
    assert [c["check"] for c in checks if not c["passed"]] == ["sentence_whole", "cut_by_splitter"]
    assert frame[frame.mutant == "supersede/crane-k2"].validity_passed.all()


def _snippet() -> str:
    (snippet,) = re.findall(r"### Reproducing an operator's score\n.*?```python\n(.*?)```",
                            DOCS.read_text(encoding="utf-8"), re.S)  # fmt: skip
    assert snippet.count(SNIPPET_OPERATOR) == 1
    return snippet


def test_the_docs_pandas_lines_reproduce_every_operators_score(
    exported, tmp_path, monkeypatch, capsys
):
    results, _, _ = exported()
    monkeypatch.chdir(tmp_path)  # where `exported` wrote mutate.records.parquet
    snippet = _snippet()
    seen = {"killed": 0, "survived": 0, "not_applicable": 0, "not_measured": 0}
    for entry in results["mutation"]["scores"]:
        operator = entry["operator"]
        scope: dict = {}
        # the lines as written for supersede; the same lines for every other operator
        lines = snippet.replace(SNIPPET_OPERATOR, f"operator = {operator!r}\n")
        exec(compile(lines, str(DOCS), "exec"), scope)
        assert (scope["killed"], scope["applicable"]) == (entry["killed"], entry["applicable"])
        assert (scope["killed_by_records"], scope["applicable_by_records"]) == (
            entry["killed"],
            entry["applicable"],
        )
        assert scope["score"] == entry["score"]
        for status in ("robust", "not_applicable", "not_measured", "excluded", "closed_book"):
            assert int(scope["beside"].get(status, 0)) == entry[status], (operator, status)
        survivors = [s["mutant"] for s in results["mutation"]["survivors"]]
        assert scope["survivors"] == sorted(s for s in survivors if s.startswith(f"{operator}/"))
        line = f"{operator}: {entry['killed']}/{entry['applicable']} killed "
        assert capsys.readouterr().out == line + f"({entry['killed']}/{entry['applicable']})\n"
        seen["killed"] += entry["killed"]
        seen["survived"] += entry["applicable"] - entry["killed"]
        seen["not_applicable"] += entry["not_applicable"]
        seen["not_measured"] += entry["not_measured"]
    # not trivial: every kind of count appears (harbour: near_duplicate and dilute killed,
    # supersede survived, a not applicable boundary, remove_answer not measured)
    assert all(seen.values()), seen


def test_any_other_file_has_the_columns_null_and_no_extra_rows():
    results = make_results()
    frame = records_frame(results)
    assert len(frame) == len(results["instances"])
    assert frame.operator.isna().all() and frame.status.isna().all()
    assert frame.validity.isna().all() and frame.known_without_context.isna().all()


def test_a_download_of_some_records_carries_their_mutants_and_no_other_rows(mutate_file):
    results = json.loads(mutate_file.read_text(encoding="utf-8"))
    chosen = [r for r in results["instances"] if r["probe"] == "supersede"]
    frame = records_frame(results, chosen)
    assert list(frame.key) == [r["key"] for r in chosen]
    assert set(frame.status) == {"survived"} and frame.operator.eq("supersede").all()


def test_the_csv_file_holds_the_same_rows(mutate_file, tmp_path, capsys):
    target = tmp_path / "rows.csv"
    argv = ["export", "--results", str(mutate_file), "--format", "csv", "--out", str(target)]
    assert main(argv) == 0
    frame = pd.read_csv(target)
    results = json.loads(mutate_file.read_text(encoding="utf-8"))
    assert len(frame) == len(results["instances"]) + 2
    statuses = frame.drop_duplicates("mutant").set_index("mutant").status.to_dict()
    assert statuses == {m["mutant"]: m["status"] for m in results["mutation"]["mutants"]}
