"""`ragaudit mutate --stack` with a `pipeline:` stack (issue 27): the user's whole pipeline
(a real factory module in tmp_path, no model) is built over each operator's corpus once,
asked every phrasing, and its answers graded; what needs ragaudit's retrieval-side
measures (`--no-generate`) says "not applicable: a pipeline's chunks are its own" (boundary
and table_split pad it by fixed sizes: tests/test_mutate_pipeline_mutants.py). A pipeline
that answers from the latest revision kills `supersede`; one that answers from its
best-matching passage lets it survive."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from test_mutate_discriminates import CASES, FILLER, POLICY, TABLE

from ragaudit.cli.main import main

NOT_APPLICABLE = "not applicable: a pipeline's chunks are its own"
PIPELINE = '''
import json
import re

LOG = __file__ + ".builds.jsonl"


def _words(text):
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3 or w.isdigit()}


def make(documents, latest_first=False, min_overlap=0):
    """Passages are paragraphs; the answer is the best passage's text. latest_first: a
    document saying it supersedes earlier versions wins a tie. min_overlap: refuse when no
    passage shares that many question words. Each build is logged."""
    with open(LOG, "a") as log:
        log.write(json.dumps(sorted(d["id"] for d in documents)) + "\\n")
    revised = {d["id"] for d in documents if "supersedes every earlier version" in d["text"]}
    passages = [(d["id"], p) for d in documents for p in d["text"].split("\\n\\n") if p.strip()]

    def ask(question):
        asked = _words(question)
        ranked = sorted(passages, key=lambda p: (-len(asked & _words(p[1])),
                                                 not (latest_first and p[0] in revised), p[0]))
        best = ranked[0][1] if len(asked & _words(ranked[0][1])) >= min_overlap else None
        found = [{"text": t, "doc_id": d, "score": 1.0} for d, t in ranked[:2]]
        return {"answer": best or "NOT_IN_CONTEXT", "contexts": found}
    return ask
'''


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "handbook.md").write_text(POLICY, encoding="utf-8")
    (corpus / "cranes.md").write_text(TABLE, encoding="utf-8")
    for i, text in enumerate(FILLER):
        (corpus / f"news-{i}.md").write_text(text, encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "paragraph_rag.py").write_text(PIPELINE, encoding="utf-8")
    # each test's module is its own (its build log is in its own folder): another test of
    # this worker may have imported a module of this name, and put its folder on the path
    monkeypatch.delitem(sys.modules, "paragraph_rag", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def mutate(workspace, name: str, *flags: str, operators=("supersede",), **args):
    stack = workspace / f"{name}.yaml"
    stack.write_text(textwrap.dedent(f"""\
        name: {name}
        pipeline:
          factory: paragraph_rag:make
          args: {json.dumps(args)}
        """), encoding="utf-8")  # fmt: skip
    out = workspace / f"{name}.json"
    argv = ["mutate", str(workspace / "corpus"), str(workspace / "cases.yaml"), "--stack",
            str(stack), "--operators", *operators, "--out", str(out)]  # fmt: skip
    argv += flags
    status = main(argv)
    results = json.loads(out.read_text(encoding="utf-8"))
    assert status == (1 if results["mutation"]["survivors"] else 0)
    return results


def score(results: dict, operator: str) -> tuple[int, int]:
    entry = next(s for s in results["mutation"]["scores"] if s["operator"] == operator)
    return entry["killed"], entry["applicable"]


def test_a_pipeline_is_built_once_per_group_of_mutants_and_its_answers_graded(workspace):
    latest = mutate(workspace, "latest", latest_first=True)
    builds = [json.loads(line) for line in (workspace / "paragraph_rag.py.builds.jsonl")
              .read_text().splitlines()]  # fmt: skip
    # the control corpus, then one group: the two supersede mutants touch no document the
    # other intent expects or holds the answer of (cranes vs handbook), so they share a
    # corpus (both revisions beside their originals)
    originals = ["cranes", "handbook", "news-0", "news-1", "news-2"]
    revised = sorted([*originals, "cranes~supersede~crane-k2", "handbook~supersede~overtime-rate"])
    assert builds == [originals, revised]
    assert latest["run"]["builds"]["builds"] == 2
    section = latest["mutation"]
    assert section["basis"] == "answer" and {
        k: section["control"][k] for k in ("cases", "passed")
    } == {"cases": 2, "passed": 2}
    assert score(latest, "supersede") == (2, 2)
    for record in latest["instances"]:
        assert record["generation"]["reply"] and record["grade"]["verdict"]
        assert record["mutation"]["measure"] == NOT_APPLICABLE
    plain = mutate(workspace, "plain")  # the original wins the tie: its old value
    assert score(plain, "supersede") == (0, 2)
    assert {r["instance_id"]: r["grade"]["verdict"] for r in plain["instances"]
            if r["probe"] == "supersede"} == {"overtime-rate/1": "trap_taken",
                                              "crane-k2/1": "trap_taken"}  # fmt: skip


def test_without_generation_a_pipeline_is_refused_before_any_work(workspace, capsys):
    # its chunks are its own, so without its answers nothing can be measured: the run is
    # refused in one line, before the pipeline is built or anything is written
    stack = workspace / "quiet.yaml"
    stack.write_text("name: quiet\npipeline:\n  factory: paragraph_rag:make\n", "utf-8")
    out = workspace / "quiet.json"
    status = main(["mutate", str(workspace / "corpus"), str(workspace / "cases.yaml"),
                   "--stack", str(stack), "--no-generate", "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "--no-generate" in err[0] and "pipeline" in err[0]
    assert not out.exists()
    assert not (workspace / "paragraph_rag.py.builds.jsonl").exists()


def test_a_pipeline_that_refuses_without_evidence_kills_remove_answer(workspace):
    # the answer's fact is removed (the overtime sentence, the crane's table row); what is
    # left shares at most two question words with either question (quay; crane, berth in
    # the table's header), so the pipeline needing three abstains and the other answers
    # anyway. The crane question names berth 5, so it shares three words (crane, berth, 5)
    # with its table unmutated, and the 5 goes with the row.
    cases = workspace / "cases.yaml"
    cases.write_text(CASES.replace("How much can crane K2 lift?",
                                   "How much can crane K2 lift at berth 5?"))  # fmt: skip
    refusing = mutate(workspace, "refusing", operators=("remove_answer",), min_overlap=3)
    assert {k: refusing["mutation"]["control"][k] for k in ("cases", "passed")} == {
        "cases": 2,
        "passed": 2,
    }
    assert score(refusing, "remove_answer") == (2, 2)
    answering = mutate(workspace, "answering", operators=("remove_answer",))
    assert score(answering, "remove_answer") == (0, 2)
    verdicts = {s["mutant"]: s["verdicts"] for s in answering["mutation"]["survivors"]}
    assert verdicts == {"remove_answer/overtime-rate": {"overtime-rate/1": "fabrication"},
                        "remove_answer/crane-k2": {"crane-k2/1": "fabrication"}}  # fmt: skip
