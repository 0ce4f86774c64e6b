"""The fuzz tests' shared toolkit: mutations of a valid input (random bytes, truncations,
wrong types per field, NaN/Infinity, deep nesting, a 10 MB line, empty, BOM), writers for
each format, and `Fuzz`, which runs each case through the CLI in-process and keeps what went
wrong (a status not allowed, more than one stderr line, a traceback, a changed input)."""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import yaml

from ragaudit.cli.main import main

SEED = 1111
TEN_MB = 10 * 2**20
WRONG = [None, True, 0, -1, 1.5, 10**30, "", "x", [], [1, [2]], {}, {"a": {"b": 1}}]
"""Values of the wrong type (or range) put in place of a field's value, a few per field."""
RAGAUDIT = [str(Path(sys.executable).parent / "ragaudit")]
"""The installed console script (the real entry point), not a shell shim."""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- mutations ------------------------------------------------------------------------------


def byte_mutations(rng: random.Random, valid: bytes) -> Iterator[tuple[str, bytes]]:
    """What every file gets: random bytes, truncations, empty, a BOM."""
    for i in range(4):
        yield f"random-bytes-{i}", rng.randbytes(rng.randrange(1, 4096))
    yield "random-text", "".join(chr(rng.randrange(32, 0x2FF)) for _ in range(2000)).encode()
    for cut in sorted(rng.sample(range(1, len(valid)), 6)):
        yield f"truncated-at-{cut}", valid[:cut]
    yield "empty", b""
    yield "bom-only", b"\xef\xbb\xbf"
    yield "bom-then-valid", b"\xef\xbb\xbf" + valid


def text_mutations(valid: bytes, json_like: bool) -> Iterator[tuple[str, bytes]]:
    """Deep nesting and a 10 MB line (a comment in YAML, a string value in JSON)."""
    yield "deep-lists", b"[" * 10_000 + b"]" * 10_000
    yield "deep-maps", b'{"a": ' * 10_000 + b"1" + b"}" * 10_000
    if json_like:
        document = json.loads(valid)
        yield "huge-line", json.dumps({**document, "padding": "x" * TEN_MB}).encode()
    else:
        yield "huge-line", valid + b"# " + b"x" * TEN_MB + b"\n"


def field_paths(data, depth: int, prefix: tuple = ()) -> Iterator[tuple]:
    """Each field down to `depth`: every key of a mapping, the first item of a list."""
    if depth == 0:
        return
    items = data.items() if isinstance(data, dict) else enumerate(data[:1])
    for key, value in items if isinstance(data, dict | list) else ():
        yield (*prefix, key)
        if isinstance(value, dict | list):
            yield from field_paths(value, depth - 1, (*prefix, key))


def replaced(data, path: tuple, value):
    """A deep copy of `data` with the field at `path` set to `value`."""
    copy = json.loads(json.dumps(data))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copy


def wrong_types(
    rng: random.Random, data, dump: Callable, depth: int, per_field: int, limit: int
) -> Iterator[tuple[str, bytes]]:
    """Each field (at most `limit`, sampled) given `per_field` wrong values, and a number
    given NaN and ±Infinity."""
    paths = list(field_paths(data, depth))
    for path in sample_fields(rng, paths, limit):
        for value in rng.sample(WRONG, per_field):
            yield f"{'.'.join(map(str, path))}={value!r:.20}", dump(replaced(data, path, value))
    numbers = [p for p in paths if _is_number(data, p)] or paths  # else in place of any
    for constant in (float("nan"), float("inf"), float("-inf")):
        path = rng.choice(numbers)
        yield f"{'.'.join(map(str, path))}={constant}", dump(replaced(data, path, constant))


def sample_fields(rng: random.Random, paths: list[tuple], limit: int) -> list[tuple]:
    """Every top-level field, then up to three fields under each parent (a cell, an
    instance, a chunk…), `limit` in all: a file with 500 chunks is not 500 chunk tests."""
    by_parent: dict[tuple, list[tuple]] = {}
    for path in paths:
        by_parent.setdefault(path[:-1], []).append(path)
    top = by_parent.pop((), [])
    deeper = [p for group in by_parent.values() for p in rng.sample(group, min(3, len(group)))]
    return top + rng.sample(deeper, max(0, min(limit - len(top), len(deeper))))


def _is_number(data, path: tuple) -> bool:
    for key in path:
        data = data[key]
    return isinstance(data, int | float) and not isinstance(data, bool)


def as_json(data) -> bytes:
    return json.dumps(data).encode()  # NaN / Infinity written as Python's json does


def as_yaml(data) -> bytes:
    return yaml.safe_dump(data, sort_keys=False).encode()


def as_jsonl(records) -> bytes:
    return "".join(json.dumps(record) + "\n" for record in records).encode()


def document_mutations(
    rng: random.Random, data, dump: Callable, *, depth: int, per_field: int, limit: int
) -> list[tuple[str, bytes]]:
    """Every mutation of one document: the valid file itself first."""
    valid = dump(data)
    cases = [("valid", valid), *byte_mutations(rng, valid)]
    cases += text_mutations(valid, json_like=dump is not as_yaml)
    cases += wrong_types(rng, data, dump, depth, per_field, limit)
    return cases


PROGRESS_LINE = re.compile(r"^\[[^\]]+\] [#-]+ \d+/\d+ .* elapsed  ETA ")
"""A progress bar's line (pipeline.progress) on stderr."""


class Fuzz:
    """Runs each case through `ragaudit ...` in-process and keeps what went wrong."""

    def __init__(self, capsys, folder: Path, allowed: dict[str, set[int]] | None = None) -> None:
        self.capsys, self.folder = capsys, folder
        self.allowed = allowed or {}
        """The exit statuses each kind of case may end in (for `each`)."""
        self.ran: dict[str, int] = {}
        self.problems: list[str] = []
        self.status: dict[tuple[str, str], object] = {}

    def case(self, kind: str, name: str, argv: list[str], allowed: set[int], file: Path) -> int:
        """One case: `argv` must exit with a status in `allowed`, at most one stderr line,
        and leave `file` as it was. Returns the status."""
        before = sha256(file)
        try:
            status = main(argv)
        except BaseException as error:  # a traceback, had it been the real process
            status = f"raised {type(error).__name__}: {error}"[:300]
        err = self.capsys.readouterr().err
        where = f"{kind}/{name}"
        # a run that goes ahead shows its progress bars; anything else is one line at most
        said = [line for line in err.splitlines() if not PROGRESS_LINE.match(line)]
        if status not in allowed:
            self.problems.append(f"{where}: exit {status}; stderr {err[:300]!r}")
        elif (
            len(said) > 1
            or "Traceback" in err
            or (status == 2 and len(said) != len(err.splitlines()))
        ):
            self.problems.append(f"{where}: stderr is not one line: {err[:300]!r}")
        if sha256(file) != before and not (kind == "cache" and name == "empty"):
            self.problems.append(f"{where}: the input file changed")
        self.ran[kind] = self.ran.get(kind, 0) + 1
        self.status[kind, name] = status
        return status if isinstance(status, int) else -1

    def each(self, kind: str, suffix: str, cases: list[tuple[str, bytes]], argv: Callable):
        """Write each case to a file of `suffix` and run `argv(file)` on it."""
        allowed = self.allowed[kind]
        for number, (name, data) in enumerate(cases):
            file = self.folder / kind / f"{number:03d}{suffix}"
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(data)
            self.case(kind, name, argv(file), allowed, file)


def record_mutations(data: dict) -> list[tuple[str, bytes]]:
    """Each list's first record without each field the loader requires of it, and with
    it null or of another type (docs/results-schema.md), e.g. `instances[0]` without
    `probe`."""
    required = {
        "instances": ("key", "probe", "instance_id", "config", "embedder"),
        "cells": ("probe", "config", "embedder", "measures"),
        "models": ("spec",), "configs": ("name",), "embedders": ("spec",),
    }  # fmt: skip
    cases = []
    for name, fields in required.items():
        for field in fields:
            for label, value in (("absent", ...), ("null", None), ("list", ["list"]), ("int", 7)):
                copy = json.loads(json.dumps(data))
                if value is ...:
                    del copy[name][0][field]
                else:
                    copy[name][0][field] = value
                cases.append((f"{name}[0].{field}-{label}", as_json(copy)))
    return cases
