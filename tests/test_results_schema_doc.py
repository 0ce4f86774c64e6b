"""docs/results-schema.md against the shipped schema (issue 42, item 1), so the doc cannot
go stale: every field the results file's schema names is documented, and every field the
doc's JSON sketches name is in the schema."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ragaudit.results.schema_file import SCHEMA_FILE

DOC = Path(__file__).resolve().parent.parent / "docs" / "results-schema.md"


def _refs(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"].rsplit("/", 1)[1]] if "$ref" in node else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def results_file_fields() -> set[str]:
    """Every property name of the results file's type and the types it reaches."""
    definitions = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))["$defs"]
    fields: set[str] = set()
    seen: set[str] = set()
    todo = ["ResultsFile"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        fields |= set(definitions[name].get("properties", {}))
        todo += _refs(definitions[name])
    return fields


def sketched_keys(text: str) -> set[str]:
    """The keys of the doc's ```jsonc sketches (a placeholder such as "<chunk_id>" is none)."""
    blocks = re.findall(r"```jsonc\n(.*?)```", text, re.S)
    return {key for block in blocks for key in re.findall(r'"([A-Za-z_]\w*)"\s*:', block)}


def named_words(text: str) -> set[str]:
    """Every word the doc names in code: a sketch's keys, and each part of a `code` span
    (`instances[].generation.usage` names instances, generation and usage)."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    spans = re.findall(r"`([^`]+)`", prose)  # a span may run over a line break
    return sketched_keys(text) | {w for span in spans for w in re.findall(r"[A-Za-z_]\w*", span)}


def test_every_field_of_the_schema_is_documented():
    text = DOC.read_text(encoding="utf-8")
    missing = sorted(results_file_fields() - named_words(text))
    assert not missing, f"fields in the schema that docs/results-schema.md never names: {missing}"


def test_every_field_the_doc_sketches_is_in_the_schema():
    text = DOC.read_text(encoding="utf-8")
    unknown = sorted(sketched_keys(text) - results_file_fields())
    assert not unknown, f"fields docs/results-schema.md sketches that the schema lacks: {unknown}"


def test_the_doc_states_the_version_the_code_writes():
    from ragaudit.results.schema import SCHEMA_VERSION

    text = DOC.read_text(encoding="utf-8")
    assert text.startswith(f"# The results file (schema_version {SCHEMA_VERSION})")
    assert f'"schema_version": {SCHEMA_VERSION},' in text
