"""`ragaudit drift` and `ragaudit harness-check` on hostile JavaScript (issue 25, item 20):
100,000 nested parentheses and 50,000 nested objects end in a handled result, never a
RecursionError traceback; a FIFO given to harness-check is named as a FIFO, not as a path
that does not exist. Each is the installed command, run as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

RAGAUDIT = [str(Path(sys.executable).parent / "ragaudit")]
PARENS = 100_000
OBJECTS = 50_000


def ragaudit(home: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAGAUDIT_HOME": str(home)}
    return subprocess.run([*RAGAUDIT, *argv], capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture
def sources(tmp_path):
    """The two hostile files and a plain one setting the same constant."""
    parens = tmp_path / "parens.js"
    parens.write_text("const TOP_K = " + "(" * PARENS + "5" + ")" * PARENS + ";\n")
    objects = tmp_path / "objects.js"
    objects.write_text(
        "const settings = " + "{a: " * OBJECTS + "1" + "}" * OBJECTS + ";\nconst TOP_K = 7;\n"
    )
    plain = tmp_path / "plain.js"
    plain.write_text("const TOP_K = 5;\n")
    return {"parens": parens, "objects": objects, "plain": plain, "home": tmp_path / "home"}


def test_drift_reads_a_constant_inside_100000_parentheses(sources):
    done = ragaudit(
        sources["home"], "drift", str(sources["parens"]), str(sources["plain"]),
        "--out", str(sources["home"] / "drift.json"),
    )  # fmt: skip
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert done.returncode == 0, done.stderr[-500:]
    row = next(line for line in done.stdout.splitlines() if line.startswith("  k: "))
    # 5 on both sides (the parentheses only wrap it), the expression cut to a short line
    assert row.startswith("  k: 5 = (((") and row.endswith(
        "| 5 at " + f"{sources['plain']}:1 (TOP_K) -> same"
    )
    assert len(row) < 400


@pytest.mark.slow(model=False)  # builds and walks 50,000 nested objects (7 s): not the fast loop
def test_drift_reads_past_50000_nested_objects(sources):
    done = ragaudit(
        sources["home"], "drift", str(sources["objects"]), str(sources["plain"]),
        "--out", str(sources["home"] / "drift.json"),
    )  # fmt: skip
    assert "Traceback" not in done.stderr
    assert done.returncode == 1, done.stderr[-500:]  # 7 against 5: they differ
    assert f"  k: 7 at {sources['objects']}:2 (TOP_K) | 5 at {sources['plain']}:1" in done.stdout


@pytest.mark.parametrize("name", ["parens", "objects"])
def test_harness_check_reads_deeply_nested_files(sources, name):
    done = ragaudit(
        sources["home"], "harness-check", str(sources[name]),
        "--out", str(sources["home"] / "check.json"),
    )  # fmt: skip
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.splitlines()[0] == "harness-check: no findings in 1 files"


def test_harness_check_names_a_fifo_as_a_fifo(sources, tmp_path):
    fifo = tmp_path / "harness.js"
    os.mkfifo(fifo)
    done = ragaudit(sources["home"], "harness-check", str(fifo), "--out", str(tmp_path / "c.json"))
    assert done.returncode == 2
    assert done.stderr == (
        f"ragaudit harness-check: {fifo}: a FIFO, not a regular file or a folder; "
        "harness-check reads files and folders\n"
    )
    assert not (tmp_path / "c.json").exists()
