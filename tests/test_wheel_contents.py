"""`pip install .` ships no benchmark or test code: a wheel built from the whole checkout
(benchmarks/ and tests/ beside the package, as a person's clone has them) holds neither
benchmarks/, the old ragaudit/bench/, nor anything under tests/ (the fixture and the
stand-in servers the benchmarks share with the tests live there)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent
# a checkout's working state, not its source: runs, caches and earlier builds
NOT_SOURCE = (".git", "data", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".*_cache")


def wheel_paths(checkout: Path, work: Path) -> list[str]:
    """The file paths inside a wheel built (not editable) from a copy of `checkout`."""
    source = work / "source"
    shutil.copytree(checkout, source, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    out = work / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(out), str(source)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (built,) = out.glob("ragaudit-*.whl")
    return zipfile.ZipFile(built).namelist()


def dev_only(paths: list[str]) -> list[str]:
    """The paths a wheel must not carry: benchmark code and test code."""
    return [
        path
        for path in paths
        if path.startswith("benchmarks/") or "ragaudit/bench/" in path or "tests/" in path
    ]


def test_the_check_sees_benchmark_and_test_paths():
    # not vacuous: each kind of dev-only path is caught, a shipped one is not
    paths = [
        "benchmarks/ui.py",
        "ragaudit/bench/matrix.py",
        "tests/helpers/stand_in.py",
        "ragaudit/_shipped/tests/x.py",
        "ragaudit/results/io.py",
        "ragaudit/_shipped/pages/lab.py",
    ]
    assert dev_only(paths) == paths[:4]


@pytest.mark.slow(model=False)
def test_the_wheel_ships_no_benchmark_or_test_code(tmp_path):
    assert (CHECKOUT / "benchmarks" / "__init__.py").is_file()  # there to be left out
    paths = wheel_paths(CHECKOUT, tmp_path)
    assert "ragaudit/cli/main.py" in paths  # the package itself is there
    assert dev_only(paths) == []
