"""The results file: atomic write, partial flag, refusal of other schema versions."""

from __future__ import annotations

import json

import pytest

from ragaudit.errors import RagauditError
from ragaudit.results.io import load_results, write_results
from ragaudit.results.schema import SCHEMA_VERSION, TOP_LEVEL_FIELDS


def minimal_results(**extra) -> dict:
    results = {name: None for name in TOP_LEVEL_FIELDS}
    results.update(instances=[], cells=[], comparisons=[], chunks={}, configs=[], run={})
    results.update(extra)
    return results


def test_write_then_load_round_trips_and_stamps_version_and_completeness(tmp_path):
    path = tmp_path / "results" / "latest.json"
    write_results(
        path, minimal_results(instances=[{"key": "a", "gold_rank": None}]), complete=False
    )
    partial = load_results(path)
    assert partial["complete"] is False and partial["schema_version"] == SCHEMA_VERSION
    assert partial["instances"] == [{"key": "a", "gold_rank": None}]
    with pytest.raises(RagauditError, match="has not finished"):
        load_results(path, allow_partial=False)
    write_results(path, minimal_results())
    assert load_results(path, allow_partial=False)["complete"] is True
    assert [p.name for p in path.parent.iterdir()] == ["latest.json"]  # no temp file left
    assert path.stat().st_mode & 0o044 == 0o044  # readable by the inspector, not owner-only


def test_a_failed_write_leaves_the_previous_file_intact(tmp_path):
    path = tmp_path / "latest.json"
    write_results(path, minimal_results(instances=[{"key": "kept"}]))
    before = path.read_bytes()
    with pytest.raises(RagauditError, match="non-finite"):
        write_results(path, minimal_results(instances=[{"key": "x", "gold_score": float("nan")}]))
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
