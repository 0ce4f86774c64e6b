"""action.yml against GitHub's rules for a composite action's metadata, read from the file
(GitHub cannot be reached from here; tests/test_action_comment.py runs its steps).

The rules, from GitHub's "Metadata syntax for GitHub Actions": `runs.using: composite`; a
step is a `run` (with its `shell`, required in a composite) or a `uses` (`owner/repo@ref`,
with its `with`), never both, and takes only the keys a composite step may have; step ids
are unique; a composite's output has a `value` and a description; expressions read only
the contexts a composite has (no `secrets`, `matrix`, `needs`); every `inputs.X` read is
declared, and every `steps.ID.outputs.X` names an earlier step that writes X. And the
action's own: no expression inside a script (inputs arrive through `env:`), every
upper-case variable a script reads is set by its step or by the runner, and the job fails
last, after the summary and the comment."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).parents[1]
ACTION = ROOT / "action.yml"
TOP_KEYS = {"name", "author", "description", "inputs", "outputs", "runs", "branding"}
INPUT_KEYS = {"description", "required", "default", "deprecationMessage"}
STEP_KEYS = {
    "name", "id", "if", "run", "shell", "uses", "with", "env",
    "working-directory", "continue-on-error",
}  # fmt: skip
SHELLS = {"bash", "pwsh", "python", "sh", "cmd", "powershell"}
CONTEXTS = {"inputs", "steps", "github", "runner", "env", "job", "strategy"}
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)
REFERENCE = re.compile(r"\b([a-z]+)\.([A-Za-z_][\w-]*)(?:\.([A-Za-z_][\w-]*)\.([A-Za-z_][\w-]*))?")
STATUS = re.compile(r"\b(always|failure|success|cancelled)\(\)")
# variables the runner sets for every step
RUNNER_ENV = {"RUNNER_TEMP", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTION_PATH"}


def _action() -> dict:
    return yaml.safe_load(ACTION.read_text())


def _steps() -> list[dict]:
    return _action()["runs"]["steps"]


def _expressions(value, key: str = "") -> list[str]:
    """Every expression in a YAML value: each `${{ … }}`, and an `if:`'s bare condition."""
    if isinstance(value, dict):
        return [e for k, v in value.items() for e in _expressions(v, k)]
    if isinstance(value, list):
        return [e for item in value for e in _expressions(item)]
    if not isinstance(value, str):
        return []
    return EXPRESSION.findall(value) or ([value] if key == "if" else [])


def _references(expression: str) -> list[tuple[str, ...]]:
    """(context, name, [sub, field]) of each dotted reference outside a string literal."""
    code = re.sub(r"'[^']*'", "''", expression)
    return [m.groups() for m in REFERENCE.finditer(code)]


def test_the_metadata_has_the_keys_github_reads():
    action = _action()
    assert set(action) <= TOP_KEYS
    assert action["name"] and action["description"]
    assert action["runs"]["using"] == "composite" and set(action["runs"]) == {"using", "steps"}
    for name, spec in action["inputs"].items():
        assert re.fullmatch(r"[A-Za-z_][\w-]*", name), name
        assert set(spec) <= INPUT_KEYS and spec["description"], name
        assert spec.get("required", False) in (True, False), name
        # a required input has no default; every optional one says what it defaults to
        assert ("default" in spec) != spec.get("required", False), name
    assert action["inputs"]["github-token"]["default"] == "${{ github.token }}"


def test_each_step_is_a_run_with_its_shell_or_a_pinned_uses():
    ids = [step["id"] for step in _steps() if "id" in step]
    assert len(ids) == len(set(ids))
    for step in _steps():
        assert set(step) <= STEP_KEYS, step
        assert step.get("name"), step
        assert ("run" in step) != ("uses" in step), step["name"]
        if "run" in step:
            assert step.get("shell") in SHELLS, f"{step['name']}: a composite run needs a shell"
            assert "with" not in step, step["name"]
        else:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", step["uses"]), step["uses"]
            assert "shell" not in step and "env" not in step, step["name"]


def test_expressions_read_only_a_composites_contexts_and_declared_names():
    action = _action()
    inputs, steps = action["inputs"], _steps()
    outputs_written = {step["id"]: _written_outputs(step) for step in steps if "id" in step}
    for expression in _expressions(action):
        for context, name, sub, field in _references(expression):
            assert context in CONTEXTS, f"{context}.{name}: not a composite action's context"
            if context == "inputs":
                assert name in inputs, f"inputs.{name} is not declared"
            if context == "steps":
                assert sub == "outputs" and field in outputs_written.get(name, ()), (
                    f"steps.{name}.outputs.{field}: no step {name} writes it"
                )
    # a step reads only the outputs of steps before it
    seen: set[str] = set()
    for step in steps:
        for expression in _expressions(step):
            for context, name, *_ in _references(expression):
                assert context != "steps" or name in seen, f"{step['name']} reads {name} early"
        seen.update([step["id"]] if "id" in step else [])
    for name, output in action["outputs"].items():
        assert output["description"] and EXPRESSION.fullmatch(output["value"].strip()), name


def _written_outputs(step: dict) -> set[str]:
    """The outputs a step writes to $GITHUB_OUTPUT: `name=` in its script, or
    `write_output("name"` in the script of the action's that it runs."""
    text = step.get("run", "")
    names = set(re.findall(r"\becho \"([\w-]+)=", text))
    for script in re.findall(r"\$RAGAUDIT_ACTION_PATH/([\w./-]+\.py)", text):
        names |= set(re.findall(r'write_output\("([\w-]+)"', (ROOT / script).read_text()))
    return names


def test_no_status_function_so_a_failed_step_skips_the_rest():
    # tests/test_action_comment.py runs the steps as GitHub does on this premise
    for step in _steps():
        condition = str(step.get("if", ""))
        assert not STATUS.search(condition) and "${{" not in condition, step["name"]


def test_scripts_take_inputs_through_env_and_read_only_variables_they_are_given():
    for step in (s for s in _steps() if "run" in s):
        script = step["run"]
        assert "${{" not in script, f"{step['name']}: an expression pasted into a script"
        env = set(step.get("env", {}))
        for value in step.get("env", {}).values():
            assert EXPRESSION.fullmatch(str(value).strip()), (step["name"], value)
        read = set(re.findall(r"\$\{?([A-Z_][A-Z0-9_]*)", script))
        assert read <= env | RUNNER_ENV, f"{step['name']}: {sorted(read - env - RUNNER_ENV)}"
        checked = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True)
        assert checked.returncode == 0, (step["name"], checked.stderr)


def test_the_scripts_it_runs_ship_with_it_and_the_artifact_lands_where_the_gate_reads():
    steps = {step["name"]: step for step in _steps()}
    install = steps["Install ragaudit"]
    assert install["env"]["RAGAUDIT_ACTION_PATH"] == "${{ github.action_path }}"
    assert install["run"] == 'python -m pip install "$RAGAUDIT_ACTION_PATH"'
    comment = steps["Comment on the pull request"]
    script = re.search(r"\$RAGAUDIT_ACTION_PATH/(\S+\.py)", comment["run"]).group(1)
    assert (ROOT / script).is_file()
    download = steps["Download the baseline"]
    assert download["uses"].startswith("actions/download-artifact@")
    assert download["with"]["path"] == "${{ runner.temp }}/ragaudit-baseline"
    assert '"$RUNNER_TEMP/ragaudit-baseline/$BASELINE"' in steps["Gate against the baseline"]["run"]


def test_the_job_fails_last_after_the_summary_and_the_comment():
    names = [step["name"] for step in _steps()]
    assert names.index("Gate against the baseline") < names.index("Comment on the pull request")
    assert names[-1] == "Fail on a loss"
    last = _steps()[-1]
    assert last["if"] == "steps.gate.outputs.exit-code != '0'"
    assert last["run"].strip().endswith('exit "$EXIT_CODE"')


def test_the_docs_workflow_gives_the_action_inputs_it_declares_and_the_permission():
    doc = (ROOT / "docs" / "gating.md").read_text()
    section = doc.split("### The GitHub Action (`action.yml`)", 1)[1]
    workflow = yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])
    assert workflow["permissions"]["pull-requests"] == "write"
    (step,) = [
        s for j in workflow["jobs"].values() for s in j["steps"] if "ragaudit@" in s.get("uses", "")
    ]
    inputs = _action()["inputs"]
    assert set(step["with"]) <= set(inputs)
    assert {name for name, spec in inputs.items() if spec.get("required")} <= set(step["with"])
