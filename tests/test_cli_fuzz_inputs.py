"""Fuzz (issue 11's acceptance): every file ragaudit reads — results, configs, settings,
cases, corpus files, the model-call cache — mutated many ways (random bytes, truncations,
wrong types per field, NaN/Infinity, deep nesting, a 10 MB line, empty, BOM), each fed to
the cheapest real command that parses it. Every case must end in a documented exit status
with at most one line on stderr and no traceback, and leave its input byte for byte as it
was (sha256 before and after). Most cases call the CLI's `main` in-process; a few run the
installed `ragaudit` script to prove the real entry point. The seed is SEED; the number of
cases is printed."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from helpers.analysis_fixtures import analysed_results

from ragaudit.backends.cache import CallCache
from ragaudit.cli.main import main

SEED = 1111
TEN_MB = 10 * 2**20
WRONG = [None, True, 0, -1, 1.5, 10**30, "", "x", [], [1, [2]], {}, {"a": {"b": 1}}]
"""Values of the wrong type (or range) put in place of a field's value, a few per field."""
RAGAUDIT = [str(Path(sys.executable).parent / "ragaudit")]
"""The installed console script (the real entry point), not a shell shim."""

CONFIGS = "- {name: X, splitter: recursive, chunk_size: 600, overlap: 60, k: 5}\n"
SETTINGS = (
    "name: production\nembedder: local:minilm\nsplitter: recursive\nchunk_size: 400\n"
    "overlap: 40\nk: 2\ncandidate_pool: 8\nper_source_cap: 1\n"
    "floor: {source_type: statutes, slots: 1, min_score: 0.1}\nbackfill_range: 6\n"
    "min_score: null\nsplit_subsections: true\n"
)
CASES = (
    "intents:\n  - intent: tools\n    expect: [statutes/act]\n    phrasings:\n"
    "      - {id: formal, q: Are professional tools excluded from the estate}\n"
    "      - q: Do a carpenter's work tools count for estate tax\n"
)
CORPUS_JSONL = [
    {"id": "statutes/act", "text": "Professional tools of the decedent are excluded from the "
     "estate.", "source_type": "statutes", "metadata": {"year": 2020}},
    {"id": "guides/deadline", "text": "File the estate tax return within nine months.",
     "source_type": "guides"},
]  # fmt: skip


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


def cache_mutations(rng: random.Random, valid: bytes, folder: Path) -> list[tuple[str, bytes]]:
    """A real cache file damaged the ways a disk, a copy or a person damages one."""
    page = 4096
    middle = len(valid) // page // 2 * page
    cases = [("valid", valid), *byte_mutations(rng, valid)]
    cases += [(f"page-aligned-cut-{n}", valid[: n * page]) for n in (1, 2, len(valid) // page - 1)]
    cases.append(("mid-file-zeros", valid[:middle] + bytes(4 * page) + valid[middle + 4 * page :]))
    garbage = rng.randbytes(page)
    cases.append(("mid-file-garbage", valid[:middle] + garbage + valid[middle + page :]))
    for offset, name in ((16, "page-size"), (18, "format-versions"), (28, "page-count")):
        flipped = bytearray(valid)
        flipped[offset : offset + 4] = rng.randbytes(4)
        cases.append((f"header-{name}", bytes(flipped)))
    cases.append(("huge-tail", valid + rng.randbytes(TEN_MB)))
    for name, sql in (
        ("foreign-table", "CREATE TABLE notes (x)"),
        ("calls-wrong-columns", "CREATE TABLE calls (key TEXT, v BLOB)"),
    ):
        cases.append((name, _sqlite_file(folder / f"{name}.sqlite", b"", sql)))
    version = _sqlite_file(folder / "version.sqlite", valid, "PRAGMA user_version=7")
    cases.append(("wrong-user-version", version))
    return cases


def _sqlite_file(path: Path, start: bytes, sql: str) -> bytes:
    path.write_bytes(start)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute(sql)
    conn.commit()
    conn.close()
    return path.read_bytes()


# -- running them ---------------------------------------------------------------------------


class Fuzz:
    """Runs each case through `ragaudit ...` in-process and keeps what went wrong."""

    def __init__(self, capsys, folder: Path) -> None:
        self.capsys, self.folder = capsys, folder
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
        if status not in allowed:
            self.problems.append(f"{where}: exit {status}; stderr {err[:300]!r}")
        elif err.count("\n") > 1 or "Traceback" in err:
            self.problems.append(f"{where}: stderr is not one line: {err[:300]!r}")
        if sha256(file) != before and not (kind == "cache" and name == "empty"):
            self.problems.append(f"{where}: the input file changed")
        self.ran[kind] = self.ran.get(kind, 0) + 1
        self.status[kind, name] = status
        return status if isinstance(status, int) else -1

    def each(self, kind: str, suffix: str, cases: list[tuple[str, bytes]], argv: Callable):
        """Write each case to a file of `suffix` and run `argv(file)` on it."""
        allowed = ALLOWED[kind]
        for number, (name, data) in enumerate(cases):
            file = self.folder / kind / f"{number:03d}{suffix}"
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(data)
            self.case(kind, name, argv(file), allowed, file)


ALLOWED = {
    "results": {0, 2},
    "configs": {2},  # a valid file loads, then --gen-configs NOPE is refused: no run starts
    "settings": {0, 2},
    "settings-json": {0, 2},
    "cases": {0, 1, 2},  # 1: a case failed (the audit's CI verdict)
    "corpus": {0, 1, 2},
    "cache": {0, 2},
    "export": {0, 2},
    "compare-a": {0, 2},
    "compare-b": {0, 2},
}


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A tiny folder corpus, a case file, and a data folder of its own."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("RAGAUDIT_HOME", str(home))
    for record in CORPUS_JSONL:
        path = tmp_path / "corpus" / f"{record['id']}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(record["text"])
    (tmp_path / "cases.yaml").write_text(CASES)
    return tmp_path


def corpus_mutations(rng: random.Random) -> list[tuple[str, bytes]]:
    """The JSONL corpus: every line a document, so deep nesting and the 10 MB line are
    one record among valid ones."""
    valid = as_jsonl(CORPUS_JSONL)
    cases = [("valid", valid), *byte_mutations(rng, valid)]
    cases += wrong_types(rng, CORPUS_JSONL, as_jsonl, 3, 3, 12)
    deep = json.dumps({"id": "deep", "text": "t", "metadata": "@"})
    cases.append(("deep-line", valid + deep.replace('"@"', "[" * 10_000 + "]" * 10_000).encode()))
    huge = {"id": "huge", "text": "short", "metadata": {"blob": "x" * TEN_MB}}
    cases.append(("huge-line", as_jsonl([*CORPUS_JSONL, huge])))
    return cases


def valid_cache(folder: Path) -> bytes:
    """A real cache of 300 stored calls, closed (its WAL folded into the file)."""
    path = folder / "valid.sqlite"
    cache = CallCache(path)
    rng = random.Random(SEED)
    cache.put_many("local:minilm", "embed", [(f"k{i}", rng.randbytes(1536)) for i in range(300)])
    cache.close()
    return path.read_bytes()


def test_every_file_input_is_refused_in_one_line_and_left_as_it_was(workspace, capsys):
    rng = random.Random(SEED)
    fuzz = Fuzz(capsys, workspace / "cases")
    corpus, cases_file, out = workspace / "corpus", workspace / "cases.yaml", workspace / "out"
    fixed = {path: sha256(path) for path in [cases_file, *corpus.rglob("*.txt")]}
    results = json.loads(json.dumps(analysed_results()))
    results_cases = document_mutations(rng, results, as_json, depth=3, per_field=2, limit=70)
    fuzz.each("results", ".json", results_cases, lambda f: ["report", "--results", str(f),
              "--out", str(out)])  # fmt: skip
    configs = document_mutations(rng, yaml.safe_load(CONFIGS), as_yaml, depth=2, per_field=3,
                                 limit=20)  # fmt: skip
    fuzz.each("configs", ".yaml", configs, lambda f: ["run", "--configs", str(f),
              "--gen-configs", "NOPE"])  # fmt: skip
    settings = yaml.safe_load(SETTINGS)
    for kind, dump, suffix in (("settings", as_yaml, ".yaml"), ("settings-json", as_json, ".json")):
        mutated = document_mutations(rng, settings, dump, depth=2, per_field=2, limit=12)
        fuzz.each(kind, suffix, mutated, lambda f: ["drift", str(f), str(f)])
        fuzz.each(kind, suffix, mutated, lambda f: ["audit", str(corpus), "--dilution",
                  "--settings", str(f), "--out", str(out / "audit.json")])  # fmt: skip
    case_files = document_mutations(rng, yaml.safe_load(CASES), as_yaml, depth=5, per_field=2,
                                    limit=16)  # fmt: skip
    fuzz.each("cases", ".yaml", case_files, lambda f: ["audit", str(corpus), str(f), "--out",
              str(out / "audit.json")])  # fmt: skip
    fuzz.each("corpus", ".jsonl", corpus_mutations(rng), lambda f: ["audit", str(f),
              str(cases_file), "--out", str(out / "audit.json")])  # fmt: skip
    _fuzz_the_cache(fuzz, rng, workspace, corpus, out)
    assert fuzz.problems == [], "\n".join(fuzz.problems)
    # The harness can tell good from bad: each valid file (and one after a BOM) passes.
    for kind in ("results", "settings", "settings-json", "cases", "corpus"):
        assert fuzz.status[kind, "valid"] == fuzz.status[kind, "bom-then-valid"] == 0, kind
    assert fuzz.status["cache", "valid"] == 0 and fuzz.status["configs", "valid"] == 2
    assert {path: sha256(path) for path in fixed} == fixed
    total = sum(fuzz.ran.values())
    with capsys.disabled():
        print(f"\nfuzz (seed {SEED}): {total} cases, {fuzz.ran}")


def _fuzz_the_cache(fuzz: Fuzz, rng: random.Random, workspace: Path, corpus: Path, out: Path):
    """Each damaged cache put where `ragaudit audit --dilution` opens it (it opens the
    cache and checks it, then embeds nothing)."""
    home = workspace / "home"
    cache = home / "cache.sqlite"
    for name, data in cache_mutations(rng, valid_cache(workspace), workspace):
        for stale in (cache, home / "cache.sqlite-wal", home / "cache.sqlite-shm"):
            stale.unlink(missing_ok=True)
        cache.write_bytes(data)
        argv = ["audit", str(corpus), "--dilution", "--out", str(out / "audit.json")]
        status = fuzz.case("cache", name, argv, ALLOWED["cache"], cache)
        if status == 0 and name not in ("valid", "empty", "huge-tail"):
            fuzz.problems.append(f"cache/{name}: a damaged cache was accepted")


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


def test_compare_and_export_inputs_are_refused_in_one_line_and_left_as_they_were(workspace, capsys):
    """`export` and `compare` (each side) on the results file mutated every way above, and
    every record's required fields removed, nulled or of another type."""
    rng = random.Random(SEED + 1)
    fuzz = Fuzz(capsys, workspace / "cases")
    out = workspace / "out"
    out.mkdir()
    valid = workspace / "valid.json"
    results = json.loads(json.dumps(analysed_results()))
    valid.write_bytes(as_json(results))
    cases = document_mutations(rng, results, as_json, depth=3, per_field=2, limit=40)
    cases += record_mutations(results)
    fuzz.each("export", ".json", cases, lambda f: ["export", "--results", str(f), "--out",
              str(out / "records.csv")])  # fmt: skip
    fuzz.each("compare-a", ".json", cases, lambda f: ["compare", str(f), str(valid), "--out",
              str(out)])  # fmt: skip
    fuzz.each("compare-b", ".json", cases, lambda f: ["compare", str(valid), str(f), "--out",
              str(out)])  # fmt: skip
    assert fuzz.problems == [], "\n".join(fuzz.problems)
    for kind in ("export", "compare-a", "compare-b"):
        assert fuzz.status[kind, "valid"] == fuzz.status[kind, "bom-then-valid"] == 0, kind
        assert fuzz.status[kind, "instances[0].probe-absent"] == 2, kind
        assert fuzz.status[kind, "models[0].spec-list"] == 2, kind
    total = sum(fuzz.ran.values())
    with capsys.disabled():
        print(f"\nfuzz compare/export (seed {SEED + 1}): {total} cases, {fuzz.ran}")


def test_the_installed_script_prints_one_line_for_each_kind_of_bad_file(workspace):
    """The real entry point, as a user runs it: a few cases, one per command."""
    rng = random.Random(SEED)
    bad = workspace / "bad"
    bad.mkdir()
    (bad / "deep.json").write_bytes(b"[" * 10_000 + b"]" * 10_000)
    (bad / "configs.yaml").write_bytes(rng.randbytes(512))
    deep_cases = b"intents:\n  - intent: a\n    phrasings: [q]\n" + b"[" * 10_000
    (bad / "cases.yaml").write_bytes(deep_cases)
    (bad / "prod.yaml").write_bytes(b"k: 0x_\n")
    cache = workspace / "home" / "cache.sqlite"
    damaged = dict(cache_mutations(rng, valid_cache(workspace), workspace))["mid-file-zeros"]
    cache.write_bytes(damaged)
    runs = {
        "report": (["report", "--results", str(bad / "deep.json")], "not valid JSON (nested"),
        "run --configs": (["run", "--configs", str(bad / "configs.yaml")], "not UTF-8 text"),
        "run (cache)": (
            ["run", "--n", "1", "--no-generate", "--embedders", "local:minilm"],
            "not a readable ragaudit model-call cache (database disk image is malformed)",
        ),
        "audit": (["audit", str(workspace / "corpus"), str(bad / "cases.yaml")], "invalid YAML"),
        "drift": (["drift", str(bad / "prod.yaml"), str(bad / "prod.yaml")], "line 1: invalid"),
    }
    files = [*bad.iterdir(), cache]
    before = {path: sha256(path) for path in files}
    for name, (argv, words) in runs.items():
        done = subprocess.run([*RAGAUDIT, *argv], capture_output=True, text=True, timeout=300)
        assert done.returncode == 2, (name, done.stderr[-2000:])
        assert done.stderr.count("\n") == 1 and words in done.stderr, (name, done.stderr)
    assert {path: sha256(path) for path in files} == before
