"""`ragaudit export`: one row per instance record. Read back with pandas, the Parquet (and
CSV) file reproduces every cell's count/n in the results file, counted in this test from the
exported columns by the rules of docs/results-schema.md, not by the export code."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from helpers.analysis_fixtures import EMBEDDER, make_results
from helpers.stack_results import STACK_EMBEDDER

from ragaudit.analysis import analyse
from ragaudit.cli.main import main
from ragaudit.grading.grade import grade_records
from ragaudit.results.io import write_results

DOCS = Path(__file__).resolve().parent.parent / "docs" / "export.md"
RETRIEVAL = ("gold_in_context", "span_preserved")
VERDICTS = (
    "abstained",
    "trap_taken",
    "empty",
    "failed_call",
    "labels_only",
    "partial_list",
    "denied_record",
    "wrong",
)
ATTRIBUTED = ("retrieval", "generation", "ceiling", "correct", "failed_call")


def _oracle(i: int) -> dict:
    """An oracle reply by instance position: right, wrong, a failed call, right."""
    kind = i % 4
    status = "failed_call" if kind == 2 else "ok"
    correct = kind in (0, 3)
    verdict = "failed_call" if kind == 2 else ("correct" if correct else "wrong")
    return {
        "chunk_ids": [f"oracle/doc-{i}#0"],
        "generation": {"status": status, "reply": "oracle reply", "citations": []},
        "grade": {"verdict": verdict, "correct": correct, "branch": "x"},
    }


def _stack_copy(results: dict) -> None:
    """Records of C under a stack config `mine` with its own embedder, as `run --stack`."""
    # a new list: the fixture's configs are its module's own
    results["configs"] = [
        *results["configs"],
        {
            "name": "mine",
            "kind": "stack",
            "chunking": "stack-mine",
            "k": 8,
            "hybrid": False,
            "probes": ["control", "boundary"],
            "stack": {"embedder": {"spec": STACK_EMBEDDER}},
        },
    ]
    for record in list(results["instances"]):
        if record["config"] == "C" and record["probe"] in ("control", "boundary"):
            copied = copy.deepcopy(record)
            copied.update(config="mine", embedder=STACK_EMBEDDER, chunking="stack-mine")
            copied["key"] = copied["key"].replace(f"/C/{EMBEDDER}", f"/mine/{STACK_EMBEDDER}")
            results["instances"].append(copied)


def _analysed() -> dict:
    """Graded records with oracle replies, two failed retrievals and a stack column, then
    cells from the real analysis."""
    results = make_results()
    grade_records(results["instances"], chunks_by_id=results["chunks"])
    for i, record in enumerate(results["instances"]):
        has_gold = record.get("gold_in_context") is not None
        record["oracle"] = _oracle(i) if record.get("generation") and has_gold else None
    failed = [r for r in results["instances"] if r["probe"] == "boundary" and r["config"] == "A"]
    for record in failed[:2]:
        record.update(retrieval_error="embedding call failed: timeout")
        record.update(gold_in_context=None, span_preserved=None, retrieved=[])
    _stack_copy(results)
    analyse(results)
    return results


@pytest.fixture
def exported(ragaudit_home, capsys):
    """The results file and its Parquet export, written by `ragaudit export`."""
    path = ragaudit_home / "results" / "latest.json"
    write_results(path, _analysed())
    assert main(["export", "--results", str(path), "--format", "parquet"]) == 0
    out = capsys.readouterr().out
    target = path.with_name("latest.records.parquet")
    assert out.startswith(f"wrote {target}:")
    return json.loads(path.read_text()), target


def _rows(frame, cell: dict):
    return frame[
        (frame.probe == cell["probe"])
        & (frame.config == cell["config"])
        & (frame.embedder == cell["embedder"])
    ]


def _counted(rows, name: str) -> tuple[int, int]:
    """(count, n) of one measure, counted from the exported columns."""
    if name in RETRIEVAL:
        return int((rows[name] == True).sum()), len(rows)  # noqa: E712 (nullable column)
    if name == "retrieval_failed_call":
        return int(rows.retrieval_error.notna().sum()), len(rows)
    graded = rows[rows.verdict.notna()]
    if name == "correct":
        return int((graded.correct == True).sum()), len(graded)  # noqa: E712
    if name in VERDICTS:
        return int((graded.verdict == name).sum()), len(graded)
    raise AssertionError(f"a measure this test does not know: {name}")


def _attribution_counted(rows, name: str) -> tuple[int, int]:
    attributed = rows[rows.attribution.notna()]
    if name == "no_oracle":
        return int((attributed.has_oracle == False).sum()), len(attributed)  # noqa: E712
    return int((attributed.attribution == name).sum()), len(attributed)


def _check_every_cell(results: dict, frame) -> set[str]:
    """Assert every cell's n and every recorded measure; return the measures checked."""
    checked = set()
    for cell in results["cells"]:
        rows = _rows(frame, cell)
        assert len(rows) == cell["n"], cell
        for name, measure in cell["measures"].items():
            if name.endswith("_reason") or measure is None:
                continue
            assert _counted(rows, name) == (measure["count"], measure["n"]), (cell, name)
            checked.add(name)
        for name, measure in (cell.get("attribution") or {}).items():
            if name != "n":
                got = _attribution_counted(rows, name)
                assert got == (measure["count"], measure["n"]), (cell, name)
                checked.add(f"attribution.{name}")
    return checked


def test_the_parquet_file_reproduces_every_cells_count_over_n(exported):
    results, target = exported
    frame = pd.read_parquet(target)
    assert len(frame) == len(results["instances"])
    checked = _check_every_cell(results, frame)
    expected = {*RETRIEVAL, "retrieval_failed_call", "correct", *VERDICTS}
    expected |= {f"attribution.{name}" for name in (*ATTRIBUTED, "no_oracle")}
    assert checked == expected
    # the fixture is not trivial: failed retrievals, every attribution, a stack column
    assert frame.retrieval_error.notna().sum() == 2
    assert set(frame.attribution.dropna()) == set(ATTRIBUTED)
    assert set(frame[frame.config == "mine"].embedder) == {STACK_EMBEDDER}
    assert set(frame[frame.config == "mine"].config_kind) == {"stack"}
    assert frame.attrs["ragaudit_results_created_at"] == results["created_at"]


def test_the_csv_file_reproduces_them_too(exported, capsys):
    results, parquet = exported
    target = parquet.with_name("records.csv")
    argv = ["export", "--results", str(parquet.with_name("latest.json")), "--out", str(target)]
    assert main([*argv, "--format", "csv"]) == 0
    frame = pd.read_csv(target)
    assert len(frame) == len(results["instances"])
    _check_every_cell(results, frame)


def test_lists_are_json_text_in_rank_order_and_scalars_as_recorded(exported):
    results, target = exported
    frame = pd.read_parquet(target).set_index("key")
    record = next(r for r in results["instances"] if len(r["retrieved"]) > 1)
    row = frame.loc[record["key"]]
    by_rank = sorted(record["retrieved"], key=lambda hit: hit["rank"])
    assert json.loads(row.retrieved_chunk_ids) == [hit["chunk_id"] for hit in by_rank]
    assert json.loads(row.retrieved) == record["retrieved"]
    listed = next(r for r in results["instances"] if isinstance(r["gold_answer"], list))
    assert frame.loc[listed["key"], "gold_answer"] == "; ".join(listed["gold_answer"])
    generated = next(r for r in results["instances"] if r.get("generation"))
    assert frame.loc[generated["key"], "reply"] == generated["generation"]["reply"]
    assert frame.loc[generated["key"], "verdict"] == generated["grade"]["verdict"]
    assert str(frame.dtypes["gold_in_context"]) == "boolean"


def test_the_docs_pandas_lines_reproduce_their_cell(exported, monkeypatch):
    results, target = exported
    [snippet] = re.findall(r"## Reproducing a cell\n.*?```python\n(.*?)```", DOCS.read_text(), re.S)
    monkeypatch.chdir(target.parent)
    scope: dict = {}
    exec(compile(snippet, str(DOCS), "exec"), scope)
    (cell,) = [
        c
        for c in results["cells"]
        if (c["probe"], c["config"], c["embedder"]) == ("boundary", "B", EMBEDDER)
    ]
    measures = cell["measures"]
    assert scope["n"] == cell["n"]
    assert scope["gold_in_context"] == measures["gold_in_context"]["count"]
    assert scope["correct"] == measures["correct"]["count"]
    assert len(scope["graded"]) == measures["correct"]["n"]
    for verdict, count in scope["verdicts"].items():
        assert count == measures[verdict]["count"]
    for name, count in scope["attribution"].items():
        assert count == cell["attribution"][name]["count"]


def test_the_docs_list_every_column_in_order(exported):
    _, target = exported
    frame = pd.read_parquet(target)
    listed = re.findall(r"^\| `(\w+)` \| (\w+) \|", DOCS.read_text(), re.M)
    assert listed == [(name, str(dtype)) for name, dtype in frame.dtypes.items()]


def test_an_older_file_exports_with_the_oracle_not_measured(ragaudit_home, capsys):
    from helpers.ui_fixtures import write_results as write_version_2

    path = write_version_2(ragaudit_home / "results" / "v2.json", n=2)
    target = ragaudit_home / "v2.parquet"
    argv = ["export", "--results", str(path), "--format", "parquet", "--out", str(target)]
    assert main(argv) == 0
    frame = pd.read_parquet(target)
    assert len(frame) == len(json.loads(path.read_text())["instances"])
    assert frame.has_oracle.isna().all() and frame.attribution.isna().all()
    assert frame.generated.any()


def test_a_missing_results_file_or_unwritable_out_is_one_line_and_exit_2(ragaudit_home, capsys):
    missing = ragaudit_home / "results" / "nope.json"
    assert main(["export", "--results", str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"ragaudit export: {missing}: no results file here (run `ragaudit run` first)"
    path = ragaudit_home / "results" / "latest.json"
    write_results(path, _analysed())
    assert main(["export", "--results", str(path), "--out", str(ragaudit_home)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"ragaudit export: --out {ragaudit_home}: exists and is not a regular file"
    assert not list(ragaudit_home.glob("results/*.csv"))


def test_the_pages_offer_the_cells_and_the_instances_records(ragaudit_home, monkeypatch):
    from helpers.ui_apptest import open_app, texts

    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    path = ragaudit_home / "results" / "latest.json"
    write_results(path, _analysed())
    matrix = open_app(path, page="pages/matrix.py")
    matrix.selectbox(key="matrix_open_probe").select("boundary").run()
    matrix.selectbox(key="matrix_open_config").select("mine").run()
    # the stack's cell is under its own embedder: the 10 boundary records copied from C
    line = f"**Download the records of boundary × mine ({STACK_EMBEDDER})**: 10 records"
    assert line in texts(matrix)
    labels = [button.proto.label for button in matrix.get("download_button")]
    assert labels == ["CSV", "Parquet"]
    page_args = {"probe": "boundary", "config": "B", "embedder": EMBEDDER}
    instance = open_app(path, page="pages/instance.py", instance="boundary-003", **page_args)
    # A, B, C and M under local:minilm, and the stack: 5 records of boundary-003
    assert "**Download boundary-003 under every config and embedder**: 5 records" in texts(instance)
    assert "**Download the records of boundary × B (local:minilm)**: 10 records" in texts(instance)
