"""An output never replaces an input (issue 25, item 11): `--out` (and `--junit`,
`--out-md`) naming a file the command reads, by the same path, through `..`, a symlink or
a hard link, is refused in one line with exit 2, and no file in the folder changes. Each
case is `ragaudit.cli.main.main` in this process, and one of them also the installed
`ragaudit` script, run as a user runs it."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.analysis_fixtures import analysed_results

from ragaudit.cli.main import main

RAGAUDIT = [str(Path(sys.executable).parent / "ragaudit")]
REPLACES = "writing it would replace the input, so nothing was written (name another file)"


@pytest.fixture
def folder(tmp_path):
    """A results file, two sources and a waivers file, with the links the cases name."""
    results = tmp_path / "R"
    results.mkdir()
    latest = results / "latest.json"
    latest.write_text(json.dumps(analysed_results(), allow_nan=False))
    (results / "link.json").symlink_to("latest.json")
    os.link(latest, results / "report.md")  # a hard link named like the report it would write
    (tmp_path / "prod.py").write_text("TOP_K = 8\n")
    (tmp_path / "eval.py").write_text("TOP_K = 5\n")
    (tmp_path / "waivers.yaml").write_text("[]\n")
    return tmp_path


def _state(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_relative_to(root / "home")
    }


CASES = {
    "export, the same path": (
        ["export", "--results", "R/latest.json", "--format", "parquet", "--out", "R/latest.json"],
        "export: --out R/latest.json: is the results file R/latest.json",
    ),
    "export, through ..": (
        ["export", "--results", "R/latest.json", "--out", "R/../R/latest.json"],
        "export: --out R/../R/latest.json: is the results file R/latest.json",
    ),
    "export, a symlink to it": (
        ["export", "--results", "R/latest.json", "--out", "R/link.json"],
        "export: --out R/link.json: is the results file R/latest.json",
    ),
    "report, a hard link": (
        ["report", "--results", "R/report.md", "--format", "md", "--out", "R"],
        "report: --out R/report.md: is the results file R/report.md",
    ),
    "compare": (
        ["compare", "R/latest.json", "R/report.md", "--format", "md", "--out", "R"],
        "compare: --out R/compare.md: is the run A R/latest.json",
    ),
    "drift --out": (
        ["drift", "prod.py", "eval.py", "--out", "eval.py"],
        "drift: --out eval.py: is the evaluation file eval.py",
    ),
    "drift --junit": (
        ["drift", "prod.py", "eval.py", "--out", "R/drift.json", "--junit", "prod.py"],
        "drift: --junit prod.py: is the production file prod.py",
    ),
    "harness-check --out": (
        ["harness-check", ".", "--out", "eval.py"],
        "harness-check: --out eval.py: is the script eval.py",
    ),
    "harness-check --out over the waivers": (
        ["harness-check", "prod.py", "--waivers", "waivers.yaml", "--out", "waivers.yaml"],
        "harness-check: --out waivers.yaml: is the waivers file waivers.yaml",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_an_out_naming_an_input_is_refused_and_nothing_changes(folder, case, monkeypatch, capfd):
    argv, words = CASES[case]
    if case == "compare":  # compare.md beside the inputs is a hard link of run A
        os.link(folder / "R" / "latest.json", folder / "R" / "compare.md")
    before = _state(folder)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("RAGAUDIT_HOME", str(folder / "home"))
    capfd.readouterr()
    status = main(list(argv))
    stderr = capfd.readouterr().err
    assert status == 2, stderr[-2000:]
    assert stderr == f"ragaudit {words}; {REPLACES}\n"
    assert _state(folder) == before


def test_the_installed_script_refuses_as_the_command_does(folder):
    argv, words = CASES["export, a symlink to it"]
    before = _state(folder)
    env = {**os.environ, "RAGAUDIT_HOME": str(folder / "home")}
    done = subprocess.run(
        [*RAGAUDIT, *argv], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr == f"ragaudit {words}; {REPLACES}\n"
    assert _state(folder) == before
