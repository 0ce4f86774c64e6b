"""`ragaudit.cases` in Python and zero-config mutate (`ragaudit mutate DOCS` with no case
file), against the generator stand-in of tests/test_casemining_run.py (Ollama's protocol on
127.0.0.1); the outcome of each fact is worked out there, by hand, from its rules: 3 kept
(listen_port, checkpoint_timeout, maxsize setting), 1 unverified (FAILME_RATE)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import ragaudit
from tests.helpers.cases_stand_in import start_cases_stand_in

CORPUS = Path(__file__).parent / "data" / "cases_mining" / "corpus"
SETTINGS = Path(__file__).parents[1] / "examples" / "mutate" / "recursive.yaml"
GENERATOR = "ollama:stand-in-chat"
KEPT = {"listen_port", "checkpoint_timeout", "TWIN_WINDOW"}
"""The facts tests/test_casemining_run.py keeps but 'maxsize setting': by default only a
setting named in code is checked."""


@pytest.fixture(scope="module")
def stand_in():
    server = start_cases_stand_in()
    before = {key: os.environ.get(key) for key in ("OLLAMA_HOST", "RAGAUDIT_RETRIES")}
    os.environ.update(OLLAMA_HOST=server.url, RAGAUDIT_RETRIES="0")
    yield server
    for key, value in before.items():
        os.environ.pop(key) if value is None else os.environ.__setitem__(key, value)
    server.stop()


def test_cases_returns_the_verified_intents_as_case_objects(stand_in, tmp_path):
    mined = ragaudit.cases(CORPUS, generator=GENERATOR, data_dir=tmp_path / "home",
                           progress=False, out=tmp_path / "mined.yaml")  # fmt: skip
    assert isinstance(mined, ragaudit.MinedCases) and mined.path == tmp_path / "mined.yaml"
    assert {case.anchor for case in mined.intents} == KEPT
    assert all(isinstance(case, ragaudit.Case) for case in mined.intents)
    assert [u["anchor"] for u in mined.unverified] == ["FAILME_RATE"]
    assert repr(mined) == "MinedCases(kept=3, checked=7, rejected=3, unverified=1)"
    written = yaml.safe_load((tmp_path / "mined.yaml").read_text(encoding="utf-8"))
    assert written["intents"] == mined.document["intents"]


def test_cases_takes_documents_built_in_python(stand_in, tmp_path):
    documents = [(p.stem, p.read_text(encoding="utf-8")) for p in sorted(CORPUS.iterdir())]
    mined = ragaudit.cases(documents, generator=GENERATOR, data_dir=tmp_path / "home",
                           progress=False)  # fmt: skip
    assert {case.anchor for case in mined.intents} == KEPT
    assert mined.document["generated_by"]["corpus"]["documents"] == 3


@pytest.mark.slow
def test_mutate_without_cases_mines_them_first_then_reuses_them(stand_in, tmp_path):
    env = {**os.environ, "RAGAUDIT_HOME": str(tmp_path / "home")}
    out = tmp_path / "home" / "results" / "zero.json"
    command = [sys.executable, "-m", "ragaudit", "mutate", str(CORPUS), "--settings",
               str(SETTINGS), "--no-generate", "--generator", GENERATOR,
               "--out", str(out)]  # fmt: skip
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode in (0, 1), first.stderr
    assert "cases: mined 3 verified cases for corpus sha256" in first.stderr
    copy = out.with_name("zero.cases.yaml")
    assert f"a copy to review and pin: {copy}" in first.stderr
    pinned = yaml.safe_load(copy.read_text(encoding="utf-8"))
    assert {i["anchor"] for i in pinned["intents"]} == KEPT
    results = json.loads(out.read_text(encoding="utf-8"))
    # each record names its mutant `<operator>/<intent>`: only the pinned intents are asked,
    # never the unverified fact
    asked = {r["mutation"]["mutant"].split("/", 1)[1] for r in results["instances"]}
    assert asked == {i["intent"] for i in pinned["intents"]}
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert "cases: reused 3 verified cases" in second.stderr
