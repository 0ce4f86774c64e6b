"""One check for every command that writes (issue 40, items 13 and 17): an output may not
be any input (corpus file or folder, cases, stack, settings, baseline, results file), nor
the data folder's `results/latest.json` or `results/latest.prev.json`, nor another output
of the same command. Each case is `ragaudit.cli.main.main` in this process, and one of them
also the installed `ragaudit` script run as a user runs it: exit 2, one stderr line, and no
file in the folder changes. Before, mutate, audit and
run's --out checked none of this, and `--gate-junit`/`export --out` wrote over the
previous good run."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.gate_fixtures import gate_run, write_run
from helpers.harbour import write_harbour

from ragaudit.cli.main import main

RAGAUDIT = [str(Path(sys.executable).parent / "ragaudit")]
INPUT = "writing it would replace the input, so nothing was written (name another file)"
RUN = "writing it would replace that run's results, so nothing was written (name another file)"
FOLDER = "writing there would change the input, so nothing was written (name a path outside it)"
MUTATE = ["mutate", "corpus", "cases.yaml", "--stack", "good.yaml", "--no-generate"]
AUDIT = ["audit", "corpus", "cases.yaml"]
JUDGES = ["judges", "--judge", "openai:judge", "--base-url", "http://127.0.0.1:9/v1"]
PREV = "home/results/latest.prev.json"
RUN_DRY = ["run", "--n", "1", "--no-generate", "--dry-run"]  # refused before it estimates


@pytest.fixture
def folder(tmp_path):
    """helpers.harbour's corpus, cases and stacks, a settings file, a baseline, and a data
    folder holding a last run and the good run before it."""
    write_harbour(tmp_path)
    (tmp_path / "settings.yaml").write_text("k: 2\n", encoding="utf-8")
    run = gate_run({("control", "A"): [True]})
    for name in ("base.json", "home/results/latest.json", PREV):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        write_run(tmp_path / name, run)
    return tmp_path


CASES = {
    "mutate --out CASES": (
        [*MUTATE, "--out", "cases.yaml"],
        f"mutate: --out cases.yaml: is the cases file cases.yaml; {INPUT}",
    ),
    "mutate --junit CASES": (
        [*MUTATE, "--junit", "cases.yaml"],
        f"mutate: --junit cases.yaml: is the cases file cases.yaml; {INPUT}",
    ),
    "mutate --out STACK": (
        [*MUTATE, "--out", "good.yaml"],
        f"mutate: --out good.yaml: is the stack file good.yaml; {INPUT}",
    ),
    "mutate --out inside the corpus folder": (
        [*MUTATE, "--out", "corpus/mutate.json"],
        f"mutate: --out corpus/mutate.json: lies in the corpus folder corpus; {FOLDER}",
    ),
    "mutate --out over the data folder's last run": (
        [*MUTATE, "--out", "home/results/latest.json"],
        "mutate: --out home/results/latest.json: is the data folder's last run "
        "HOME/results/latest.json; " + RUN,
    ),
    "mutate --out and --junit one file": (
        [*MUTATE, "--out", "m.json", "--junit", "m.json"],
        "mutate: --junit m.json: is also the file of --out; one would replace the other, so "
        "nothing was written (name two files)",
    ),
    "audit --junit CASES": (
        [*AUDIT, "--junit", "cases.yaml"],
        f"audit: --junit cases.yaml: is the cases file cases.yaml; {INPUT}",
    ),
    "audit --out SETTINGS": (
        [*AUDIT, "--settings", "settings.yaml", "--out", "settings.yaml"],
        f"audit: --out settings.yaml: is the settings file settings.yaml; {INPUT}",
    ),
    "audit --out STACK": (
        [*AUDIT, "--stack", "good.yaml", "--out", "good.yaml"],
        f"audit: --out good.yaml: is the stack file good.yaml; {INPUT}",
    ),
    "judges --out over its results file": (
        [*JUDGES, "--results", "base.json", "--out", "base.json"],
        f"judges: --out base.json: is the results file base.json; {INPUT}",
    ),
    "run --out STACK": (
        [*RUN_DRY, "--stack", "good.yaml", "--out", "good.yaml"],
        f"run: --out good.yaml: is the stack file good.yaml; {INPUT}",
    ),
    "run --out BASELINE": (
        [*RUN_DRY, "--baseline", "base.json", "--out", "base.json"],
        f"run: --out base.json: is the baseline base.json; {INPUT}",
    ),
    "run --gate-junit over the previous good run": (
        ["run", "--n", "1", "--no-generate", "--baseline", "base.json", "--gate-junit", PREV],
        f"run: --gate-junit {PREV}: is the run's previous good run HOME/results/"
        f"latest.prev.json; {RUN}",
    ),
    "export --out over the previous good run": (
        ["export", "--results", "base.json", "--out", PREV],
        f"export: --out {PREV}: is the data folder's previous good run HOME/results/"
        f"latest.prev.json; {RUN}",
    ),
    "gate --junit over the previous good run": (
        ["gate", "--baseline", "base.json", "--results", "base.json", "--junit", PREV],
        f"gate: --junit {PREV}: is the data folder's previous good run HOME/results/"
        f"latest.prev.json; {RUN}",
    ),
}  # fmt: skip


def _state(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _in_process(folder: Path, argv: list[str], monkeypatch, capfd) -> tuple[int, str]:
    """`ragaudit ARGV` as the script runs it, in this process: from `folder`, with the data
    folder in it and `folder` importable (the stacks' retriever module)."""
    monkeypatch.chdir(folder)
    monkeypatch.setenv("RAGAUDIT_HOME", str(folder / "home"))
    monkeypatch.syspath_prepend(str(folder))
    capfd.readouterr()
    status = main(list(argv))
    return status, capfd.readouterr().err


def _installed_script(folder: Path, argv: list[str]) -> tuple[int, str]:
    """`ragaudit ARGV`: the installed script in its own process, as a user runs it."""
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "RAGAUDIT_HOME": str(folder / "home"), "PYTHONPATH": path}
    done = subprocess.run(
        [*RAGAUDIT, *argv], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )
    return done.returncode, done.stderr


@pytest.mark.parametrize("case", list(CASES))
def test_an_output_over_an_input_or_a_kept_run_is_refused_and_nothing_changes(
    folder, case, monkeypatch, capfd
):
    argv, words = CASES[case]
    before = _state(folder)
    status, stderr = _in_process(folder, argv, monkeypatch, capfd)
    assert status == 2, stderr[-2000:]
    assert stderr == f"ragaudit {words.replace('HOME', str(folder / 'home'))}\n"
    assert _state(folder) == before


def test_the_installed_script_refuses_as_the_command_does(folder):
    argv, words = CASES["mutate --out CASES"]
    before = _state(folder)
    status, stderr = _installed_script(folder, argv)
    assert status == 2, stderr[-2000:]
    assert stderr == f"ragaudit {words}\n"
    assert _state(folder) == before
