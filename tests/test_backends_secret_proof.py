"""The proof that a key is never written (issue 40, item 4): every fault mode of every fake
service ragaudit talks to, each run with a fresh random high-entropy key holding `/`, `+`
and `"` (helpers/key_leaks.py), against a service that echoes it raw, JSON-escaped,
repr'd, URL-encoded and base64-encoded wherever its mode says:

- a `pipeline: http:` service (helpers/echo_service.py: every field of its reply, every
  error body), its ingest endpoint (error bodies and a redirect), and an ingest command
  that writes the key on stdout and stderr;
- a judge behind the recording proxy (`ragaudit judges`, RAGAS and DeepEval): a verdict
  with the echo beside it, fields the libraries validate holding it (pydantic's
  `input_value=…`), a reply that is only the echo, error bodies, the model listing;
- an OpenAI-compatible embeddings and chat server (helpers/hostile_openai_server.py, all
  of its modes, echoing in every form).

After each run no file under the data folder (results, call cache and its WAL, whatever a
library writes in the working folder, which is the data folder here) and no byte of
stdout or stderr holds 8 or more consecutive characters of the key in any of those forms,
and the run ended in an exit code, not a traceback. The number of fault modes and keys
tried is printed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.echo_service import (
    COMMAND_MODES,
    INGEST_MODES,
    JUDGE_MODES,
    PIPELINE_MODES,
    ingest_command,
    pipeline_stack,
    start_echo,
)
from helpers.hostile_openai_server import MODES as OPENAI_MODES
from helpers.hostile_openai_server import start_hostile
from helpers.hostile_run import FAST, RUN
from helpers.key_leaks import echoed, leaks_in, leaks_in_folder, new_key

import ragaudit.runner.progress  # noqa: F401 (its default stream is bound before capture)
from ragaudit.backends.redact import Redactor
from ragaudit.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "ragaudit" / "assets" / "reference" / "reference.json.gz"
QUICK = {"RAGAUDIT_RETRIES": "1", "RAGAUDIT_RETRY_DELAY": "0", "RAGAUDIT_RETRY_AFTER_MAX": "0.1"}


class Proof:
    """Runs one command per (service, mode) with a fresh key and data folder; collects
    every leak and every run that did not end in an exit code."""

    def __init__(self, tmp_path: Path, monkeypatch, capfd) -> None:
        self.tmp_path, self.monkeypatch, self.capfd = tmp_path, monkeypatch, capfd
        self.problems: list[str] = []
        self.modes = self.keys = 0

    def run(self, name: str, argv: list[str], key: str, home: Path) -> int | str:
        self.modes += 1
        self.keys += 1
        self.capfd.readouterr()
        try:
            status = main(argv)
        except BaseException as error:  # noqa: BLE001 (the proof lists it, then goes on)
            status = f"raised {type(error).__name__}"
        captured = self.capfd.readouterr()
        output = captured.out + captured.err
        if status not in (0, 1, 2) or "Traceback" in output:
            self.problems.append(f"{name}: exit {status}: {output[-300:]!r}")
        for where in leaks_in_folder(home, key):
            self.problems.append(f"{name}: {where}")
        for stream, text in (("stdout", captured.out), ("stderr", captured.err)):
            if leaks := leaks_in(text, key):
                self.problems.append(f"{name}: {stream} holds {leaks[0]!r}")
        return status

    def home(self, name: str, key_env: str) -> tuple[Path, str]:
        """A fresh data folder and key for one run (the working folder too)."""
        home = self.tmp_path / name
        home.mkdir()
        key = new_key()
        self.monkeypatch.setenv("RAGAUDIT_HOME", str(home))
        self.monkeypatch.setenv(key_env, key)
        self.monkeypatch.chdir(home)
        return home, key

    def done(self, what: str) -> None:
        print(f"{what}: {self.modes} fault modes, {self.keys} random keys; no run of 8 key "
              "characters written in any form")  # fmt: skip
        assert self.problems == [], "\n".join(self.problems)


@pytest.fixture
def proof(tmp_path, monkeypatch, capfd):
    for name, value in QUICK.items():
        monkeypatch.setenv(name, value)
    return Proof(tmp_path, monkeypatch, capfd)


def test_the_redactor_masks_every_form_the_proof_looks_for():
    for _ in range(200):
        key = new_key()
        echo = echoed(f"Bearer {key}")
        assert len(leaks_in(echo, key)) > 100  # the check finds the forms echoed
        for secret in (key, f"Bearer {key}"):
            assert leaks_in(Redactor(secret)(echo), key) == []


@pytest.mark.slow(model=False)  # 25 runs of the CLI (about 25 s)
def test_no_fault_of_a_pipeline_service_or_its_ingest_writes_the_key(proof):
    service = start_echo()
    try:
        runs = [(mode, mode, "none") for mode in ("normal", *PIPELINE_MODES)]
        runs += [(mode, mode, f"{{url: '{service.base_url}/ingest', batch: 100}}")
                 for mode in INGEST_MODES]  # fmt: skip
        runs += [(name, "normal", ingest_command(status)) for name, status in COMMAND_MODES.items()]
        for name, mode, ingest in runs:
            service.set_mode(mode)
            home, key = proof.home(name, "SVC_KEY")
            mapped = not mode.startswith("plain")
            stack = pipeline_stack(home.parent, service.base_url, ingest, mapped)
            argv = ["run", "--stack", str(stack), "--stack-only", "--n", "1"]
            proof.run(f"pipeline {name}", argv, key, home)
    finally:
        service.stop()
    proof.done("pipeline http: service, ingest endpoint and command")


@pytest.mark.slow(model=False)  # imports RAGAS and DeepEval, 8 judges runs (about 25 s)
def test_no_fault_of_a_judge_writes_the_key(proof):
    service = start_echo()
    metrics = ["--metric", "ragas:faithfulness", "--metric", "deepeval:faithfulness"]
    try:
        for mode in ("normal", *JUDGE_MODES):
            service.set_mode(mode)
            home, key = proof.home(mode, "OPENAI_API_KEY")
            argv = ["judges", "--results", str(REFERENCE), "--judge", "openai:echo-judge",
                    "--base-url", f"{service.base_url}/v1", "--per-group", "1",
                    "--max-records", "1", *metrics]  # fmt: skip
            proof.run(f"judge {mode}", argv, key, home)
    finally:
        service.stop()
    proof.done("judge behind the recording proxy")


@pytest.mark.slow(model=False)  # 27 runs of the CLI (about 40 s)
def test_no_fault_of_an_openai_compatible_server_writes_the_key(proof, monkeypatch):
    for name, value in {**FAST, "RAGAUDIT_RETRIES": "0"}.items():  # throttled: no waits
        monkeypatch.setenv(name, value)
    for mode in OPENAI_MODES:
        server = start_hostile(mode, echo_forms=True)
        try:
            home, key = proof.home(mode, "OPENAI_API_KEY")
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
            proof.run(f"openai {mode}", list(RUN), key, home)
        finally:
            server.stop()
    proof.done("OpenAI-compatible embeddings and chat")
