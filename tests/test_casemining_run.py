"""`ragaudit cases` end to end against a generator that speaks Ollama's protocol on
127.0.0.1 (tests/helpers/cases_stand_in.py): each fact of tests/data/cases_mining/corpus is
written so that the stand-in's fixed rules decide its fate, and each expected outcome below
is worked out by hand from those rules.

- listen_port 5432: kept; the stand-in answers 5432 with no context, so known_without_context;
- checkpoint_timeout 300 seconds, maxsize 128 entries: kept, not known without context;
- LEAK_LIMIT: its questions hold "64 connections", so both are asked again (the stand-in's
  rewrites still hold it): answer_in_question;
- TWIN_WINDOW: two identical questions (token Jaccard 1.0 > 0.8), so the casual one is asked
  again; it comes back the same, so the casual phrasing is the template's query: kept;
- BLIND_SPAN: the oracle says "I do not know.": oracle_failed;
- MUTE_DEPTH: a one-line reply: phrasing_unusable;
- FAILME_RATE: HTTP 500 on every call: unverified (a failed call), never an intent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers.cases_stand_in import start_cases_stand_in

CORPUS = Path(__file__).parent / "data" / "cases_mining" / "corpus"
GENERATOR = "ollama:stand-in-chat"


@pytest.fixture(scope="module")
def stand_in():
    server = start_cases_stand_in()
    yield server
    server.stop()


@pytest.fixture
def env(stand_in, tmp_path):
    return {**os.environ, "RAGAUDIT_HOME": str(tmp_path / "home"), "OLLAMA_HOST": stand_in.url,
            "RAGAUDIT_RETRIES": "0"}  # fmt: skip


def cases(env: dict, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "ragaudit", "cases", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def test_every_fact_is_kept_rejected_or_unverified_for_its_own_reason(env, tmp_path):
    out = tmp_path / "cases.yaml"
    run = cases(env, str(CORPUS), "--out", str(out), "--generator", GENERATOR, "--all-kinds")
    assert run.returncode == 1, run.stderr  # a failed call: exit 1, the file still written
    made = yaml.safe_load(out.read_text(encoding="utf-8"))
    counts = made["counts"]
    assert (counts["candidates"], counts["checked"], counts["kept"]) == (8, 8, 4)
    assert counts["rejected"] == {"answer_in_question": 1, "oracle_failed": 1,
                                  "phrasing_unusable": 1}  # fmt: skip
    assert (counts["unverified"], counts["known_without_context"]) == (1, 1)
    kept = {i["anchor"]: i for i in made["intents"]}
    assert set(kept) == {"listen_port", "checkpoint_timeout", "maxsize setting", "TWIN_WINDOW"}
    port = kept["listen_port"]
    assert (port["answer"], port["expect"], port["known_without_context"]) == (
        "5432", ["server"], True)  # fmt: skip
    assert port["phrasings"] == ["What default does the manual give for listen_port?",
                                 "how is listen_port set by default"]  # fmt: skip
    checks = port["provenance"]["checks"]
    assert checks["oracle"]["passed"] is True and checks["closed_book"]["known"] is True
    # tokens 8 and 6, two shared (default, listen_port): 2/12
    assert checks["near_duplicate"]["jaccard"] == 0.167
    assert kept["checkpoint_timeout"]["known_without_context"] is False
    assert made["unverified"][0]["anchor"] == "FAILME_RATE"
    reasons = {r["anchor"]: r["reason"] for r in made["rejected"]}
    assert reasons == {
        "LEAK_LIMIT": "answer_in_question", "BLIND_SPAN": "oracle_failed",
        "MUTE_DEPTH": "phrasing_unusable",
    }  # fmt: skip
    # TWIN's casual phrasing was asked again from its precise one, came back the same, and
    # the template's query for a default in window.md took its place
    twin = kept["TWIN_WINDOW"]
    phrasing = twin["provenance"]["checks"]["phrasing"]
    assert phrasing["casual_rewritten"] == {
        "was": "What is the default of TWIN_WINDOW?",
        "reply": "What is the default of TWIN_WINDOW?"}  # fmt: skip
    assert twin["phrasings"] == ["What is the default of TWIN_WINDOW?",
                                 "default TWIN_WINDOW in window?"]  # fmt: skip
    assert twin["provenance"]["phrasing"] == "generator, casual from template"
    # LEAK's two were both asked again, the precise one in the manual's style
    leak = next(r for r in made["rejected"] if r["anchor"] == "LEAK_LIMIT")
    assert set(leak["checks"]["phrasing"]) == {"reply", "precise_rewritten", "casual_rewritten"}
    assert "4 kept of 8 facts checked (50% 4/8)" in run.stdout
    assert "known without context: 25% 1/4" in run.stdout
    assert "unverified: 1 facts lost a generator call" in run.stdout
    # the file is the case format both readers take
    from ragaudit.auditing.cases import read_case_file

    assert [i.intent for i in read_case_file(out)[0].intents] == [
        i["intent"] for i in made["intents"]
    ]


def test_by_default_only_a_setting_named_in_code_is_checked(env, tmp_path):
    out = tmp_path / "cases.yaml"
    cases(env, str(CORPUS), "--out", str(out), "--generator", GENERATOR)
    made = yaml.safe_load(out.read_text(encoding="utf-8"))
    # the eight facts above but 'maxsize setting', a setting named in plain words
    assert (made["counts"]["candidates"], made["counts"]["kept"]) == (7, 3)
    assert "maxsize setting" not in {i["anchor"] for i in made["intents"]}
    assert made["generated_by"]["thresholds"]["kinds"] == "trusted"


def test_a_rerun_replays_every_call_and_writes_the_same_cases(env, tmp_path):
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    cases(env, str(CORPUS), "--out", str(first), "--generator", GENERATOR, "--all-kinds")
    cases(env, str(CORPUS), "--out", str(second), "--generator", GENERATOR, "--all-kinds")
    a, b = (yaml.safe_load(p.read_text(encoding="utf-8")) for p in (first, second))
    assert a["intents"] == b["intents"] and a["rejected"] == b["rejected"]
    # phrasings: 8 asked, FAILME's failed (never cached): 7; asked again: TWIN's casual one
    # and LEAK's two: 3; MUTE and LEAK stop there; oracle: 2 x 5 (listen_port,
    # checkpoint_timeout, maxsize, BLIND_SPAN, TWIN) = 10; closed book: 2 x 4 (BLIND_SPAN
    # failed its oracle) = 8. 7 + 3 + 10 + 8 = 28 replayed, and nothing computed but
    # FAILME's phrasing, asked again
    calls = b["generated_by"]["calls"]
    assert (calls["replayed"], calls["computed"]) == (28, 0)


def test_templates_without_a_generator_are_marked_and_run_no_model_check(env, tmp_path):
    out = tmp_path / "t.yaml"
    run = cases(env, str(CORPUS), "--out", str(out), "--no-generate", "--max", "2")
    assert run.returncode == 0, run.stderr
    made = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert made["counts"]["kept"] == 2 and made["generated_by"]["generator"] is None
    first = made["intents"][0]
    # the statement gives a default ('defaults to 5432'): the default template, its page named
    assert first["phrasings"] == ["What is the default of listen_port in server?",
                                  "default listen_port in server?"]  # fmt: skip
    assert first["provenance"]["phrasing"] == "template"
    assert first["provenance"]["checks"]["oracle"] == {
        "passed": None, "skipped": "--no-generate: no generator"}  # fmt: skip


def test_bad_input_is_one_line_exit_2_and_nothing_written(env, tmp_path):
    inside = tmp_path / "corpus"
    shutil.copytree(CORPUS, inside)
    run = cases(env, str(inside), "--out", str(inside / "cases.yaml"), "--no-generate")
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert "lies in the corpus folder" in run.stderr
    assert sorted(p.name for p in inside.iterdir()) == ["cache.md", "server.md", "window.md"]
    run = cases(env, str(inside), "--out", str(tmp_path / "x.yaml"), "--max", "0")
    assert run.returncode == 2 and "--max 0" in run.stderr and not (tmp_path / "x.yaml").exists()


def test_the_dry_run_mines_and_tells_the_calls_without_writing(env, tmp_path):
    out = tmp_path / "never.yaml"
    run = cases(env, str(CORPUS), "--out", str(out), "--generator", GENERATOR, "--max", "2",
                "--dry-run")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "mined 7 facts from 3 documents" in run.stdout  # all but 'maxsize setting'
    # at least 5 calls per kept case (2 x 5 = 10), at most 6 per fact (7 x 6 = 42)
    assert "10" in run.stdout and "at most 42 calls" in run.stdout
    assert not out.exists() and not (tmp_path / "home" / "cache.sqlite").exists()


def test_a_german_document_is_asked_in_german_and_read_back_as_german(env, tmp_path):
    out = tmp_path / "de.yaml"
    german = CORPUS.parent / "german"
    run = cases(env, str(german), "--out", str(out), "--generator", GENERATOR)
    assert run.returncode == 0, run.stderr
    made = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert made["generated_by"]["languages"] == {"de": 1}
    by_anchor = {i["anchor"]: i for i in made["intents"]}
    assert {a: i["answer"] for a, i in by_anchor.items()} == {
        "idle_wait": "fünf Sekunden", "max_threads": "16 Threads"}  # fmt: skip
    wait = by_anchor["idle_wait"]
    # the stand-in answers a request that says "in German" in German
    assert wait["phrasings"] == ["Welchen Standardwert hat idle_wait laut Handbuch?",
                                 "wie ist idle_wait standardmäßig eingestellt"]  # fmt: skip
    assert wait["provenance"]["language"] == "de"
    assert wait["provenance"]["checks"]["language"] == {
        "document": "de", "phrasings": ["de", "de"], "passed": True}  # fmt: skip
