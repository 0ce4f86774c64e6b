"""A call that fails or times out is a counted failed call (issue 38): printed as `N of M
calls failed`, its records' mutants `not measured (failed call)`, outside the score's
denominator, never survivors and never "failed unmutated"; the run exits 1. The pipeline
is real user code that outlives limits.call_seconds on one intent's questions."""

from __future__ import annotations

import json

from test_mutate_discriminates import CASES, FILLER, POLICY, TABLE

from ragaudit.cli.main import main

SLOW_PIPELINE = """
import time


def make(documents):
    passages = [(d["id"], p) for d in documents for p in d["text"].split("\\n\\n") if p.strip()]

    def ask(question):
        if "crane" in question.lower():
            time.sleep(5)  # past limits.call_seconds
        value = "63 tonnes" if "crane" in question.lower() else "150 percent"
        found = [(d, p) for d, p in passages if value in p]
        answer = found[0][1] if found else "NOT_IN_CONTEXT"
        return {"answer": answer, "contexts": [{"text": t, "doc_id": d} for d, t in found]}
    return ask
"""
STACK = """name: slow
pipeline:
  factory: slow_rag:make
  args: {}
limits: {call_seconds: 0.5}
"""


def test_a_timed_out_call_is_counted_and_its_mutants_are_not_measured(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.syspath_prepend(str(tmp_path))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "handbook.md").write_text(POLICY, encoding="utf-8")
    (corpus / "cranes.md").write_text(TABLE, encoding="utf-8")
    for i, text in enumerate(FILLER):
        (corpus / f"news-{i}.md").write_text(text, encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "slow_rag.py").write_text(SLOW_PIPELINE, encoding="utf-8")
    (tmp_path / "slow.yaml").write_text(STACK, encoding="utf-8")
    out = tmp_path / "out.json"
    argv = ["mutate", str(corpus), str(tmp_path / "cases.yaml"), "--stack"]
    status = main(
        [*argv, str(tmp_path / "slow.yaml"), "--operators", "supersede", "--out", str(out)]
    )
    err = capsys.readouterr().err
    # a run that lost calls writes its own file and leaves --out alone (issue 40, item 11)
    assert not out.exists()
    results = json.loads((tmp_path / "out.failed.json").read_text(encoding="utf-8"))
    section = results["mutation"]
    assert status == 1
    # the crane question is asked twice: once over the unmutated corpus, once over the
    # one group both supersede mutants share; both calls fail
    assert "2 of " in err and " calls failed: " in err
    assert section["control"]["failed_call"] == 1 and section["control"]["failed_unmutated"] == 0
    assert "crane-k2/1" not in section["excluded_cases"]
    crane = next(m for m in section["mutants"] if m["mutant"] == "supersede/crane-k2")
    assert crane["status"] == "not_measured" and "failed call" in crane["reason"]
    assert all(s["mutant"] != "supersede/crane-k2" for s in section["survivors"])
    (score,) = section["scores"]
    assert score["not_measured"] == 1 and score["applicable"] == 1
