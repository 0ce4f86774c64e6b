"""The inspector's Audit page, on a results file written by a real `ragaudit audit` run of
the example corpus (local:minilm): every figure on the page is the file's."""

from __future__ import annotations

import json
import os

import pytest
from helpers.ui_fixtures import chart_specs, open_app, texts

from ragaudit.cli.main import main
from ragaudit.paths import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "audit"


@pytest.fixture(scope="module")
def audit_file(tmp_path_factory):
    """The example audit with the dilution report, written once for this module."""
    root = tmp_path_factory.mktemp("audit-ui")
    out = root / "audit.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGAUDIT_HOME", str(root / "home"))
        status = main(
            ["audit", str(EXAMPLE / "corpus"), str(EXAMPLE / "cases.yaml"), "--settings",
             str(EXAMPLE / "prod.yaml"), "--dilution", "--out", str(out)]
        )  # fmt: skip
    assert status in (0, 1)
    return out


@pytest.fixture(autouse=True)
def _given(monkeypatch):
    """Each test names its own audit file, as `ragaudit app --audit-results F` does (a link
    may name only that file or one in the results folder)."""
    monkeypatch.setenv("RAGAUDIT_AUDIT_RESULTS", "")  # none given; restored after the test


def open_audit(path, **query):
    os.environ["RAGAUDIT_AUDIT_RESULTS"] = str(path)  # undone by _given's monkeypatch
    return open_app(None, page="pages/audit.py", audit_results=str(path), **query)


def test_rank_grid_is_the_files_ranks(audit_file):
    results = json.loads(audit_file.read_text())
    at = open_audit(audit_file)
    assert not at.exception
    grid = at.dataframe[0].value
    assert list(grid["case"]) == [c["case_id"] for c in results["cases"]]
    for case, (_, row) in zip(results["cases"], grid.iterrows(), strict=True):
        assert row["verdict"] == case["status"]
        for source in case["sources"]:
            mark = "✓" if source["in_top_k"] else "✗"
            assert row[source["source"]].startswith(f"{source['rank']} {mark}")
    # the example's six phrasings all pass (its committed corpus and cases), so 6/6 is 100%
    assert (results["summary"]["passed"], results["summary"]["cases"]) == (6, 6)
    assert at.metric[0].value == "100% 6/6"
    # the rank chart draws one trace per expected source, and the k line
    spec = chart_specs(at)[0]
    assert {t["name"] for t in spec["data"]} == set(grid.columns[2:-1])


def test_flags_spread_and_structure_are_shown(audit_file):
    results = json.loads(audit_file.read_text())
    page = texts(at := open_audit(audit_file))
    structure = results["structure"]
    assert (
        f"Structural check: {structure['entries']} entries, "
        f"{structure['distinct_phrasings']} distinct phrasings." in page
    )
    for intent in structure["single_phrasing_intents"]:
        assert f"Intent {intent} is asked only one way" in page
    flagged = [i["intent"] for i in results["intents"] if i["red_flag"]]
    assert flagged and f"for {', '.join(flagged)}." in page
    spread = at.dataframe[1].value
    assert list(spread["red flag"]).count("RED FLAG") == sum(
        row["red_flag"] for i in results["intents"] for row in i["sources"]
    )


def test_the_embedders_input_window_is_stated(audit_file):
    page = texts(open_audit(audit_file))
    # the example's 26 chunks (document+sub) all fit MiniLM's 256-token window, the
    # longest at 254 tokens; the page says it in the CLI's words
    assert (
        "Input window: 0 of 26 chunks of document+sub exceed local:minilm's 256-token window "
        "(longest: 254 tokens)." in page
    )


def test_one_phrasing_from_the_url_shows_its_top_k(audit_file):
    results = json.loads(audit_file.read_text())
    case = results["cases"][2]
    at = open_audit(audit_file, audit_case=case["case_id"])
    assert at.selectbox(key="audit_case").value == case["case_id"]
    top_k = at.dataframe[2].value
    assert list(top_k["chunk_id"]) == [c["chunk_id"] for c in case["top_k"]]
    assert f"{case['policy']['skipped_by_cap']} skipped by the per-source cap" in texts(at)


def test_dilution_list_and_splitter_counts(audit_file):
    dilution = json.loads(audit_file.read_text())["dilution"]
    at = open_audit(audit_file)
    longest = at.dataframe[3].value
    assert list(longest["subsection markers"]) == [c["markers"] for c in dilution["longest_chunks"]]
    rules = at.dataframe[4].value
    assert (
        dict(zip(rules["exclusion rule"], rules["documents"], strict=True))
        == (dilution["splitter"]["excluded_by_rule"])
    )
    split = dilution["splitter"]
    assert f"{split['split']} of {split['candidates']} documents with markers split" in texts(at)


def test_failed_calls_and_missing_dilution_are_said(audit_file, tmp_path):
    results = json.loads(audit_file.read_text())
    case = results["cases"][0]
    case.update(status="failed_call", error="ollama server at http://x failed /api/embed")
    results["conditions"]["embedding_failures"] = [
        {"kind": "query", "item": case["case_id"], "error": case["error"]}
    ]
    results["summary"]["failed_calls"] = 1
    results["dilution"], results["dilution_reason"] = None, "not requested (run with --dilution)"
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    at = open_audit(path, audit_case=case["case_id"])
    assert at.dataframe[0].value.iloc[0][case["sources"][0]["source"]] == "failed call"
    assert at.metric[1].value == "1"
    page = texts(at)
    assert "The question could not be embedded: ollama server at http://x" in page
    assert "No dilution report: not requested (run with --dilution)." in page
    assert "Embedding failures (1, kept in the denominator)" in page


def test_missing_and_wrong_files(tmp_path):
    page = texts(open_audit(tmp_path / "none.json"))
    assert "No audit results yet" in page and "ragaudit audit examples/audit/corpus" in page
    matrix = tmp_path / "latest.json"
    matrix.write_text(json.dumps({"schema_version": 1, "instances": []}), encoding="utf-8")
    page = texts(open_audit(matrix))
    assert f"Cannot show the audit: {matrix}: not an audit results file" in page


def test_dilution_only_file(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    out = tmp_path / "dilution.json"
    assert main(["audit", str(EXAMPLE / "corpus"), "--dilution", "--out", str(out)]) == 0
    at = open_audit(out)
    assert not at.exception
    page = texts(at)
    assert "No phrasings in this audit: no case file: dilution report only" in page
    dilution = json.loads(out.read_text())["dilution"]
    assert list(at.dataframe[0].value["chars"]) == [c["chars"] for c in dilution["longest_chunks"]]
