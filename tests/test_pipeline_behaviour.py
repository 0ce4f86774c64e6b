"""A run made now equals the run made before the house was rebuilt (issue 24).

tests/data/behaviour_n1.json is the results file of an n=1 run made at e69309b, the commit
before the restructuring, with llama.cpp pinned to one thread (RAGAUDIT_LLM_THREADS=1, which
keys greedy replies). The same command run now, over an empty data folder, must give the same
file apart from what a run never repeats: when it ran, how long it took, where its files are
and the machine it ran on.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

BEFORE = Path(__file__).parent / "data" / "behaviour_n1.json"

ARGS = [
    "run", "--n", "1", "--embedders", "local:minilm", "--generator", "local:qwen2.5-0.5b",
    "--gen-configs", "B", "--gen-probes", "control", "distractor", "negation", "superseded",
    "summarisation", "table_split", "unanswerable", "--max-tokens", "96", "--no-extra-configs",
]  # fmt: skip

# Keys whose values a rerun never repeats: times, durations, the machine's core count.
VOLATILE_KEYS = {"created_at", "elapsed_seconds", "sessions", "workers", "cpu_count"}
VOLATILE_SUFFIXES = ("_seconds", "_at", "_ms")
# Added on purpose since the snapshot: the prompt record (issue 26) and more abstention
# patterns (plain-language refusals); the old patterns must all remain, checked below, and
# every verdict is still compared exactly.
ADDED_KEYS = {"prompt_used", "grading_patterns"}


def stable(value, home: str):
    """`value` without the volatile keys, and with the data folder's path written as <home>."""
    if isinstance(value, dict):
        return {
            key: stable(item, home)
            for key, item in value.items()
            if key not in VOLATILE_KEYS | ADDED_KEYS and not key.endswith(VOLATILE_SUFFIXES)
        }
    if isinstance(value, list):
        return [stable(item, home) for item in value]
    if isinstance(value, str):
        return value.replace(home, "<home>")
    return value


def differences(before, now, where="") -> list[str]:
    """Where two JSON values differ, as dotted paths (the first few)."""
    if isinstance(before, dict) and isinstance(now, dict):
        out = []
        for key in sorted(set(before) | set(now)):
            if key not in before or key not in now:
                out.append(f"{where}.{key} only {'now' if key in now else 'before'}")
            else:
                out += differences(before[key], now[key], f"{where}.{key}")
        return out
    if isinstance(before, list) and isinstance(now, list) and len(before) == len(now):
        pairs = enumerate(zip(before, now, strict=True))
        return [d for i, (b, n) in pairs for d in differences(b, n, f"{where}[{i}]")]
    if isinstance(before, float) and isinstance(now, float):
        # Embedding floats differ in the 7th digit across CPUs (SIMD paths); any
        # change that matters moves a rank, a verdict or a count, compared exactly.
        close = math.isclose(before, now, rel_tol=1e-5, abs_tol=1e-7)
        return [] if close else [f"{where}: {before!r} -> {now!r}"]
    return [] if before == now else [f"{where}: {str(before)[:80]!r} -> {str(now)[:80]!r}"]


@pytest.mark.slow
def test_a_run_now_equals_the_run_before_the_restructuring(tmp_path):
    env = {**os.environ, "RAGAUDIT_HOME": str(tmp_path), "RAGAUDIT_LLM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "ragaudit", *ARGS],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    now = json.loads((tmp_path / "results" / "latest.json").read_text())
    before = json.loads(BEFORE.read_text())
    found = differences(stable(before, "/work/basehome"), stable(now, str(tmp_path)))
    for kind, patterns in before["grading_patterns"].items():
        kept = set(now["grading_patterns"][kind])
        found += [f"grading_patterns.{kind} lost {p!r}" for p in patterns if p not in kept]
    assert not found, "\n".join(found[:20])
    # The comparison is not vacuous: the file holds generated, graded records.
    answered = [r for r in now["instances"] if (r["generation"] or {}).get("reply")]
    assert len(now["instances"]) == 77 and answered
