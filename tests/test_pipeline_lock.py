"""Two `ragaudit run`s on one data folder: the second waits for the first (one line naming
its PID), then replays what the first computed. Never a Chroma or SQLite `database is
locked` traceback, never advice to move a healthy cache aside. Real processes against the
fake Ollama (tests/helpers/ollama_fake.py) on a fresh RAGAUDIT_HOME each time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragaudit.runner.lock import hold_run_lock

pytestmark = pytest.mark.slow(model=False)  # two real runs racing for the lock (no generator)

FLAGS = ["--n", "1", "--embedders", "ollama:mxbai-embed-large", "--no-generate"]
TRIES = 4  # without the lock about one try in three failed (the issue saw 2 in 3)


def environment(home, server) -> dict:
    env = {**os.environ, "RAGAUDIT_HOME": str(home), "OLLAMA_HOST": server.url}
    env.pop("RAGAUDIT_CONTENTION_PATTERN", None)
    return env


def start_run(env, err_path):
    with open(err_path, "w") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "ragaudit", "run", *FLAGS],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
            stdin=subprocess.DEVNULL,
        )


def waiting_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("waiting for")]


def test_two_runs_started_together_both_finish_one_after_the_other(tmp_path, fake_ollama):
    server = fake_ollama()
    for attempt in range(TRIES):
        home = tmp_path / f"home-{attempt}"
        env = environment(home, server)
        tmp_path.joinpath(f"{attempt}").mkdir()
        errs = [tmp_path / f"{attempt}" / f"{name}.err" for name in ("first", "second")]
        runs = [start_run(env, err) for err in errs]
        codes = [run.wait(timeout=600) for run in runs]
        stderrs = [err.read_text() for err in errs]
        for stderr in stderrs:
            assert "Traceback" not in stderr, stderr[-3000:]
            assert "locked" not in stderr and "aside" not in stderr, stderr[-3000:]
        assert codes == [0, 0], stderrs
        # At most one waited, and it named the other's PID.
        waited = [(run, waiting_lines(s)) for run, s in zip(runs, stderrs, strict=True)]
        waiters = [lines for _, lines in waited if lines]
        assert len(waiters) <= 1 and all(len(lines) == 1 for lines in waiters)
        for run, lines in waited:
            if lines:
                (other,) = [r for r in runs if r is not run]
                assert lines[0] == (
                    f"waiting for the run in progress on {home} (pid {other.pid}) to finish"
                )
        results = json.loads((home / "results" / "latest.json").read_text())
        assert results["complete"] is True
        assert json.loads((home / "results" / "latest.prev.json").read_text())["complete"]


def test_a_run_waits_while_another_holds_the_lock_and_starts_when_it_ends(tmp_path, fake_ollama):
    server = fake_ollama()
    home = tmp_path / "home"
    env = environment(home, server)
    err_path = tmp_path / "run.err"
    with hold_run_lock(home):  # this test process is the run in progress
        run = start_run(env, err_path)
        deadline = time.monotonic() + 120
        while not waiting_lines(err_path.read_text()) and time.monotonic() < deadline:
            assert run.poll() is None, err_path.read_text()
            time.sleep(0.1)
        (line,) = waiting_lines(err_path.read_text())
        assert line == f"waiting for the run in progress on {home} (pid {os.getpid()}) to finish"
        time.sleep(1.0)
        # Still waiting, and it has touched neither the call cache nor Chroma.
        assert run.poll() is None
        assert not (home / "cache.sqlite").exists() and not (home / "chroma").exists()
    assert run.wait(timeout=600) == 0, err_path.read_text()[-3000:]
    assert "Traceback" not in err_path.read_text()
    assert json.loads((home / "results" / "latest.json").read_text())["complete"] is True
    assert (home / "run.lock").read_text() == ""  # released: no PID left behind


def test_a_killed_holder_never_blocks_the_next_run(tmp_path, fake_ollama):
    server = fake_ollama()
    home = tmp_path / "home"
    env = environment(home, server)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; "
            "from ragaudit.runner.lock import hold_run_lock\n"
            "with hold_run_lock(Path(sys.argv[1])):\n"
            "    print('held', flush=True); time.sleep(600)",
            str(home),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline() == "held\n"
    assert (home / "run.lock").read_text() == f"{holder.pid}\n"
    holder.kill()
    holder.wait(timeout=30)
    err_path = tmp_path / "run.err"
    assert start_run(env, err_path).wait(timeout=600) == 0, err_path.read_text()[-3000:]
    assert waiting_lines(err_path.read_text()) == []


def test_an_audit_waits_for_the_run_in_progress(tmp_path):
    # `ragaudit audit` with cases writes the same call cache and Chroma as a run.
    home = tmp_path / "home"
    examples = Path(__file__).resolve().parent.parent / "examples" / "audit"
    env = {**os.environ, "RAGAUDIT_HOME": str(home)}
    err_path = tmp_path / "audit.err"
    argv = [sys.executable, "-m", "ragaudit", "audit", str(examples / "corpus"),
            str(examples / "cases.yaml"), "--settings", str(examples / "prod.yaml"),
            "--out", str(tmp_path / "audit.json")]  # fmt: skip
    with hold_run_lock(home), open(err_path, "w") as err:
        audit = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + 60
        while not waiting_lines(err_path.read_text()) and time.monotonic() < deadline:
            assert audit.poll() is None, err_path.read_text()
            time.sleep(0.1)
        (line,) = waiting_lines(err_path.read_text())
        assert line == f"waiting for the run in progress on {home} (pid {os.getpid()}) to finish"
        assert not (home / "cache.sqlite").exists()
    assert audit.wait(timeout=300) == 0, err_path.read_text()[-3000:]
    assert json.loads((tmp_path / "audit.json").read_text())["summary"]["cases"] == 6
