"""The results files' JSON Schema (issue 42, item 1): generated from the record types and
shipped in the package, and checked by the one loader on every kind of file, so a bad
value is refused in one line naming the file and its JSON path (exit 2 from a command)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragaudit.errors import RagauditError
from ragaudit.results.documents import Cell, Config, Embedder, Model, ResultsFile
from ragaudit.results.io import load_document, load_results
from ragaudit.results.records import REQUIRED_RECORD_FIELDS, InstanceRecord
from ragaudit.results.reference import REFERENCE_FILE
from ragaudit.results.schema import TOP_LEVEL_FIELDS
from ragaudit.results.schema_file import SCHEMA_FILE, schema_text

SNAPSHOT = Path(__file__).parent / "data" / "behaviour_n1.json"
RAGAUDIT = str(Path(sys.executable).parent / "ragaudit")


def test_the_shipped_schema_is_the_one_the_types_generate():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "ragaudit/results/schema.json differs from the types: "
        "run `python -m ragaudit.results.schema_file`"
    )


def test_the_record_check_names_the_fields_the_types_require():
    types = {"instances": InstanceRecord, "cells": Cell, "models": Model,
             "configs": Config, "embedders": Embedder}  # fmt: skip
    for name, fields in REQUIRED_RECORD_FIELDS.items():
        assert {field for field, _ in fields} == set(types[name].__required_keys__), name
    assert set(TOP_LEVEL_FIELDS) == set(ResultsFile.__required_keys__)


@pytest.mark.parametrize("path", [REFERENCE_FILE, SNAPSHOT], ids=["reference", "snapshot"])
def test_the_shipped_and_recorded_runs_pass(path):
    assert load_results(path)["complete"] is True


def _bad_copy(tmp_path: Path, change) -> Path:
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _set(*steps):
    """A change that sets the value at `steps[:-1]` to `steps[-1]`."""

    def change(data):
        node = data
        for step in steps[:-2]:
            node = node[step]
        node[steps[-2]] = steps[-1]

    return change


BAD = {
    "rank-a-string": (
        _set("instances", 3, "gold_rank", "x"),
        'instances[3].gold_rank must be a whole number or null, not "x"',
    ),
    "rank-a-bool": (
        _set("instances", 3, "gold_rank", True),
        "instances[3].gold_rank must be a whole number or null, not true",
    ),
    "mutation-mark": (
        _set("instances", 0, "mutation", {"mutant": 3, "measure": "gold_in_context"}),
        "instances[0].mutation.mutant must be a string, not 3",
    ),
    "pipeline-contexts": (
        _set("instances", 1, "pipeline", {"contexts": {}}),
        "instances[1].pipeline.contexts must be a list, not {}",
    ),
    "flaky-verdicts": (
        _set("instances", 2, "flaky", {"conditions": ["a"], "verdicts": "correct"}),
        'instances[2].flaky.verdicts must be a list, not "correct"',
    ),
    "chunk-start": (
        lambda d: next(iter(d["chunks"].values())).update(start="0"),
        None,  # the chunk id is the file's: the expected line is built from it below
    ),
    "cell-measure": (
        _set("cells", 0, "measures", "gold_in_context", {"count": 1.5, "n": 3}),
        "cells[0].measures.gold_in_context.count must be a whole number, not 1.5",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_value_is_one_line_naming_its_json_path(tmp_path, case):
    change, words = BAD[case]
    path = _bad_copy(tmp_path, change)
    if words is None:
        chunk_id = next(iter(json.loads(path.read_text())["chunks"]))
        words = f'chunks["{chunk_id}"].start must be a whole number, not "0"'
    with pytest.raises(RagauditError) as caught:
        load_results(path)
    assert str(caught.value) == f"{path}: {words}"


def test_a_command_refuses_a_bad_file_in_one_line_with_exit_2(tmp_path):
    path = _bad_copy(tmp_path, _set("instances", 3, "gold_rank", "x"))
    env = {**os.environ, "RAGAUDIT_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [RAGAUDIT, "report", "--results", str(path), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        f'ragaudit report: {path}: instances[3].gold_rank must be a whole number or null, not "x"\n'
    )


def _audit(**fields) -> dict:
    return {"schema_version": 1, "kind": "audit", "created_at": "2026-01-01T00:00:00+00:00",
            "settings": {}, "structure": {}, "cases": [], **fields}  # fmt: skip


def test_the_other_kinds_are_checked_by_the_same_loader(tmp_path):
    from ragaudit.auditing.report import AUDIT_RESULTS
    from ragaudit.harness.output import HARNESS_CHECK

    path = tmp_path / "audit.json"
    path.write_text(json.dumps(_audit()), encoding="utf-8")
    assert load_document(path, AUDIT_RESULTS)["cases"] == []
    path.write_text(json.dumps(_audit(cases=[1])), encoding="utf-8")
    with pytest.raises(RagauditError) as caught:
        load_document(path, AUDIT_RESULTS)
    assert str(caught.value) == f"{path}: cases[0] must be an object, not 1"
    check = {"kind": "harness_check", "schema_version": 1, "findings": [], "files": "a.py"}
    path.write_text(json.dumps(check), encoding="utf-8")
    with pytest.raises(RagauditError) as caught:
        load_document(path, HARNESS_CHECK)
    assert str(caught.value) == f'{path}: files must be a list or null, not "a.py"'


def test_the_shipped_schema_refuses_what_the_loader_refuses():
    """The JSON Schema file says what the loader's check says, for other tools to use."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    text = SNAPSHOT.read_text(encoding="utf-8")
    good = json.loads(text)
    jsonschema.validate(good, schema)  # the schema itself checked, then the recorded run
    # one validator for the bad copies, raising at their first error (validate() checks
    # the schema again and walks the whole 0.6 MB file for the best of all its errors)
    validator = jsonschema.validators.validator_for(schema)(schema)
    for case, (change, _words) in BAD.items():
        if case == "rank-a-bool":
            continue  # JSON Schema's integer refuses true too; jsonschema agrees below
        bad = json.loads(text)  # a fresh copy (a deep copy of it takes ten times as long)
        change(bad)
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(bad)
