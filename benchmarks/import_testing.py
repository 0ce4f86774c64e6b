"""What `import ragaudit.testing` costs (pytest loads it in every session, through its
`pytest11` entry point), beside `import ragas` and `import deepeval` in the same
environment: each import timed in a fresh interpreter, `--runs` times (median and spread),
with the modules it added and the heavy libraries among them.

`ragaudit.testing` imports pytest, which a pytest session has already loaded, so it is
timed twice: alone, and after `import pytest` (what a session pays).

    python -m benchmarks.import_testing [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers", "sentence_transformers", "onnxruntime", "tokenizers",
         "chromadb", "llama_index", "langchain", "langchain_core", "openai", "xllamacpp",
         "pandas", "numpy", "scipy", "sklearn", "datasets", "pyarrow")  # fmt: skip
"""Libraries whose import a test session should not pay for unless it uses them."""

SUBJECTS = (
    ("ragaudit.testing", ""),
    ("ragaudit.testing", "pytest"),
    ("ragas", ""),
    ("deepeval", ""),
)
"""(module timed, module imported before the clock starts)."""

PROBE = """
import sys, time, json
if {before!r}:
    __import__({before!r})
loaded = set(sys.modules)
started = time.perf_counter()
__import__({module!r})
seconds = time.perf_counter() - started
added = {{m.split('.')[0] for m in set(sys.modules) - loaded}}
print(json.dumps({{"seconds": seconds, "added": len(set(sys.modules) - loaded),
                  "heavy": sorted(added & set({heavy!r}))}}))
"""


def measure(module: str, before: str, folder: Path) -> dict:
    """One fresh interpreter's import of `module` (after `before`)."""
    code = PROBE.format(module=module, before=before, heavy=HEAVY)
    env = {**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "YES", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def label(module: str, before: str) -> str:
    return f"import {module}" + (f" (after import {before})" if before else "")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.import_testing")
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args(argv).runs
    rows: dict[tuple[str, str], dict] = {}
    with tempfile.TemporaryDirectory() as folder:  # deepeval writes .deepeval/ where it runs
        for _ in range(runs):  # alternating, so a slow moment of the machine hits all alike
            for subject in SUBJECTS:
                found = measure(*subject, Path(folder))
                row = rows.setdefault(subject, {**found, "seconds": []})
                if "error" not in found:
                    row["seconds"].append(found["seconds"])
    ours = statistics.median(rows[SUBJECTS[0]]["seconds"])
    for subject, row in rows.items():
        if "error" in row:
            print(f"{label(*subject):45} not importable here: {row['error']}")
            continue
        times = row["seconds"]
        median = statistics.median(times)
        heavy = ", ".join(row["heavy"]) or "none"
        print(
            f"{label(*subject):45} median {median:6.3f} s  spread {min(times):.3f}..."
            f"{max(times):.3f} s  x{median / ours:7.2f} of ragaudit.testing  "
            f"{row['added']} modules added; heavy: {heavy}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
