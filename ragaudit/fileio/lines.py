"""Load a YAML or JSON file keeping the line of every field, so that a validation error can
name the file, the line and the field at fault."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ragaudit.errors import RagauditError
from ragaudit.fileio.text import MAX_INPUT_BYTES, parse_json, parse_yaml
from ragaudit.fileio.text import read_text as read_file

Loc = tuple[str | int, ...]


def read_text(path: Path, what: str) -> str:
    """The file as UTF-8 text, or one clear error naming it (fileio.read_text, capped
    at MAX_INPUT_BYTES)."""
    return read_file(path, f"{what} {path}", max_bytes=MAX_INPUT_BYTES)


def load_with_lines(path: Path, what: str) -> tuple[Any, dict[Loc, int]]:
    """Parse `path` (JSON when it ends in .json, else YAML) and map each field path to its
    1-based line. A syntax error names the file and line."""
    text = read_text(path, what)
    source = f"{what} {path}"
    if Path(path).suffix.lower() != ".json":
        data, node = parse_yaml(text, source)
    else:
        data = parse_json(text, source)
        try:  # JSON is (nearly always) YAML too, so the YAML composer gives its lines
            node = parse_yaml(text, source)[1]
        except RagauditError:
            node = None
    lines: dict[Loc, int] = {}
    if node is not None:
        _collect_lines(node, (), lines, set())
    return data, lines


def _collect_lines(node: Any, loc: Loc, lines: dict[Loc, int], seen: set[int]) -> None:
    import yaml

    lines[loc] = node.start_mark.line + 1
    if id(node) in seen:  # an alias: its node was walked where it is anchored
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            lines[loc + (key,)] = key_node.start_mark.line + 1
            _collect_lines(value_node, loc + (key,), lines, seen)
            lines[loc + (key,)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_lines(item, loc + (index,), lines, seen)


def dotted(loc: Loc) -> str:
    """('intents', 0, 'phrasings', 1, 'q') -> 'intents[0].phrasings[1].q'"""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def line_of(loc: Loc, lines: dict[Loc, int]) -> int | None:
    """The line of the deepest known prefix of `loc`."""
    for end in range(len(loc), -1, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def validate(model: type[BaseModel], data: Any, path: Path, what: str, lines: dict[Loc, int]):
    """`model.model_validate(data)`, turning the first error into one line that names the
    file, line and field."""
    if data is None:
        raise RagauditError(f"{what} {path}: the file is empty")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        # A union field reports one error per alternative; the bare-type ones are noise.
        errors = [e for e in error.errors() if not _is_type_tag(e["loc"][-1] if e["loc"] else "")]
        errors = errors or error.errors()
        # A misspelt key explains the "missing" error next to it: report the misspelling.
        errors.sort(key=lambda e: e["type"] != "extra_forbidden")
        first = errors[0]
        loc = tuple(part for part in first["loc"] if not _is_union_tag(part))
        message = first["msg"].removeprefix("Value error, ")
        named = re.match(r"^([A-Za-z_][\w.]*): ", message)
        if not loc and named:
            # A cross-field check names its field first: point at that field's line.
            loc = tuple(named.group(1).split("."))
            message = message[named.end() :]
        line = line_of(loc, lines)
        where = f"line {line}: " if line is not None else ""
        if first["type"] == "extra_forbidden":
            message = "unknown field"
        value = first.get("input")
        quiet = first["type"] in ("missing", "extra_forbidden") or isinstance(value, dict | list)
        shown = "" if quiet else f" (got {_shorten(repr(value))})"
        more = len(errors) - 1
        tail = f" [+{more} more]" if more else ""
        raise RagauditError(
            f"{what} {path}: {where}field {dotted(loc)}: {message}{shown}{tail}"
        ) from error


def _shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_type_tag(part: Any) -> bool:
    return isinstance(part, str) and (part in {"int", "float", "str", "bool"} or "[" in part)


def _is_union_tag(part: Any) -> bool:
    # pydantic puts the union member's name into loc ('str', 'PhrasingSpec'); our field
    # names are lower_snake, so a capitalised or bracketed part is a member name.
    # a private model (`_Model`) is a member name too
    return isinstance(part, str) and (_is_type_tag(part) or part.lstrip("_")[:1].isupper())
