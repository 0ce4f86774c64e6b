"""Retrieval constants in configuration: YAML and JSON files (every key at any depth, its
line kept, `retrieval.top_k` named by its path) and `.env` files (`TOP_K=8`, `export
TOP_K=8`, quoted or not). A value is a number or null; strings that read as numbers
count (an environment variable is always a string)."""

from __future__ import annotations

import re
from pathlib import Path

from ragaudit.codescan.sources import Location
from ragaudit.drift.found import Found, Unresolved, number
from ragaudit.fileio.lines import Loc, line_of, load_with_lines

ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*$")


def _scalar(value: object):
    if isinstance(value, bool) or isinstance(value, dict | list):
        return None, False
    if value is None:
        return None, True
    parsed = number(str(value))
    return parsed, not isinstance(parsed, Unresolved)


def config_constants(path: str, name_of) -> list[Found]:
    """Every retrieval constant a YAML or JSON file sets, in file order."""
    data, lines = load_with_lines(Path(path), "source file")
    found: list[Found] = []
    stack: list[tuple[Loc, object]] = [((), data)]
    while stack:  # a stack, not recursion: a deeply nested file is still read
        loc, node = stack.pop()
        if isinstance(node, dict):
            stack.extend(reversed([(loc + (str(k),), v) for k, v in node.items()]))
            continue
        if isinstance(node, list):
            stack.extend(reversed([(loc + (i,), v) for i, v in enumerate(node)]))
            continue
        if not loc or not isinstance(loc[-1], str):
            continue
        value, known = _scalar(node)
        name = ".".join(str(part) for part in loc)
        constant = name_of(name) if known else None
        if constant is not None:
            where = Location(path, line_of(loc, lines) or 1)
            found.append(Found(constant, name, value, where))
    return found


def env_constants(path: str, text: str, name_of) -> list[Found]:
    """Every retrieval constant a `.env` file sets (`# comments` and blank lines skipped)."""
    found: list[Found] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        match = ENV_LINE.match(line)
        if match is None or line.lstrip().startswith("#"):
            continue
        name, raw = match.groups()
        if not raw.startswith(("'", '"')):
            raw = raw.split(" #", 1)[0]  # an unquoted value ends at its comment
        value = number(raw)
        constant = name_of(name)
        if constant is not None and not isinstance(value, Unresolved):
            found.append(Found(constant, name, value, Location(path, line_number)))
    return found
