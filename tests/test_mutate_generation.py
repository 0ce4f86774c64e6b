"""`ragaudit mutate` with generation (issue 27), on the real 0.5B generator: two intents of
examples/mutate, one phrasing each, two operators. Every record (the control row, each
supersede and remove_answer mutant) is answered over what the settings retrieved and graded
by the judge-free graders; the control and supersede records also over their oracle
context, so each wrong answer is attributed as in the matrix. The mutation section reads
those verdicts: a mutant is killed when every phrasing that passed the control row was
graded correct (an abstention for remove_answer, where an answer is a fabrication)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragaudit.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "mutate"
CASES = """
intents:
  - intent: domestic-meal-allowance
    expect: [policies/travel]
    answer: 46 euros
    anchor: domestic trips
    phrasings:
      - What is the daily meal allowance on domestic trips?
  - intent: annual-leave-days
    expect: [policies/leave]
    answer: 27 days
    anchor: Full-time employees
    phrasings:
      - How many days of paid annual leave do full-time employees get?
"""
SETTINGS = (
    "name: small\nembedder: local:minilm\nsplitter: recursive\nchunk_size: 400\noverlap: 0\nk: 2\n"
)
VERDICTS = {"correct", "wrong", "abstained", "trap_taken", "empty", "labels_only",
            "partial_list", "denied_record"}  # fmt: skip
ATTRIBUTIONS = {"correct", "retrieval", "generation", "ceiling"}


@pytest.mark.slow
def test_mutants_are_answered_graded_and_attributed(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES, encoding="utf-8")
    settings = tmp_path / "small.yaml"  # short prompts: two 400-character chunks
    settings.write_text(SETTINGS, encoding="utf-8")
    out = tmp_path / "mutate.json"
    status = main(["mutate", str(EXAMPLE / "corpus"), str(cases), "--settings",
                   str(settings), "--operators", "supersede", "remove_answer",
                   "--out", str(out)])  # fmt: skip
    results = json.loads(out.read_text(encoding="utf-8"))
    section = results["mutation"]
    assert section["basis"] == "answer"
    assert results["run"]["generate"] and results["generator"]["spec"] == "local:qwen2.5-0.5b"
    by_probe = {}
    for record in results["instances"]:
        by_probe.setdefault(record["probe"], []).append(record)
    # 2 phrasings under the control row and under each operator
    assert {p: len(r) for p, r in by_probe.items()} == {
        "control": 2, "supersede": 2, "remove_answer": 2}  # fmt: skip
    for record in results["instances"]:
        assert record["generation"]["status"] == "ok" and record["generation"]["reply"]
        assert record["grade"]["verdict"] in VERDICTS
        assert record["attribution"] in ATTRIBUTIONS, record["key"]
        if record["probe"] == "remove_answer":
            # nothing to give the oracle: the answer's documents are gone
            assert record["grading"] == {"kind": "abstain"} and record["oracle"] is None
            assert record["grade"]["verdict"] in ("abstained", "wrong")
        else:
            oracle = record["oracle"]
            assert oracle["generation"]["status"] == "ok" and oracle["grade"]["verdict"]
    supersede = {r["instance_id"]: r for r in by_probe["supersede"]}
    for record in supersede.values():  # the new value is right, the old one the trap
        old = next(s for s in record["trap_spans"])
        assert record["grading"]["trap_values"] and record["gold_answer"] not in old["text"]
    # the section's per-phrasing verdicts are the records' grades, and decide kill / survive
    control = {r["instance_id"]: r["grade"]["correct"] for r in by_probe["control"]}
    for mutant in section["mutants"]:
        if mutant["operator"] == "control":
            continue
        records = {r["instance_id"]: r for r in by_probe[mutant["operator"]]
                   if r["meta"]["intent"] == mutant["intent"]}  # fmt: skip
        for case, seen in mutant["phrasings"].items():
            verdict = records[case]["grade"]["verdict"]
            if mutant["operator"] == "remove_answer" and verdict == "wrong":
                verdict = "fabrication"
            assert seen["verdict"] == verdict and seen["reply"] == records[case]["generation"][
                "reply"] and seen["attribution"] == records[case]["attribution"]  # fmt: skip
        eligible = [c for c in mutant["phrasings"] if control[c]]
        if not eligible:
            assert mutant["status"] == "excluded"
        else:
            handled = all(records[c]["grade"]["correct"] for c in eligible)
            assert mutant["status"] == ("killed" if handled else "survived")
    assert status == (1 if section["survivors"] else 0)
    printed = capsys.readouterr().out
    assert "## Mutation score: small (graded answers)" in printed
