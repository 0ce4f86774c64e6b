"""`python -m benchmarks.pipeline` runs by its name from a checkout (tiny sizes): the >= 0.95
goal stands beside each measured zero-delay ratio (http and factory), whose timed path
locates the contexts; the 5 ms line is an extra without a goal; --workers 4 against 1
carries the >= 3.5 goal."""

from __future__ import annotations

import re
import subprocess
import sys

from ragaudit.paths import REPO_ROOT


def test_the_pipeline_bench_runs_by_name():
    argv = ["-m", "benchmarks.pipeline", "--questions", "12", "--rounds", "1",
            "--workers-questions", "8", "--delay", "0.01"]  # fmt: skip
    done = subprocess.run([sys.executable, *argv], cwd=REPO_ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    goals = [line for line in lines if "goal >= 0.95" in line]
    assert [line.split(":")[0] for line in goals] == ["http adapter", "factory adapter"]
    assert all("(contexts located)" in line for line in goals)
    assert all(re.search(r"ratio \d+\.\d+ \(goal >= 0\.95: (met|NOT met)\)", g) for g in goals)
    (extra,) = [line for line in lines if "5 ms" in line]
    assert "goal" not in extra.replace("not the goal's measure", "")
    (workers,) = [line for line in lines if line.startswith("--workers 4")]
    assert re.search(r"\d+\.\d\dx \(goal >= 3\.5: (met|NOT met)\)$", workers)
