"""`ragaudit run --repeat K` and `ragaudit run --baseline FILE` against a real local HTTP
server (tests/helpers/seeded_chat_server.py) whose reply depends on the seed: the run as
asked sends seed 17 (odd: every reply abstains, so nothing is correct), the rerun seed 18
(even: the reply is the prompt itself, so a record whose context holds its accepted value
is graded correct). The flaky records are therefore exactly those the rerun grades correct,
counted here from the two files."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from helpers.gate_fixtures import gate_run, write_run
from helpers.hostile_run import FAST, new_key
from helpers.seeded_chat_server import start_seeded

from ragaudit.cli.main import main

RUN = ["run", "--n", "1", "--no-extra-configs", "--embedders", "openai:hostile-embed"]
RUN += ["--generator", "openai:hostile-chat", "--gen-configs", "A", "C"]
RUN += ["--gen-probes", "control", "negation", "superseded", "distractor"]


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


def test_repeat_marks_the_verdicts_another_seed_changes(seeded, tmp_path, capsys):
    out = tmp_path / "latest.json"
    assert main([*RUN, "--repeat", "2", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    first = json.loads(out.read_text())
    rerun = json.loads((tmp_path / "latest.repeat-1.json").read_text())
    assert first["run"]["generation_params"].get("seed") is None  # as asked: the default 17
    assert rerun["run"]["generation_params"]["seed"] == 18
    graded = [r for r in first["instances"] if r.get("grade")]
    assert graded and all(not r["grade"]["correct"] for r in graded)
    expected = sorted(r["key"] for r in rerun["instances"] if (r.get("grade") or {}).get("correct"))
    assert expected, "the rerun's echoed prompts grade nothing correct: the test sees nothing"
    assert first["flaky"] == {"conditions": ["seed 17", "seed 18"], "instances": expected}
    for record in first["instances"]:
        if record["key"] in expected:
            assert record["flaky"]["verdicts"] == ["abstained", "correct"]
        else:
            assert "flaky" not in record
    assert f"{len(expected)} flaky instance(s) under seed 17, seed 18" in err
    assert f"  flaky {expected[0]}" in err

    # --baseline: the same run again (replayed), gated against the marked file
    again = tmp_path / "again.json"
    code = main([*RUN, "--out", str(again), "--baseline", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    assert printed.splitlines()[-1].startswith("ragaudit gate: PASS")
    assert f"{len(expected)} flaky instance(s) left out" in printed.splitlines()[-1]


def test_repeat_and_baseline_refuse_before_any_work(seeded, tmp_path, capsys):
    out = tmp_path / "latest.json"
    base = [
        "--baseline",
        str(write_run(tmp_path / "base.json", gate_run({("control", "A"): [True]}))),
    ]
    for extra, words in (
        (["--repeat", "1"], "--repeat 1: give 2 to 8 conditions"),
        (["--repeat", "2", "--no-generate"], "--repeat reruns generation"),
        (["--baseline", str(tmp_path / "missing.json")], "missing.json"),
        (["--gate-alpha", "0.01"], "--gate-alpha is an option of the gate after the run"),
        ([*base, "--gate-alpha", "0.9"], "--gate-alpha '0.9': give a number in (0, 0.5]"),
        ([*base, "--gate-max-drop", "x"], "--gate-max-drop 'x': give a number in [0, 100]"),
        ([*base, "--gate-cells", "control"], "--cells 'control': write PROBE:CONFIG"),
        ([*base, "--gate-junit", base[1]], "writing it would replace the input"),
        ([*base, "--gate-summary", str(out)], "is the results file"),
    ):
        assert main([*RUN, *extra, "--out", str(out)]) == 2, extra
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1, (extra, err)
        assert not out.exists()


def test_baseline_passes_the_gate_options_through(seeded, tmp_path, capsys):
    """The same run twice (the second replayed from the call cache): every record is the
    same, so each gated cell has no discordant pair: one-sided p = 1, Holm 1, drop 0."""
    out = tmp_path / "latest.json"
    assert main([*RUN, "--out", str(out)]) == 0
    capsys.readouterr()
    junit, summary = tmp_path / "ci" / "gate.xml", tmp_path / "ci" / "gate.md"
    gate = ["--baseline", str(out), "--gate-cells", "control:A", "--gate-alpha", "0.5"]
    gate += ["--gate-max-drop", "0", "--gate-junit", str(junit), "--gate-summary", str(summary)]
    code = main([*RUN, "--out", str(tmp_path / "again.json"), *gate])
    printed = capsys.readouterr().out
    assert code == 0
    # --gate-cells control:A: its two measures (generation ran on A for control), no other
    names = [c.get("name") for c in ET.parse(junit).getroot().iter("testcase")]
    assert names == ["control:A (gold in context)", "control:A (answer correct)"]
    reasoning = (
        "lost 0, gained 0; one-sided McNemar p = 1.0000 (Holm 1.0000), not significant at "
        "0.5; drop 0 points <= --max-drop 0: pass"
    )
    assert printed.count(reasoning) == 2
    assert "no drop over 0 points" in printed.splitlines()[-1]
    assert summary.read_text().startswith("## ragaudit gate")


@pytest.mark.slow
def test_repeat_on_a_local_model_reruns_under_another_thread_count(tmp_path, monkeypatch, capsys):
    """The 0.5B in process, n=1: the rerun's file records the other thread count."""
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGAUDIT_LLM_THREADS", "2")
    out = tmp_path / "latest.json"
    args = ["run", "--n", "1", "--no-extra-configs", "--embedders", "local:minilm"]
    args += ["--generator", "local:qwen2.5-0.5b", "--gen-configs", "A", "--gen-probes", "control"]
    assert main([*args, "--repeat", "2", "--out", str(out)]) == 0
    first = json.loads(out.read_text())
    rerun = json.loads((tmp_path / "latest.repeat-1.json").read_text())
    threads = [
        next(m["llm_threads"] for m in r["models"] if m["kind"] == "generator")
        for r in (first, rerun)
    ]
    assert threads == [2, 1]
    assert first["flaky"]["conditions"] == ["llama.cpp 2 threads", "llama.cpp 1 thread"]
    assert rerun["conditions"]["calls_by_model"]["local:qwen2.5-0.5b"]["computed"] >= 1
    assert (
        "flaky instance(s) under llama.cpp 2 threads, llama.cpp 1 thread" in capsys.readouterr().err
    )
