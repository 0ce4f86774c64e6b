"""Issue 40, item 16: `run --baseline FILE` checks the baseline's pairing before any model
loads (the corpus manifest, the questions, the indexed documents the run will record, the
baseline's side of --gate-pair), and a refusal the gate can only make after the run leaves
the results file as it was: not replaced, the previous run not rotated; the run's results
go to its failed file. Runs at n=1 without generation against the OpenAI-compatible fake on
127.0.0.1 (tests/helpers/hostile_openai_server.py), whose request counts show what was
asked of it; no model is loaded in this process."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers.hostile_openai_server import start_hostile
from helpers.hostile_run import FAST, new_key
from helpers.recording_server import recording_server, requests

from ragaudit.cli.main import main

RUN = ["run", "--no-extra-configs", "--embedders", "openai:hostile-embed", "--no-generate"]


def _serve(patch, server, home) -> None:
    patch.setenv("RAGAUDIT_HOME", str(home))
    patch.setenv("OPENAI_BASE_URL", server.base_url)
    patch.setenv("OPENAI_API_KEY", new_key())
    for name, value in FAST.items():
        patch.setenv(name, value)


@pytest.fixture(scope="module")
def server():
    server = start_hostile("normal")
    yield server
    server.stop()


@pytest.fixture
def served(server, tmp_path, monkeypatch):
    _serve(monkeypatch, server, tmp_path / "home")
    return server


@pytest.fixture(scope="module")
def good_home(server, tmp_path_factory):
    """A data folder after one good n=1 run (results/latest.json and its call cache), made
    once; each test runs on its own copy."""
    home = tmp_path_factory.mktemp("good") / "home"
    with pytest.MonkeyPatch.context() as patch:
        _serve(patch, server, home)
        assert main([*RUN, "--n", "1"]) == 0
    return home


@pytest.fixture
def last_run(served, good_home, tmp_path, capsys):
    """A good n=1 run in the data folder's results/latest.json, and a copy as baseline."""
    shutil.copytree(good_home, tmp_path / "home")
    latest = tmp_path / "home" / "results" / "latest.json"
    base = tmp_path / "base.json"
    base.write_bytes(latest.read_bytes())
    capsys.readouterr()
    return latest, base


def _variant(base, name: str, change) -> str:
    results = json.loads(base.read_text())
    change(results)
    path = base.with_name(f"{name}.json")
    path.write_text(json.dumps(results), encoding="utf-8")
    return str(path)


def _other_question(results: dict) -> None:
    first = results["instances"][0]["instance_id"]
    for record in results["instances"]:
        if record["instance_id"] == first:
            record["question"] = "Which question is this?"


def _one_document_fewer(results: dict) -> None:
    for per_doc in results["chunk_offsets"].values():
        per_doc.pop(sorted(per_doc)[0])


def test_a_baseline_the_gate_refuses_is_refused_before_any_model_loads(
    served, last_run, tmp_path, capsys
):
    latest, base = last_run
    before = latest.read_bytes()
    assert main([*RUN, "--n", "2", "--out", str(tmp_path / "n2.json")]) == 0  # another index
    capsys.readouterr()
    cases = [
        (["--baseline", str(tmp_path / "n2.json")], "the indexed documents differ"),
        (
            ["--baseline", _variant(base, "sha", lambda r: r["corpus"].update(sha256="0" * 64))],
            "the corpora differ (manifest sha256",
        ),
        (
            ["--baseline", _variant(base, "question", _other_question)],
            "1 instance id(s) ask another question in B than in A",
        ),
        (
            ["--baseline", _variant(base, "docs", _one_document_fewer)],
            "0 only in A, 1 only in B",
        ),
        (["--baseline", str(base), "--gate-pair", "nope=A"], "--gate-pair nope=A: unknown config"),
    ]
    asked = served.seen()["requests"]
    for extra, words in cases:
        assert main([*RUN, "--n", "1", *extra]) == 2, extra
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, (extra, err)
        assert "--gate-pair" in extra or "checked before the run" in err
        assert latest.read_bytes() == before  # not replaced
        results = latest.parent
        assert not (results / "latest.prev.json").exists()  # not rotated
        assert not (results / "latest.failed.json").exists()
    assert served.seen()["requests"] == asked  # the server was asked nothing


def test_a_refusal_found_after_the_run_leaves_the_results_file_as_it_was(last_run, capsys):
    latest, base = last_run
    before = latest.read_bytes()
    argv = [*RUN, "--n", "1", "--baseline", str(base), "--gate-cells", "control:Q"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    failed = latest.with_name("latest.failed.json")
    assert err.strip().splitlines()[-1] == (
        "ragaudit run: --cells control:Q: unknown config with a paired control cell 'Q'; "
        "valid: A, A_prime, B, C, C_prime, D, M; "
        f"{latest} left as it was, this run's results are in {failed}"
    )
    assert latest.read_bytes() == before  # not replaced
    assert not latest.with_name("latest.prev.json").exists()  # not rotated
    assert json.loads(failed.read_text())["complete"] is True
    assert not latest.with_name("latest.partial.json").exists()


def test_a_baseline_that_pairs_is_gated_and_the_run_published(last_run, capsys):
    """The checks above can pass: the same run gated against itself publishes and passes."""
    latest, base = last_run
    before = latest.read_bytes()
    assert main([*RUN, "--n", "1", "--baseline", str(base)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("ragaudit gate: PASS")
    assert latest.read_bytes() != before  # replaced by this run (a new created_at)
    assert latest.with_name("latest.prev.json").read_bytes() == before  # the last kept


SERVICE = """name: svc
pipeline:
  http:
    url: URL/ask
    body: {query: "{{question}}"}
    answer: answer
    contexts: sources
    timeout: 10
  ingest: INGEST
"""


def test_a_pipeline_under_ingest_none_is_paired_only_with_the_same_assertion(
    tmp_path, monkeypatch, capsys
):
    """What the plan knows of a pipeline's indexed set: handed over by its ingest (every
    document, recorded) or asserted under `ingest: none`. An asserted run is refused against
    a recorded baseline before the service is asked anything (the recording server's log),
    and paired with an asserted one; a recorded run with a recorded one."""
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    log = tmp_path / "requests.jsonl"
    with recording_server(log) as url:
        handed, asserted = tmp_path / "handed.yaml", tmp_path / "asserted.yaml"
        handed.write_text(SERVICE.replace("URL", url).replace("INGEST", f"{{url: {url}/ingest}}"))
        asserted.write_text(SERVICE.replace("URL", url).replace("INGEST", "none"))
        files = {}
        for stack in (handed, asserted):
            files[stack] = tmp_path / f"{stack.stem}.json"
            argv = ["run", "--stack", str(stack), "--stack-only", "--n", "1"]
            assert main([*argv, "--out", str(files[stack])]) == 0
        capsys.readouterr()
        asked = requests(log)
        argv = ["run", "--stack", str(asserted), "--stack-only", "--n", "1"]
        refused = [*argv, "--out", str(tmp_path / "x.json"), "--baseline", str(files[handed])]
        assert main(refused) == 2
        err = capsys.readouterr().err
        assert "checked before the run" in err and "agrees only with itself" in err
        assert err.count("\n") == 1 and requests(log) == asked  # not ingested, not asked
        assert not (tmp_path / "x.json").exists()
        for stack in (handed, asserted):
            argv = ["run", "--stack", str(stack), "--stack-only", "--n", "1"]
            again = [*argv, "--out", str(tmp_path / "again.json"), "--baseline", str(files[stack])]
            assert main(again) == 0, capsys.readouterr().err
            assert capsys.readouterr().out.splitlines()[-1].startswith("ragaudit gate: PASS")
