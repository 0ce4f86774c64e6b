"""The CLI is a shell over the library: for `run --n 1 --no-generate`, `mutate` and
`audit` on their examples (mutate on five of its cases), and `gate`, the command's file
and the library's `.save()` are equal apart from what differs between any two runs
(timestamps, durations, the command line a file records, and call counts: the second run
replays what the first computed).

Both sides run in subprocesses against one data folder, so they share the call cache as two
runs of a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VOLATILE = {
    "created_at", "elapsed_seconds", "elapsed_seconds_reason", "seconds", "argv", "calls",
    "duration_seconds", "started_at", "finished_at", "wall_seconds", "sessions",
    "failure_reasons", "replayed", "timing", "calls_by_model",
    "added",  # chunks a Chroma collection gained: the second run finds them there
}  # fmt: skip
"""Keys whose values differ between two runs of the same work (compared as present)."""


def stable(value: object) -> object:
    """`value` with every VOLATILE key's value blanked, recursively."""
    if isinstance(value, dict):
        return {k: ("<volatile>" if k in VOLATILE else stable(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def command(args: list[str], home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAGAUDIT_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "ragaudit", *args], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def library(code: str, home: Path) -> None:
    env = {**os.environ, "RAGAUDIT_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-c", f"import ragaudit\n{code}"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]


def same_document(cli: Path, api: Path) -> None:
    a = stable(json.loads(cli.read_text(encoding="utf-8")))
    b = stable(json.loads(api.read_text(encoding="utf-8")))
    assert a.keys() == b.keys()
    for key in a:
        assert a[key] == b[key], f"{key} differs"


def test_the_stable_view_blanks_what_differs_between_runs_and_keeps_the_rest():
    one = {"created_at": "1", "run": {"argv": ["a"], "n": 2}, "cells": [{"seconds": 3, "k": 1}]}
    two = {"created_at": "9", "run": {"argv": ["b"], "n": 2}, "cells": [{"seconds": 7, "k": 1}]}
    assert stable(one) == stable(two)
    assert stable({"run": {"n": 2}}) != stable({"run": {"n": 3}})


@pytest.mark.slow(model=False)  # whole retrieval-only runs; no generator
def test_mutate_cli_file_equals_the_library_save(tmp_path):
    # five of the example's fourteen intents, every kind of outcome among them: 20 mutants
    # where the whole file makes 56
    corpus, cases = "examples/mutate/corpus", "tests/helpers/mutate_cases.yaml"
    settings = "examples/mutate/recursive.yaml"
    cli = tmp_path / "cli.json"
    done = command(["mutate", corpus, cases, "--settings", settings, "--no-generate",
                    "--out", str(cli)], tmp_path / "home")  # fmt: skip
    assert done.returncode in (0, 1), done.stderr[-2000:]  # 1: a mutant survived
    api = tmp_path / "api.json"
    library(
        f"ragaudit.mutate({corpus!r}, {cases!r}, settings={settings!r}, generate=False, "
        f"progress=False).save({str(api)!r})",
        tmp_path / "home",
    )
    same_document(cli, api)


@pytest.mark.slow(model=False)  # whole retrieval-only runs; no generator
def test_audit_cli_file_equals_the_library_save(tmp_path):
    corpus, cases = "examples/audit/corpus", "examples/audit/cases.yaml"
    settings = "examples/audit/prod.yaml"
    cli = tmp_path / "cli.json"
    done = command(["audit", corpus, cases, "--settings", settings, "--dilution",
                    "--out", str(cli)], tmp_path / "home")  # fmt: skip
    assert done.returncode in (0, 1), done.stderr[-2000:]
    api = tmp_path / "api.json"
    library(
        f"ragaudit.audit({corpus!r}, {cases!r}, settings={settings!r}, dilution=True, "
        f"progress=False).save({str(api)!r})",
        tmp_path / "home",
    )
    same_document(cli, api)


@pytest.mark.slow(model=False)  # whole retrieval-only runs; no generator
def test_a_small_retrieval_only_run_cli_file_equals_the_library_save(tmp_path):
    # n=1 (`--n` runs the full preset's matrix, both default embedders): the same document,
    # every config, probe and embedder role, in 148 model calls where --quick's n=5 is 782
    cli = tmp_path / "cli.json"
    done = command(["run", "--n", "1", "--no-generate", "--out", str(cli)],
                   tmp_path / "home")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    api = tmp_path / "api.json"
    library(
        f"ragaudit.run('full', n=1, generate=False, progress=False).save({str(api)!r})",
        tmp_path / "home",
    )
    same_document(cli, api)


def test_gate_cli_summary_equals_the_library_verdicts(tmp_path):
    from helpers.gate_fixtures import gate_run, write_run  # the gate tests' runs

    all5, one_of_5 = [True] * 5, [True, False, False, False, False]
    baseline = write_run(tmp_path / "a.json", gate_run({("boundary", "C"): all5}))
    results = write_run(tmp_path / "b.json", gate_run({("boundary", "C"): one_of_5}))
    summary = tmp_path / "cli.md"
    done = command(["gate", "--baseline", str(baseline), "--results", str(results),
                    "--summary", str(summary)],
                   tmp_path / "home")  # fmt: skip
    import ragaudit
    from ragaudit.gating.summary import markdown

    verdict = ragaudit.gate(baseline, results)
    assert done.returncode == 1 and len(verdict.failed) == 1  # 5/5 -> 1/5: a loss
    assert summary.read_text(encoding="utf-8") == markdown(verdict)
