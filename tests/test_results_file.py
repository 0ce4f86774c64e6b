"""The results file: atomic write, partial flag, refusal of other schema versions."""

from __future__ import annotations

import json
import re

import pytest

from ragaudit.auditing.report import read_audit_results
from ragaudit.errors import RagauditError
from ragaudit.results.io import load_results, write_results
from ragaudit.results.schema import SCHEMA_VERSION, TOP_LEVEL_FIELDS


def minimal_results(**extra) -> dict:
    results = {name: None for name in TOP_LEVEL_FIELDS}
    results.update(instances=[], cells=[], comparisons=[], chunks={}, configs=[], run={})
    results.update(extra)
    return results


def record(key: str, **fields) -> dict:
    """An instance record with the fields every one carries (results.records), and more."""
    probe, instance_id = "control", f"control-{key}"
    return {"key": key, "probe": probe, "instance_id": instance_id, "config": "A",
            "embedder": "local:minilm", **fields}  # fmt: skip


def test_write_then_load_round_trips_and_stamps_version_and_completeness(tmp_path):
    path = tmp_path / "results" / "latest.json"
    write_results(path, minimal_results(instances=[record("a", gold_rank=None)]), complete=False)
    partial = load_results(path)
    assert partial["complete"] is False and partial["schema_version"] == SCHEMA_VERSION
    assert partial["instances"] == [record("a", gold_rank=None)]
    with pytest.raises(RagauditError, match="has not finished"):
        load_results(path, allow_partial=False)
    write_results(path, minimal_results())
    assert load_results(path, allow_partial=False)["complete"] is True
    assert [p.name for p in path.parent.iterdir()] == ["latest.json"]  # no temp file left
    assert path.stat().st_mode & 0o044 == 0o044  # readable by the inspector, not owner-only


def test_a_failed_write_leaves_the_previous_file_intact(tmp_path):
    path = tmp_path / "latest.json"
    write_results(path, minimal_results(instances=[record("kept")]))
    before = path.read_bytes()
    with pytest.raises(RagauditError, match="non-finite"):
        write_results(path, minimal_results(instances=[record("x", gold_score=float("nan"))]))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["latest.json"]


def test_an_older_schema_is_refused_naming_the_file_and_its_version(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({**minimal_results(), "schema_version": 0, "complete": True}))
    with pytest.raises(RagauditError) as caught:
        load_results(path)
    assert str(path) in str(caught.value) and "schema_version 0" in str(caught.value)
    assert "older" in str(caught.value)


def test_a_missing_top_level_field_is_named(tmp_path):
    path = tmp_path / "cut.json"
    data = {**minimal_results(), "schema_version": SCHEMA_VERSION, "complete": True}
    del data["comparisons"]
    path.write_text(json.dumps(data))
    with pytest.raises(RagauditError, match=r"cut\.json: missing top-level field 'comparisons'"):
        load_results(path)


def test_not_json_and_absent_files_are_one_line_errors(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(RagauditError, match=r"broken\.json: not valid JSON"):
        load_results(broken)
    with pytest.raises(RagauditError, match="no results file"):
        load_results(tmp_path / "absent.json")


def test_the_loader_reads_strict_json_only(tmp_path):
    path = tmp_path / "latest.json"
    write_results(path, minimal_results(instances=[record("a", gold_score=0.5)]))
    path.write_text(path.read_text().replace("0.5", "NaN"))
    expected = "not valid JSON (NaN is not a number JSON allows; ragaudit writes finite numbers"
    with pytest.raises(RagauditError, match=re.escape(f"{path}: {expected} only)")):
        load_results(path)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("cells", {"A": 1}, "field 'cells' must be a list, not {'A': 1}"),
        ("conditions", [1], "field 'conditions' must be an object, not [1]"),
        ("instances", [1, 2], "field 'instances' must be a list of objects"),
        ("complete", "yes", "field 'complete' must be true or false"),
    ],
)
def test_each_top_level_field_is_of_its_json_type(tmp_path, field, value, message):
    path = tmp_path / "latest.json"
    write_results(path, minimal_results())
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, field: value}))
    with pytest.raises(RagauditError) as caught:
        load_results(path)
    assert str(caught.value) == f"{path}: {message}"


def _audit_document(**extra) -> dict:
    document = {"schema_version": 1, "kind": "audit", "created_at": "now", "settings": {}}
    return {**document, "structure": {}, "cases": [], **extra}


def test_the_audit_results_file_is_another_kind_read_by_the_same_loader(tmp_path):
    audit = tmp_path / "audit.json"
    audit.write_text(json.dumps(_audit_document()))
    assert read_audit_results(audit)["kind"] == "audit"
    with pytest.raises(RagauditError) as caught:
        load_results(audit)
    assert str(caught.value) == f'{audit}: not a results file (its "kind" is "audit")'
    matrix = tmp_path / "latest.json"
    write_results(matrix, minimal_results())
    with pytest.raises(RagauditError) as caught:
        read_audit_results(matrix)
    assert str(caught.value) == f'{matrix}: not an audit results file (no "kind": "audit")'


def test_both_kinds_word_their_errors_alike(tmp_path):
    with pytest.raises(RagauditError) as results_missing:
        load_results(tmp_path / "gone.json")
    with pytest.raises(RagauditError) as audit_missing:
        read_audit_results(tmp_path / "gone.json")
    assert str(results_missing.value).endswith("no results file here (run `ragaudit run` first)")
    assert str(audit_missing.value).endswith(
        "no audit results file here (run `ragaudit audit` first)"
    )
    old = tmp_path / "old-audit.json"
    old.write_text(json.dumps(_audit_document(schema_version=0)))
    with pytest.raises(RagauditError) as caught:
        read_audit_results(old)
    assert str(caught.value) == (
        f"{old}: schema_version 0 is an older audit results format; this ragaudit reads "
        "version 4 and 1 (rerun `ragaudit audit` to regenerate it)"
    )
    cut = tmp_path / "cut-audit.json"
    cut.write_text(json.dumps({k: v for k, v in _audit_document().items() if k != "cases"}))
    with pytest.raises(RagauditError, match=r"cut-audit\.json: missing top-level field 'cases'"):
        read_audit_results(cut)
