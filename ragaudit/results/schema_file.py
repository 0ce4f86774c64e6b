"""The results files' JSON Schema, generated from their types (results.documents) and
shipped beside this module as schema.json, and the check the one loader runs on every
document it reads: the document against its kind's type, by pydantic-core in strict mode
(no value is coerced), so a bad file is refused in one line naming the JSON path.

Checking costs less than parsing: on the shipped 12.5 MB reference run, 0.17 s against
json.loads' 0.27 s (benchmarks/schema_check.py measures it). The type's validator is built
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
        raise RagauditError(f"{path}: {problem_line(data, error.errors())}") from None


_EXPECTED = {
    "string_type": "a string", "int_type": "a whole number", "float_type": "a number",
    "bool_type": "true or false", "list_type": "a list", "dict_type": "an object",
    "none_required": "null", "missing": "this field",
}  # fmt: skip


def problem_line(data: Any, errors: list[dict]) -> str:
    """`instances[3].gold_rank: expected a whole number, got "x"` for the first error (a
    union's members share its path, and each says what it would take)."""
    path, value, missing = _where(data, errors[0])
    expected = []
    for error in errors:
        if _where(data, error)[0] == path:
            words = _EXPECTED.get(error["type"], error["msg"].lower())
            if words not in expected:
                expected.append(words)
    if missing:
        return f"{path}: missing (every such object carries it)"
    return f"{path}: expected {' or '.join(expected)}, got {_shown(value)}"


def _where(data: Any, error: dict) -> tuple[str, Any, bool]:
    """The JSON path of an error's location in `data` and the value there: the location's
    steps that index into the data (a union member's name is not one), and a missing
    field's name last."""
    text, node = "", data
    loc = error["loc"]
    for position, step in enumerate(loc):
        if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            text, node = f"{text}[{step}]", node[step]
        elif isinstance(node, dict) and isinstance(step, str) and step in node:
            text, node = text + _key(step, first=not text), node[step]
        elif error["type"] == "missing" and position == len(loc) - 1:
            return text + _key(str(step), first=not text), None, True
    return text or "(top level)", node, False


def _key(name: str, *, first: bool) -> str:
    if name.isidentifier():
        return name if first else f".{name}"
    return f"[{json.dumps(name, ensure_ascii=False)}]"


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
