"""Fuzz (issue 11's acceptance): every file ragaudit reads — results, configs, settings,
cases, corpus files, the model-call cache — mutated many ways (random bytes, truncations,
wrong types per field, NaN/Infinity, deep nesting, a 10 MB line, empty, BOM), each fed to
the cheapest real command that parses it. Every case must end in a documented exit status
with at most one line on stderr and no traceback, and leave its input byte for byte as it
was (sha256 before and after). Most cases call the CLI's `main` in-process; a few run the
installed `ragaudit` script to prove the real entry point. The seed is SEED; the number of
cases is printed."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
from pathlib import Path

import pytest
import yaml
from helpers.analysis_fixtures import analysed_results
from helpers.fuzz import (
    RAGAUDIT,
    SEED,
    TEN_MB,
    Fuzz,
    as_json,
    as_jsonl,
    as_yaml,
    byte_mutations,
    document_mutations,
    record_mutations,
    sha256,
    wrong_types,
)

from ragaudit.backends.cache import CallCache

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


@pytest.mark.slow(model=False)  # hundreds of CLI runs (10-20 s): the full suite, not the fast loop
def test_every_file_input_is_refused_in_one_line_and_left_as_it_was(workspace, capsys):
    rng = random.Random(SEED)
    fuzz = Fuzz(capsys, workspace / "cases", ALLOWED)
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


@pytest.mark.slow(model=False)  # hundreds of CLI runs (10-20 s): the full suite, not the fast loop
def test_compare_and_export_inputs_are_refused_in_one_line_and_left_as_they_were(workspace, capsys):
    """`export` and `compare` (each side) on the results file mutated every way above, and
    every record's required fields removed, nulled or of another type."""
    rng = random.Random(SEED + 1)
    fuzz = Fuzz(capsys, workspace / "cases", ALLOWED)
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
