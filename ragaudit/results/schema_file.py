"""The results files' JSON Schema, generated from their types (results.documents) and
shipped beside this module as schema.json, and the check the one loader runs on every
document it reads: the document against its kind's type, by pydantic-core in strict mode
(no value is coerced), so a bad file is refused in one line naming the JSON path.

Checking costs less than parsing: on the shipped 12.5 MB reference run, 0.6 to 0.8 times
json.loads' time (benchmarks/schema_check.py measures it). The type's validator is built
once per process, on the first check (about 0.1 s); the inspector caches what it loads.

Regenerate the shipped file after changing a type: ``python -m ragaudit.results.schema_file``
(tests/test_results_schema.py fails while it differs from the types)."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

from ragaudit.errors import RagauditError
from ragaudit.results.documents import FILE_TYPES
from ragaudit.results.schema import SCHEMA_VERSION

SCHEMA_FILE = Path(__file__).resolve().parent / "schema.json"
"""The shipped schema (pyproject's package-data ships every `*.json` of the package)."""


def schema_document() -> dict[str, Any]:
    """The JSON Schema of every kind of file, generated from the types: one definition per
    type under `$defs`, the document any one of the file kinds."""
    from pydantic import TypeAdapter

    defs: dict[str, Any] = {}
    for file_type in FILE_TYPES.values():
        schema = TypeAdapter(file_type).json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        defs[file_type.__name__] = schema
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ragaudit results files",
        "description": (
            f"Every file ragaudit writes, schema_version {SCHEMA_VERSION} "
            "(docs/results-schema.md). Generated from ragaudit.results.documents; "
            "do not edit by hand."
        ),
        "anyOf": [{"$ref": f"#/$defs/{t.__name__}"} for t in FILE_TYPES.values()],
        "$defs": dict(sorted(defs.items())),
    }


def schema_text() -> str:
    """The shipped file's text, exactly as generated."""
    return json.dumps(schema_document(), indent=2, ensure_ascii=False) + "\n"


@functools.cache
def _validator(kind: str | None) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(FILE_TYPES[kind])


def check_against_schema(path: str | Path, data: dict) -> None:
    """Raise a RagauditError, one line naming the file and the JSON path, when `data` (a
    parsed document) does not match its kind's type; a kind without one is left as read."""
    from pydantic import ValidationError

    kind = data.get("kind")
    if kind not in FILE_TYPES:
        return
    try:
        _validator(kind).validate_python(data, strict=True)
    except ValidationError as error:
        line = problem_line(data, error.errors(), FILE_TYPES[kind].__name__)
        raise RagauditError(f"{path}: {line}") from None


_WORDS = {
    "string": "a string", "integer": "a whole number", "number": "a number",
    "boolean": "true or false", "array": "a list", "object": "an object",
}  # fmt: skip


def problem_line(data: Any, errors: list[dict], type_name: str) -> str:
    """`instances[3].gold_rank must be a whole number or null, not "x"` for the first error
    (the wording of the loader's other checks), what it must be read from the shipped
    schema at that path; a missing field: `instances[3].retrieved[0] has no 'rank'`."""
    steps, value, missing = _where(data, errors[0])
    if missing is not None:
        return f"{_path_text(steps) or '(top level)'} has no {missing!r}"
    expected = _expected(_schema()["$defs"], {"$ref": f"#/$defs/{type_name}"}, steps)
    return f"{_path_text(steps)} must be {expected}, not {_shown(value)}"


def _where(data: Any, error: dict) -> tuple[list, Any, str | None]:
    """The steps of an error's location that index into `data` (a union member's name is
    not one), the value there, and the name of a missing field (else None)."""
    steps, node = [], data
    loc = error["loc"]
    for position, step in enumerate(loc):
        if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            steps.append(step)
            node = node[step]
        elif isinstance(node, dict) and isinstance(step, str) and step in node:
            steps.append(step)
            node = node[step]
        elif error["type"] == "missing" and position == len(loc) - 1:
            return steps, None, str(step)
    return steps, node, None


def _path_text(steps: list) -> str:
    text = ""
    for step in steps:
        if isinstance(step, int):
            text += f"[{step}]"
        elif step.isidentifier():
            text += f".{step}" if text else step
        else:
            text += f"[{json.dumps(step, ensure_ascii=False)}]"
    return text


@functools.cache
def _schema() -> dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def _branches(definitions: dict, node: dict) -> list[dict]:
    """A schema node's alternatives, each with its `$ref` resolved."""
    while "$ref" in node:
        node = definitions[node["$ref"].rsplit("/", 1)[1]]
    if "anyOf" in node:
        return [b for branch in node["anyOf"] for b in _branches(definitions, branch)]
    return [node]


def _expected(definitions: dict, node: dict, steps: list) -> str:
    """What the schema allows at `steps` below `node`, in words: `a whole number or null`."""
    for step in steps:
        inner = [
            (b.get("items") if isinstance(step, int) else
             b.get("properties", {}).get(step, b.get("additionalProperties")))
            for b in _branches(definitions, node)
            if b.get("type") == ("array" if isinstance(step, int) else "object")
        ]  # fmt: skip
        node = next((i for i in inner if isinstance(i, dict)), {})
    types = [b.get("type") for b in _branches(definitions, node)]
    words = list(dict.fromkeys(_WORDS[t] for t in types if t in _WORDS))
    if not words:
        return "null" if "null" in types else "another value"
    return " or ".join(words + (["null"] if "null" in types else []))


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:59] + "…"


def main() -> int:
    """Write the schema generated from the types over the shipped file."""
    SCHEMA_FILE.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
