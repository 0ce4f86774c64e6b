"""action.yml's steps run in order on this machine, as GitHub runs a composite action, with
GitHub's REST API stood in for by a server on 127.0.0.1 (GITHUB_API_URL points at it).

As GitHub runs them: each `run` step under `bash --noprofile --norc -eo pipefail`, its
`env:` expressions resolved from the inputs, the runner and earlier steps' outputs (read
back from $GITHUB_OUTPUT); a step whose `if` is false is skipped, and so is every step
after a failed one (the action has no status function: tests/test_action_rules.py). The
`uses` steps are what this machine stands in for: setup-python by the Python running the
suite, download-artifact by a copy of the artifact's folder to its `path`; the install step
by this checkout's editable install.

The runs are written by hand (tests/helpers/gate_fixtures.py): a baseline where boundary
and distractor each pass 5 of 5 under config C, and a new run where boundary passes 0 of 5.
The verdict table below is counted from those lists, not read from the gate."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from helpers.gate_fixtures import gate_run, write_run

ROOT = Path(__file__).parents[1]
ACTION = ROOT / "action.yml"
REPOSITORY = "acme/rag"
PR = 7
TOKEN = "ghs_" + "9f3c" * 9  # a stand-in token: it must appear in no output and no file
MARKER = "<!-- ragaudit-gate -->"
ALL5, NONE5 = [True] * 5, [False] * 5
BEFORE = {("boundary", "C"): ALL5, ("distractor", "C"): ALL5}
AFTER = {("boundary", "C"): NONE5, ("distractor", "C"): ALL5}

# By hand, from BEFORE and AFTER. boundary: 5 lost, 0 gained, one-sided McNemar
# p = (1/2)^5 = 0.03125; distractor: no flip, p = 1. Holm over the two cells: boundary
# 2 × 0.03125 = 0.0625, not significant at 0.05; distractor max(0.0625, 1 × 1) = 1.
# boundary drops 5/5 → 0/5, 100 points > --max-drop 10: it fails on the drop alone.
# Detectable: 5 baseline passes; significance needs 5 losses ((1/2)^4 = 0.0625 > 0.05),
# power d^5 >= 0.8 at d = 0.8^(1/5) = 0.956, so 95.6 points in both cells.
HEADER = [
    "| cell | baseline | new | lost | gained | one-sided p | Holm p | drop (pts) "
    "| detectable at 80% power | verdict |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
]
LOSS_TABLE = HEADER + [
    "| boundary:C (gold in context) | 100% 5/5 | 0% 0/5 | 5 | 0 | 0.0313 | 0.0625 | 100 "
    "| 95.6 pts | **fail**: drop over --max-drop |",
    "| distractor:C (gold in context) | 100% 5/5 | 100% 5/5 | 0 | 0 | 1.0000 | 1.0000 | 0 "
    "| 95.6 pts | pass |",
]
# The same baseline against itself: nothing flips, p = 1 and Holm 1 in both cells.
PASS_TABLE = HEADER + [
    "| boundary:C (gold in context) | 100% 5/5 | 100% 5/5 | 0 | 0 | 1.0000 | 1.0000 | 0 "
    "| 95.6 pts | pass |",
    "| distractor:C (gold in context) | 100% 5/5 | 100% 5/5 | 0 | 0 | 1.0000 | 1.0000 | 0 "
    "| 95.6 pts | pass |",
]


# ---- GitHub's REST API, stood in for ------------------------------------------------


@dataclass
class StandIn:
    """One pull request's comments behind the three calls the action makes, in GitHub's
    shapes: 100 a page with a `Link: <…>; rel="next"` header, 201 on a post, 403 with
    GitHub's message when `refuse_post` (a token without `pull-requests: write`)."""

    comments: list[dict] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)
    refuse_post: bool = False
    url: str = ""

    def answer(self, method: str, target: str, auth: str, body: dict) -> tuple[int, object, dict]:
        self.calls.append((method, urlsplit(target).path))
        if auth != f"Bearer {TOKEN}":
            return 401, {"message": "Bad credentials"}, {}
        path, query = urlsplit(target).path, parse_qs(urlsplit(target).query)
        on_pr = f"/repos/{REPOSITORY}/issues/{PR}/comments"
        if method == "GET" and path == on_pr:
            per_page, page = int(query["per_page"][0]), int(query.get("page", ["1"])[0])
            shown = self.comments[(page - 1) * per_page : page * per_page]
            more = len(self.comments) > page * per_page
            link = f'<{self.url}{on_pr}?per_page={per_page}&page={page + 1}>; rel="next"'
            return 200, shown, {"Link": link} if more else {}
        if method == "POST" and path == on_pr and self.refuse_post:
            return 403, {"message": "Resource not accessible by integration"}, {}
        if method == "POST" and path == on_pr:
            comment = self._comment(len(self.comments) + 1000, body["body"])
            self.comments.append(comment)
            return 201, comment, {}
        found = re.fullmatch(rf"/repos/{REPOSITORY}/issues/comments/(\d+)", path)
        mine = [c for c in self.comments if found and c["id"] == int(found.group(1))]
        if method == "PATCH" and mine:
            mine[0]["body"] = body["body"]
            return 200, mine[0], {}
        return 404, {"message": "Not Found"}, {}

    @staticmethod
    def _comment(number: int, body: str) -> dict:
        url = f"https://github.com/{REPOSITORY}/pull/{PR}#issuecomment-{number}"
        return {"id": number, "body": body, "html_url": url, "user": {"login": "someone"}}

    def marked(self) -> list[dict]:
        return [c for c in self.comments if c["body"].startswith(MARKER)]


@pytest.fixture
def github():
    stand_in = StandIn(comments=[StandIn._comment(i, f"review {i}") for i in range(1, 121)])

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else {}
            status, payload, headers = stand_in.answer(
                self.command, self.path, self.headers.get("Authorization", ""), body
            )
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = _serve

        def log_message(self, *args) -> None:  # the suite's output stays quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stand_in.url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield stand_in
    server.shutdown()
    server.server_close()


# ---- the composite's steps, run as GitHub runs them ---------------------------------


@dataclass
class Job:
    ran: dict[str, subprocess.CompletedProcess]
    outputs: dict[str, str]
    summary: str

    @property
    def failed(self) -> bool:
        return any(done.returncode for done in self.ran.values())

    @property
    def log(self) -> str:
        return "\n".join(done.stdout + done.stderr for done in self.ran.values())


def _resolve(text: str, context: dict) -> str:
    """`${{ a.b }}` / `${{ steps.x.outputs.y }}` references in text, from context; an
    unset one is '' as on GitHub."""

    def value(match: re.Match) -> str:
        reference = match.group(1).strip()
        assert re.fullmatch(r"[a-z]+(\.[\w-]+)+", reference), f"not a reference: {reference}"
        found = context
        for part in reference.split("."):
            found = found.get(part, "") if isinstance(found, dict) else ""
        return str(found)

    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def _holds(condition: str | None, context: dict) -> bool:
    """An `if:` of `ref == 'x'` / `ref != 'x'` joined by `&&`; GitHub compares strings
    ignoring case."""
    if condition is None:
        return True
    for part in condition.split("&&"):
        ref, op, literal = re.fullmatch(r"\s*([\w.-]+)\s*(==|!=)\s*'([^']*)'\s*", part).groups()
        equal = _resolve("${{ " + ref + " }}", context).lower() == literal.lower()
        if equal != (op == "=="):
            return False
    return True


def _runner(tmp: Path, api: str, head: str) -> dict[str, str]:
    """The variables GitHub's runner sets for every step of a pull request's job."""
    temp, event = tmp / "runner-temp", tmp / "event.json"
    temp.mkdir(exist_ok=True)
    pull = {"number": PR, "head": {"repo": {"full_name": head}}}
    pull["base"] = {"repo": {"full_name": REPOSITORY}}
    event.write_text(json.dumps({"action": "synchronize", "pull_request": pull}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_"))}
    return env | {
        "GITHUB_API_URL": api,
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_STEP_SUMMARY": str(tmp / "step-summary.md"),
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_WORKSPACE": str(tmp / "work"),
        "RUNNER_TEMP": str(temp),
    }


def _run_step(step: dict, number: int, env: dict, context: dict, tmp: Path):
    """A `run` step under the shell GitHub gives `shell: bash`; its outputs into context."""
    output, script = tmp / f"output-{number}", tmp / f"step-{number}.sh"
    output.unlink(missing_ok=True)
    script.write_text(step["run"])
    env = env | {k: _resolve(str(v), context) for k, v in step.get("env", {}).items()}
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=tmp / "work",
        env=env | {"GITHUB_OUTPUT": str(output)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    written = output.read_text().splitlines() if output.exists() else []
    context["steps"][step.get("id", "")] = {"outputs": dict(x.split("=", 1) for x in written)}
    return done


def run_action(
    tmp: Path,
    inputs: dict[str, str],
    *,
    head: str = REPOSITORY,
    api: str = "",
    artifacts: dict[str, Path] | None = None,
) -> Job:
    """The action's steps for pull request #PR of REPOSITORY (from `head`), in the
    workspace tmp/work; inputs not given take their defaults."""
    action = yaml.safe_load(ACTION.read_text())
    env = _runner(tmp, api, head)
    summary = Path(env["GITHUB_STEP_SUMMARY"])
    summary.unlink(missing_ok=True)
    context: dict = {
        "github": {"action_path": str(ROOT), "token": TOKEN, "run_id": "41"},
        "runner": {"temp": env["RUNNER_TEMP"]},
        "steps": {},
    }
    defaults = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    context["inputs"] = {k: _resolve(v, context) for k, v in defaults.items()} | inputs
    ran: dict[str, subprocess.CompletedProcess] = {}
    for number, step in enumerate(action["runs"]["steps"]):
        if not _holds(step.get("if"), context) or step["name"] == "Install ragaudit":
            continue
        if step.get("uses", "").startswith("actions/download-artifact@"):
            name = _resolve(step["with"]["name"], context)
            shutil.copytree(artifacts[name], _resolve(step["with"]["path"], context))
        if "uses" in step:
            continue
        ran[step["name"]] = done = _run_step(step, number, env, context, tmp)
        if done.returncode:
            break  # no step has a status function: GitHub skips the rest
    outputs = {k: _resolve(v["value"], context) for k, v in action["outputs"].items()}
    return Job(ran, outputs, summary.read_text() if summary.exists() else "")


def _table(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("|")]


def _assert_token_nowhere(tmp: Path, *jobs: Job) -> None:
    for job in jobs:
        assert TOKEN not in job.log and TOKEN not in json.dumps(job.outputs)
    for path in (p for p in tmp.rglob("*") if p.is_file()):
        assert TOKEN.encode() not in path.read_bytes(), path


@pytest.fixture
def runs(tmp_path) -> dict[str, str]:
    (tmp_path / "work").mkdir()
    base = write_run(tmp_path / "work" / "baseline" / "results.json", gate_run(BEFORE))
    write_run(tmp_path / "work" / "reports" / "results.json", gate_run(AFTER))
    return {"baseline": str(base.relative_to(tmp_path / "work")), "results": "reports/results.json"}


# ---- the tests ------------------------------------------------------------------------


def test_a_loss_posts_one_comment_then_a_pass_updates_it(tmp_path, github, runs):
    first = run_action(tmp_path, runs, api=github.url)
    # the job fails, last, on the gate's exit status
    assert list(first.ran) == [
        "Gate against the baseline",
        "Comment on the pull request",
        "Fail on a loss",
    ]
    assert [d.returncode for d in first.ran.values()] == [0, 0, 1]
    assert first.outputs["verdict"] == "fail" and first.outputs["exit-code"] == "1"
    # 120 earlier comments: the marker is looked for on both pages, then a comment posted
    on_pr = f"/repos/{REPOSITORY}/issues/{PR}/comments"
    assert github.calls == [("GET", on_pr), ("GET", on_pr), ("POST", on_pr)]
    (posted,) = github.marked()
    assert posted["body"].startswith(MARKER + "\n## ragaudit gate\n")
    assert _table(posted["body"]) == LOSS_TABLE
    assert "ragaudit gate: FAIL: 1 of 2 cells lost (boundary:C (gold in context)" in posted["body"]
    assert "- `boundary-004` (boundary, C): gold left the context" in posted["body"]
    # the job summary holds the same table, and the comment is the summary after its marker
    assert _table(first.summary) == LOSS_TABLE
    summary_file = Path(first.outputs["summary"]).read_text()
    assert posted["body"] == f"{MARKER}\n{summary_file.strip()}\n"
    assert first.outputs["comment-url"] == posted["html_url"]
    assert f"posted the comment on pull request #{PR}: {posted['html_url']}" in first.log

    # The next push restores the loss: the same comment is updated, none added
    github.calls.clear()
    second = run_action(tmp_path, runs | {"results": runs["baseline"]}, api=github.url)
    assert not second.failed and "Fail on a loss" not in second.ran
    assert second.outputs["verdict"] == "pass"
    assert [call[0] for call in github.calls] == ["GET", "GET", "PATCH"]
    assert github.calls[-1][1] == f"/repos/{REPOSITORY}/issues/comments/{posted['id']}"
    assert github.marked() == [posted] and len(github.comments) == 121
    assert _table(posted["body"]) == PASS_TABLE
    assert "ragaudit gate: PASS: 2 cells" in posted["body"]
    _assert_token_nowhere(tmp_path, first, second)


def test_a_forks_pull_request_falls_back_to_the_summary_in_one_line(tmp_path, github, runs):
    job = run_action(tmp_path, runs, api=github.url, head="someone/rag")
    assert github.calls == []  # a fork's token is read-only: nothing is asked
    line = (
        f"ragaudit gate: pull request #{PR} comes from someone/rag, whose token cannot "
        "comment: the verdict is in the job summary, not in a comment."
    )
    comment = job.ran["Comment on the pull request"]
    assert comment.returncode == 0 and comment.stdout == line + "\n"
    assert job.summary.count(line) == 1 and _table(job.summary) == LOSS_TABLE
    assert job.ran["Fail on a loss"].returncode == 1 and job.outputs["comment-url"] == ""
    _assert_token_nowhere(tmp_path, job)


def test_a_refused_comment_falls_back_to_the_summary_in_one_line(tmp_path, github, runs):
    github.refuse_post = True
    job = run_action(tmp_path, runs, api=github.url)
    assert [call[0] for call in github.calls] == ["GET", "GET", "POST"] and not github.marked()
    line = (
        f"ragaudit gate: could not comment on pull request #{PR} (POST answered HTTP 403 "
        "(Resource not accessible by integration); the job needs `permissions: "
        "pull-requests: write`): the verdict is in the job summary, not in a comment."
    )
    comment = job.ran["Comment on the pull request"]
    assert comment.returncode == 0 and comment.stdout == line + "\n"
    assert job.summary.count(line) == 1
    assert job.ran["Fail on a loss"].returncode == 1
    _assert_token_nowhere(tmp_path, job)


def test_a_baseline_from_an_artifact_and_the_gates_options(tmp_path, github, runs):
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    shutil.copy(tmp_path / "work" / runs["baseline"], artifact / "results.json")
    inputs = runs | {
        "baseline": "results.json",
        "baseline-artifact": "ragaudit-baseline",
        "max-drop": "100",
        "cells": "boundary:C",
        "comment": "false",
        "junit": "reports/gate.xml",
    }
    job = run_action(tmp_path, inputs, api=github.url, artifacts={"ragaudit-baseline": artifact})
    assert github.calls == [] and list(job.ran) == ["Gate against the baseline", "Fail on a loss"]
    # boundary alone: p = (1/2)^5 = 0.03125, no Holm partner, significant; 100 <= 100
    assert _table(job.summary)[2].startswith(
        "| boundary:C (gold in context) | 100% 5/5 | 0% 0/5 | 5 | 0 | 0.0313 | 0.0313 | 100 "
    )
    assert job.outputs["verdict"] == "fail"
    assert (tmp_path / "work" / "reports" / "gate.xml").is_file()


def test_files_that_cannot_be_gated_say_why_in_the_summary_and_the_comment(tmp_path, github, runs):
    job = run_action(tmp_path, runs | {"results": "reports/missing.json"}, api=github.url)
    assert job.outputs["verdict"] == "error" and job.ran["Fail on a loss"].returncode == 2
    (posted,) = github.marked()
    why = job.ran["Gate against the baseline"].stderr.splitlines()[0]
    assert "reports/missing.json" in why
    assert f"**ragaudit gate: could not gate (exit 2): {why}**" in posted["body"]
    assert job.summary.count("could not gate (exit 2)") == 1
