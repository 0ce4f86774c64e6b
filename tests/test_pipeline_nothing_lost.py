"""A failed or killed run never costs the previous results. Real `ragaudit run` processes
against a local server speaking Ollama's API (tests/helpers/ollama_fake.py's handler, here with
chat replies held back until the test lets them go, so the run can be killed by SIGKILL
while it generates: after its partial write, before its final one).

The story: a finished run writes latest.json; a second run is killed mid-generation, which
leaves latest.json as it was (and the inspector showed the run's partial file only while
it ran); a third run finishes, keeps the first run's file as latest.prev.json, says so in
one line, and removes the temp files killed writes left behind; a run with a misspelt
generator is refused before any work and changes nothing."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import ThreadingHTTPServer

import pytest
from helpers.ollama_fake import FakeOllama
from helpers.run_fixtures import FLAGS  # the fast fake-Ollama slice, generating one answer
from helpers.ui_apptest import open_app, texts

from ragaudit.ui.data import in_progress_file

NEW_CALLS = ["--max-tokens", "77"]  # another reply length: generation calls not in the cache
OURS = [  # named as write_text_atomic's temp files are, for the files a run writes
    ".latest.json.k3x9q2ab.tmp",
    ".latest.partial.json.0a1b2c3d.tmp",
    ".latest.prev.json.ffff0000.tmp",
    ".progress.json.abcdefgh.tmp",
]
NOT_OURS = [".notes.txt.abcd1234.tmp", "latest.json.tmp", ".latest.json.not-eight.tmp"]


class HeldChat(FakeOllama):
    """FakeOllama whose chat replies wait until `release` is set."""

    release = threading.Event()
    chats_seen = 0

    def do_POST(self) -> None:
        if self.path == "/api/chat":
            with self.lock:
                type(self).chats_seen += 1
            self.release.wait(120)
        super().do_POST()


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(env, *flags) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ragaudit", "run", *flags],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def wait_for(condition, what: str, process=None, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert process is None or process.poll() is None, f"the run ended before {what}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def inspector_says_partial() -> bool:
    at = open_app()
    assert not at.exception
    return "Partial results" in texts(at)


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    home = tmp_path_factory.mktemp("ragaudit-home")
    results = home / "results"
    target, partial = results / "latest.json", results / "latest.partial.json"
    server = ThreadingHTTPServer(("127.0.0.1", 0), HeldChat)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {**os.environ, "RAGAUDIT_HOME": str(home)}
    env["OLLAMA_HOST"] = f"http://127.0.0.1:{server.server_address[1]}"
    env.pop("RAGAUDIT_CONTENTION_PATTERN", None)
    patch = pytest.MonkeyPatch()  # the inspector, in this process, reads the same folder
    patch.setenv("RAGAUDIT_HOME", str(home))
    patch.delenv("RAGAUDIT_RESULTS", raising=False)
    seen: dict = {}
    try:
        HeldChat.release.set()
        first = run(env, *FLAGS)
        assert first.returncode == 0, first.stderr[-3000:]
        seen["first_sha"] = sha256(target)
        HeldChat.release.clear()
        HeldChat.chats_seen = 0
        killed = subprocess.Popen(
            [sys.executable, "-m", "ragaudit", "run", *FLAGS, *NEW_CALLS],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # Generating: retrieval's results are written, the finished file is not.
        wait_for(lambda: HeldChat.chats_seen > 0, "generation", killed)
        seen["shown_while_running"] = in_progress_file(target)
        seen["inspector_partial_while_running"] = inspector_says_partial()
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
        seen["sha_after_kill"] = sha256(target)
        seen["partial_after_kill"] = json.loads(partial.read_text()) if partial.exists() else None
        seen["prev_after_kill"] = (results / "latest.prev.json").exists()
        seen["shown_after_kill"] = in_progress_file(target)
        seen["inspector_partial_after_kill"] = inspector_says_partial()
        for name in OURS + NOT_OURS:
            (results / name).write_text('{"schema_version": ')  # as a killed write leaves it
        HeldChat.release.set()
        seen["third"] = run(env, *FLAGS, *NEW_CALLS)
        seen["left_in_results"] = sorted(p.name for p in results.iterdir())
    finally:
        HeldChat.release.set()
        patch.undo()
        server.shutdown()
    return {"home": home, "env": env, "target": target, **seen}


@pytest.mark.slow(model=False)  # a whole run against a fake Ollama
def test_a_kill_after_the_partial_write_leaves_the_previous_results_untouched(story):
    assert story["sha_after_kill"] == story["first_sha"]
    assert story["partial_after_kill"]["complete"] is False
    assert not any(r["generation"] for r in story["partial_after_kill"]["instances"])
    assert story["prev_after_kill"] is False  # nothing was replaced, so nothing was kept


def test_the_inspector_shows_the_partial_file_only_while_its_run_runs(story):
    partial = story["target"].with_name("latest.partial.json")
    assert story["shown_while_running"] == partial
    assert story["inspector_partial_while_running"] is True
    # The killed run's leftovers are not passed off as a run in progress.
    assert story["shown_after_kill"] == story["target"]
    assert story["inspector_partial_after_kill"] is False


def test_the_next_run_keeps_the_previous_results_and_says_so_once(story):
    third = story["third"]
    assert third.returncode == 0, third.stderr[-3000:]
    prev = story["target"].with_name("latest.prev.json")
    kept = [line for line in third.stderr.splitlines() if "prev" in line]
    assert kept == [f"kept the previous results as {prev}"]
    assert sha256(prev) == story["first_sha"]
    finished = json.loads(story["target"].read_text())
    assert finished["complete"] is True
    assert finished["run"]["generation_params"] == {"max_tokens": 77}


def test_the_next_run_removes_only_its_own_orphaned_temp_files(story):
    assert story["left_in_results"] == sorted(
        ["latest.json", "latest.prev.json", "progress.json", *NOT_OURS]
    )


def test_a_misspelt_generator_is_refused_before_any_work_and_changes_nothing(story):
    home, target = story["home"], story["target"]
    before = {p: sha256(p) for p in home.rglob("*") if p.is_file()}
    refused = run(story["env"], *FLAGS, "--generator", "local:qwen3")
    assert refused.returncode == 2
    (line,) = refused.stderr.splitlines()
    assert line.startswith("ragaudit run: ") and "local:qwen3" in line
    assert {p: sha256(p) for p in home.rglob("*") if p.is_file()} == before
    assert json.loads(target.read_text())["complete"] is True
