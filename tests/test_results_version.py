"""Results files written before schema version 2 (no chunk offsets, no per-instance
detectability points, no `flagged` on citation checks) are refused in one line."""

from __future__ import annotations

import json

import pytest

from ragaudit.errors import RagauditError
from ragaudit.results.io import load_results


def _version_1_file(path):
    """A results file as schema version 1 wrote it: every top-level field it required."""
    fields = (
        "created_at",
        "run",
        "corpus",
        "configs",
        "embedders",
        "models",
        "conditions",
        "cells",
        "comparisons",
    )
    data = {name: {} for name in fields}
    data.update(schema_version=1, complete=True, chunks={}, instances=[], cells=[])
    data["created_at"] = "2026-01-01T00:00:00+00:00"  # a string in every version
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_version_1_file_is_refused_with_one_line_naming_its_version(tmp_path):
    path = _version_1_file(tmp_path / "old.json")
    with pytest.raises(RagauditError) as caught:
        load_results(path)
    assert str(caught.value) == (
        f"{path}: schema_version 1 is an older results format; this ragaudit reads "
        "version 4, 3 and 2 (rerun `ragaudit run` to regenerate it)"
    )


def test_a_version_2_file_still_opens(tmp_path):
    # version 3 only added fields; a version-2 file's readers say "not measured" for them
    path = _version_1_file(tmp_path / "v2.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(schema_version=2, configs=[], embedders=[], models=[], comparisons=[])
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_results(path)["schema_version"] == 2


def test_a_version_3_file_still_opens(tmp_path):
    # version 4 only added fields (stack columns, approximate spans, openai models, workers)
    path = _version_1_file(tmp_path / "v3.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(schema_version=3, configs=[], embedders=[], models=[], comparisons=[])
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_results(path)["schema_version"] == 3
