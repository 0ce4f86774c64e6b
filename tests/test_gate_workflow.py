"""examples/ci/github-actions.yml's gate and mutate jobs, their commands run in order on this
machine, the gate's at n=1, as GitHub runs them: a step without `if: always()` is skipped
once a step of its job failed, and a default-branch-only step runs only on a push there.

The gate job three times: a push to the default branch with no baseline stores one; a pull
request with the same stack is gated against it and passes (the same stack on the same
corpus loses nothing); a pull request that shrinks the stack's chunks to 200 characters and
k to 1 (the same stack file, edited) fails, naming the cells it lost. The mutate job once,
on the bundled example: its exit status and JUnit file.

Steps that are GitHub actions (`uses:`: checkout, cache, upload) are what the workspace
folder stands in for; the install step is this checkout's editable install. Nothing here
loads a generator: the stack runs with --no-generate, and so does the mutation audit."""

from __future__ import annotations

import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow(model=False)  # the CI jobs: four whole runs and a mutation audit

ROOT = Path(__file__).parents[1]
WORKFLOW = ROOT / "examples" / "ci" / "github-actions.yml"
DEFAULT_BRANCH_ONLY = (
    "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)"
)
WEAKER_STACK = """\
name: langchain_recursive
description: the same stack after a pull request shrank its chunks to 200/0 and k to 1
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args:
    chunk_size: 200
    chunk_overlap: 0
embedder: local:minilm
k: 1
"""
OPERATORS = ("remove_answer", "supersede", "near_duplicate", "boundary", "dilute", "table_split")


def _document() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def _env(workspace: Path, job: str, overrides: dict[str, str]) -> dict[str, str]:
    document = _document()
    env = {**os.environ, **document["env"], **document["jobs"][job].get("env", {})}
    env = {k: str(v).replace("${{ github.workspace }}", str(workspace)) for k, v in env.items()}
    assert not any("${{" in v for v in env.values())
    env.update(N="1", GITHUB_STEP_SUMMARY=str(workspace / "step-summary.md"), **overrides)
    return env


def _run_job(
    workspace: Path, job: str, *, on_default_branch: bool, **overrides: str
) -> dict[str, subprocess.CompletedProcess]:
    """Each `run:` step of `job` in order, under GitHub's rules; the steps that ran, by name."""
    ran: dict[str, subprocess.CompletedProcess] = {}
    failed = False
    for step in _document()["jobs"][job]["steps"]:
        if "run" not in step or step.get("name") == "Install ragaudit":
            continue
        condition = step.get("if")
        assert condition in (None, "always()", DEFAULT_BRANCH_ONLY), condition
        if condition == DEFAULT_BRANCH_ONLY and not on_default_branch:
            continue
        if failed and condition != "always()":
            continue
        done = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=workspace,
            env=_env(workspace, job, overrides),
            capture_output=True,
            text=True,
            timeout=300,
        )
        ran[step["name"]] = done
        failed = failed or done.returncode != 0
    return ran


def _passed(ran: dict[str, subprocess.CompletedProcess]) -> str:
    for name, done in ran.items():
        assert done.returncode == 0, (name, done.stdout[-2000:], done.stderr[-2000:])
    return "\n".join(done.stdout for done in ran.values())


def _gold(path: Path) -> dict[str, bool]:
    """probe -> gold_in_context of its one instance (n=1), read from the results file."""
    records = json.loads(path.read_text())["instances"]
    return {r["probe"]: r["gold_in_context"] for r in records if r["gold_in_context"] is not None}


def test_the_gate_job_stores_a_baseline_passes_the_same_stack_and_fails_a_weaker_one(
    tmp_path,
):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    first = _passed(_run_job(tmp_path, "gate", on_default_branch=True))
    assert "no baseline yet" in first
    baseline = tmp_path / ".ragaudit-baseline" / "results.json"
    assert baseline.is_file()

    second = _passed(_run_job(tmp_path, "gate", on_default_branch=False))
    verdict = [line for line in second.splitlines() if line.startswith("ragaudit gate:")]
    assert verdict and verdict[-1].startswith("ragaudit gate: PASS: 10 cells")
    cases = list(ET.parse(tmp_path / "reports" / "gate-junit.xml").getroot().iter("testcase"))
    # n=1 over the eleven probes: unanswerable has no gold to retrieve, so ten cells
    assert len(cases) == 10 and not any(c.find("failure") is not None for c in cases)
    summary = (tmp_path / "step-summary.md").read_text()
    assert summary.startswith("## ragaudit gate") and re.search(r"\| boundary:\S+", summary)
    assert (tmp_path / "reports" / "gate.md").read_text().strip() == summary.strip()

    # The pull request that weakens the stack: the gate step fails the job
    (tmp_path / "weaker.yaml").write_text(WEAKER_STACK)
    ran = _run_job(tmp_path, "gate", on_default_branch=False, STACK="weaker.yaml")
    assert list(ran) == ["Run your stack on the planted corpus", "Gate against the baseline"]
    assert ran["Run your stack on the planted corpus"].returncode == 0
    gate = ran["Gate against the baseline"]
    assert gate.returncode == 1, (gate.stdout[-2000:], gate.stderr[-2000:])
    before, after = _gold(baseline), _gold(tmp_path / "reports" / "results.json")
    lost = sorted(p for p in before if before[p] and not after[p])
    assert lost, "the weaker stack lost no cell at n=1: this test sees nothing"
    # each lost cell: 1/1 → 0/1, p = (1/2)^1 = 0.5, Holm over 10 cells min(1, 10 × 0.5) = 1,
    # a 100-point drop over --max-drop 10
    reasoning = (
        "(gold in context): 1/1 → 0/1; lost 1, gained 0; one-sided McNemar p = 0.5000 "
        "(Holm 1.0000), not significant at 0.05; drop 100 points > --max-drop 10: FAIL on "
        "--max-drop, not on significance"
    )
    failing = sorted(
        line.split(":", 1)[0] for line in gate.stdout.splitlines() if line.endswith(reasoning)
    )
    assert failing == lost
    for probe in lost:
        assert f"  lost {probe}-000 ({probe}, langchain_recursive): gold left the context" in (
            gate.stdout
        )
    assert gate.stdout.splitlines()[-1].startswith(f"ragaudit gate: FAIL: {len(lost)} of 10")
    suite = ET.parse(tmp_path / "reports" / "gate-junit.xml").getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("10", str(len(lost)))


def test_the_mutate_job_fails_only_below_the_bar_and_writes_its_junit(tmp_path):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    ran = _run_job(tmp_path, "mutate", on_default_branch=False)
    audit = ran["Mutation audit"]
    env = _document()["jobs"]["mutate"]["env"]
    bar = float(env["FAIL_UNDER"])
    intents = yaml.safe_load((ROOT / env["MUTATE_CASES"]).read_text())["intents"]
    root = ET.parse(tmp_path / "reports" / "mutate-junit.xml").getroot()
    cases = list(root.iter("testcase"))
    # one case per (operator, intent): 14 intents × the six operators
    assert len(intents) == 14 and len(cases) == 14 * len(OPERATORS)
    assert [c.get("classname") for c in cases[::14]] == [f"mutate.{o}" for o in OPERATORS]
    # --no-generate: remove_answer is not measured, each of its cases skipped saying so
    removed = [c for c in cases if c.get("classname") == "mutate.remove_answer"]
    assert all("not measured" in c.find("skipped").text for c in removed)
    # the exit status the bar implies, counted from the JUnit file: killed = a case that
    # neither failed (survived) nor was skipped; score = killed / (killed + survived)
    killed, survived = Counter(), Counter()
    for case in cases:
        operator = case.get("classname").removeprefix("mutate.")
        if case.find("failure") is not None:
            survived[operator] += 1
        elif case.find("skipped") is None:
            killed[operator] += 1
    below = [
        o
        for o in OPERATORS
        if killed[o] + survived[o] and killed[o] / (killed[o] + survived[o]) < bar
    ]
    assert audit.returncode == (1 if below else 0), (audit.stdout[-2000:], audit.stderr[-2000:])
    if below:
        assert f"below --fail-under {bar:g}: {', '.join(below)}" in audit.stderr
    assert json.loads((tmp_path / "reports" / "mutate.json").read_text())
