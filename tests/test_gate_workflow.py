"""examples/ci/github-actions.yml's gate job, its commands run in order on this machine at
n=1: a push to the default branch with no baseline stores one; the pull request after it is
gated against it (exit 0: the same stack on the same corpus loses nothing), with the JUnit
file holding one case per gated cell and the summary appended to $GITHUB_STEP_SUMMARY.
Steps that are GitHub actions (`uses:`: checkout, cache, upload) are what the workspace
folder stands in for; the install step is this checkout's editable install."""

from __future__ import annotations

import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow  # the gate's CI job: two whole runs

ROOT = Path(__file__).parents[1]
WORKFLOW = ROOT / "examples" / "ci" / "github-actions.yml"
DEFAULT_BRANCH_ONLY = (
    "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)"
)


def _steps(on_default_branch: bool) -> list[dict]:
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["gate"]
    out = []
    for step in job["steps"]:
        if "run" not in step or step.get("name") == "Install ragaudit":
            continue
        condition = step.get("if")
        if condition == DEFAULT_BRANCH_ONLY and not on_default_branch:
            continue
        assert condition in (None, "always()", DEFAULT_BRANCH_ONLY), condition
        out.append(step)
    return out


def _env(workspace: Path) -> dict[str, str]:
    document = yaml.safe_load(WORKFLOW.read_text())
    env = {**os.environ, **document["env"], **document["jobs"]["gate"]["env"]}
    env = {k: str(v).replace("${{ github.workspace }}", str(workspace)) for k, v in env.items()}
    assert not any("${{" in v for v in env.values())
    env.update(N="1", GITHUB_STEP_SUMMARY=str(workspace / "step-summary.md"))
    return env


def _run_job(workspace: Path, on_default_branch: bool) -> list[str]:
    outputs = []
    for step in _steps(on_default_branch):
        done = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=workspace,
            env=_env(workspace),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, (step["name"], done.stdout[-2000:], done.stderr[-2000:])
        outputs.append(done.stdout)
    return outputs


def test_the_gate_job_stores_a_baseline_then_gates_the_next_run(tmp_path):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    first = "\n".join(_run_job(tmp_path, on_default_branch=True))
    assert "no baseline yet" in first
    assert (tmp_path / ".ragaudit-baseline" / "results.json").is_file()

    second = "\n".join(_run_job(tmp_path, on_default_branch=False))
    verdict = [line for line in second.splitlines() if line.startswith("ragaudit gate:")]
    assert verdict and verdict[-1].startswith("ragaudit gate: PASS: 10 cells")
    cases = list(ET.parse(tmp_path / "reports" / "gate-junit.xml").getroot().iter("testcase"))
    # n=1 over the eleven probes: unanswerable has no gold to retrieve, so ten cells
    assert len(cases) == 10 and not any(c.find("failure") is not None for c in cases)
    summary = (tmp_path / "step-summary.md").read_text()
    assert summary.startswith("## ragaudit gate") and re.search(r"\| boundary:\S+", summary)
    assert (tmp_path / "reports" / "gate.md").read_text().strip() == summary.strip()
