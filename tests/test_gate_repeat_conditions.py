"""Issue 40, item 18: `run --repeat K` takes its conditions from the generator that actually
answers. A stack file's `openai:` generator (the run's own generator, llama.cpp by default,
answering nothing) is varied by its seed, so the rerun computes and finds the flaky
verdicts; a run no generator of ragaudit's answers (a pipeline answers by itself) is refused
before any work; and a rerun that asked the very calls of the first run says so and exits
2, never "0 flaky".

The server is tests/helpers/seeded_chat_server.py: seed 17 (odd) abstains, seed 18 (even)
echoes the prompt, so the flaky records are those the rerun grades correct, counted here
from the two files."""

from __future__ import annotations

import json

import pytest
from helpers.gate_fixtures import gate_run, write_run
from helpers.hostile_run import FAST, new_key
from helpers.seeded_chat_server import start_seeded

from ragaudit.cli.main import main
from ragaudit.errors import RagauditError
from ragaudit.runner.plan import build_plan
from ragaudit.runner.repeat import RepeatOptions, run_repeated
from ragaudit.stack import presets

STACK = """name: mine
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {chunk_size: 1000, chunk_overlap: 200}
embedder: openai:hostile-embed
generator: openai:hostile-chat
k: 3
"""
PROBES = ["--gen-probes", "control", "negation", "superseded", "distractor"]


@pytest.fixture
def seeded(tmp_path, monkeypatch):
    server = start_seeded()
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", new_key())
    for name, value in FAST.items():
        monkeypatch.setenv(name, value)
    yield server
    server.stop()


def test_a_stack_files_openai_generator_is_varied_by_its_seed(seeded, tmp_path, capsys):
    stack = tmp_path / "mine.yaml"
    stack.write_text(STACK, encoding="utf-8")
    out = tmp_path / "latest.json"
    argv = ["run", "--stack", str(stack), "--stack-only", "--n", "1", *PROBES]
    assert main([*argv, "--repeat", "2", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    first = json.loads(out.read_text())
    rerun = json.loads((tmp_path / "latest.repeat-1.json").read_text())
    assert rerun["run"]["generation_params"]["seed"] == 18
    calls = rerun["conditions"]["calls_by_model"]["openai:hostile-chat"]
    assert calls["computed"] >= 1  # the rerun asked the server again
    graded = [r for r in first["instances"] if r.get("grade")]
    assert graded and all(not r["grade"]["correct"] for r in graded)  # seed 17 abstains
    expected = sorted(r["key"] for r in rerun["instances"] if (r.get("grade") or {}).get("correct"))
    assert expected, "the rerun's echoed prompts grade nothing correct: the test sees nothing"
    assert first["flaky"] == {"conditions": ["seed 17", "seed 18"], "instances": expected}
    assert f"{len(expected)} flaky instance(s) under seed 17, seed 18" in err
    assert "llama.cpp" not in err


def test_a_run_only_a_pipeline_answers_is_refused_before_any_work(seeded, tmp_path, capsys):
    stack = tmp_path / "pipe.yaml"
    stack.write_text(
        "name: pipe\npipeline:\n  http:\n    url: http://127.0.0.1:9/ask\n"
        '    body: {query: "{{question}}"}\n    answer: answer\n    contexts: sources\n'
        "    context_text: text\n  ingest: none\n",
        encoding="utf-8",
    )
    out = tmp_path / "latest.json"
    argv = ["run", "--stack", str(stack), "--stack-only", "--n", "1", "--repeat", "2"]
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--repeat 2: no generator of ragaudit's answers this run" in err
    assert "pipeline pipe answers by itself" in err
    assert not out.exists() and not (tmp_path / "home" / "cache.sqlite").exists()


def _generated(path, seed: int | None, threads: int) -> dict:
    """A finished run whose one record was answered by a llama.cpp generator at `threads`."""
    results = gate_run({("superseded", "C"): [False]}, measure="correct")
    results["models"].append(
        {"spec": "local:qwen2.5-0.5b", "kind": "generator", "name": "qwen", "digest": "q" * 64,
         "llm_threads": threads}
    )  # fmt: skip
    results["run"]["generation_params"] = {"max_tokens": 256}
    if seed is not None:
        results["run"]["generation_params"]["seed"] = seed
    results["instances"][0]["generation"]["generator"] = "local:qwen2.5-0.5b"
    return json.loads(write_run(path, results).read_text())


def test_a_rerun_that_asked_the_same_calls_exits_2_and_reports_no_flaky_count(
    tmp_path, monkeypatch
):
    """The conditions as a run reports them: a rerun recording the first run's generator,
    threads and parameters asked the very calls of the first run (all replayed)."""
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGAUDIT_LLM_THREADS", "2")
    plan = build_plan(presets.QUICK, n=1, out=tmp_path / "latest.json")
    said: list[str] = []

    def same_conditions(one) -> int:  # what a run whose conditions did not reach it writes
        _generated(one.out, None, threads=2)
        return 0

    with pytest.raises(RagauditError) as refused:
        run_repeated(plan, RepeatOptions(count=2), same_conditions, said.append)
    assert str(refused.value) == (
        "--repeat 2: the rerun under llama.cpp 1 thread asked the very calls of the first run "
        "(local:qwen2.5-0.5b: the same model, settings and parameters), so it computed no new "
        "call and no verdict could change; nothing was marked flaky"
    )
    assert not any("flaky instance(s)" in line for line in said)
    assert "flaky" not in json.loads((tmp_path / "latest.json").read_text())

    def other_threads(one) -> int:  # the check above can pass: another thread count counts
        _generated(one.out, None, threads=1 if "repeat" in one.out.name else 2)
        return 0

    said.clear()
    assert run_repeated(plan, RepeatOptions(count=2), other_threads, said.append) == 0
    assert "0 flaky instance(s) under llama.cpp 2 threads, llama.cpp 1 thread" in said[-1]
