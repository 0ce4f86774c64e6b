"""The retrieval constants of one file, whatever it is written in: the file's kind by its
suffix, its reader, then one value per constant (a later definition with the same value is
the same constant restated; one with another value is kept under its own name)."""

from __future__ import annotations

from pathlib import Path

from ragaudit.codescan.sources import JS_KINDS, js_tree, python_tree, read_source, source_kind
from ragaudit.drift.config_source import config_constants, env_constants
from ragaudit.drift.found import Found
from ragaudit.drift.js_source import js_constants
from ragaudit.drift.namemap import NameMap
from ragaudit.drift.python_source import python_constants
from ragaudit.errors import RagauditError


def read_constants(path: Path, names: NameMap) -> list[Found]:
    """Every retrieval constant `path` sets, in file order."""
    kind = source_kind(path)
    shown = str(path)
    if kind is None:
        raise RagauditError(
            f"source file {path}: not a kind drift reads (Python, JavaScript/TypeScript, "
            "YAML/JSON or .env, by its suffix)"
        )
    if kind in ("yaml", "json"):
        found = config_constants(shown, names.constant_of)
    else:
        text = read_source(path)
        if kind == "python":
            found = python_constants(shown, python_tree(path, text), text, names.constant_of)
        elif kind in JS_KINDS:
            found = js_constants(shown, js_tree(kind, text), text, names.constant_of)
        else:
            found = env_constants(shown, text, names.constant_of)
    return [item for item in found if not names.ignores(item.constant)]


def by_constant(found: list[Found]) -> dict[str, Found]:
    """One entry per constant: its first definition. A later one with another value (a
    `k=12` call beside `TOP_K = 8`) is kept too, keyed `k (retrieve(k=))`, so it pairs
    with the same call on the other side instead of being lost."""
    out: dict[str, Found] = {}
    for item in found:
        first = out.get(item.constant)
        if first is None:
            out[item.constant] = item
        elif first.value != item.value:
            out.setdefault(f"{item.constant} ({item.name})", item)
    return out
