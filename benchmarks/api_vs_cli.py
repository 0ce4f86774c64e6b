"""The library against the command on the same work: `ragaudit mutate` on examples/mutate,
retrieval-only, and `ragaudit.mutate(...).save(...)`, each in a fresh process, alternating,
over one warm data folder (the same cache state: a first untimed run fills it).

Prints each side's median and spread (min..max) over `--runs` runs and the median ratio
library / command; the goal is at most 1.05.

    python -m benchmarks.api_vs_cli [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS, CASES = "examples/mutate/corpus", "examples/mutate/cases.yaml"
SETTINGS = "examples/mutate/recursive.yaml"


def _cli(out: Path) -> list[str]:
    return [sys.executable, "-m", "ragaudit", "mutate", CORPUS, CASES, "--settings", SETTINGS,
            "--no-generate", "--out", str(out)]  # fmt: skip


def _api(out: Path) -> list[str]:
    code = (
        "import ragaudit\n"
        f"ragaudit.mutate({CORPUS!r}, {CASES!r}, settings={SETTINGS!r}, generate=False, "
        f"progress=False).save({str(out)!r})"
    )
    return [sys.executable, "-c", code]


def _timed(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):  # 1: a mutant survived
        raise SystemExit(f"failed: {' '.join(command[:4])}: {done.stderr[-500:]}")
    return time.perf_counter() - started


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.api_vs_cli")
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args(argv).runs
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "RAGAUDIT_HOME": str(Path(folder) / "home")}
        out = Path(folder) / "r.json"
        _timed(_cli(out), env)  # fills the cache: both sides then replay alike
        cli, api = [], []
        for _ in range(runs):
            cli.append(_timed(_cli(out), env))
            api.append(_timed(_api(out), env))
    for name, times in (("command", cli), ("library", api)):
        print(f"{name:8} median {statistics.median(times):6.2f} s  "
              f"spread {min(times):.2f}..{max(times):.2f} s  ({runs} runs)")  # fmt: skip
    ratio = statistics.median(api) / statistics.median(cli)
    print(f"library / command: {ratio:.3f} (goal <= 1.05)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
