"""One case file for `ragaudit audit` and `ragaudit mutate` (issue 38, item 5): the audit
reads mutate's `answer:` and `anchor:` and records them on its cases; mutate reads the
audit's case file and refuses an intent without `answer:` in one line naming it. The audit
runs through a stack whose retriever counts shared question words (no model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragaudit.auditing.cases import load_cases
from ragaudit.auditing.corpus_io import read_user_corpus
from ragaudit.cli.main import main
from ragaudit.errors import RagauditError
from ragaudit.mutation.cases import load_mutation_cases

EXAMPLES = Path(__file__).parent.parent / "examples"
MUTATE = EXAMPLES / "mutate"

COUNTING_RETRIEVER = '''
import re

WORDS = re.compile(r"[a-z0-9]+")


def make(chunks):
    """Score = the number of question words (4+ letters, or digits) a chunk shares."""
    def words(text):
        return {w for w in WORDS.findall(text.lower()) if len(w) > 3 or w.isdigit()}

    nodes = [(n.node_id, words(n.get_content())) for n in chunks]

    def retrieve(question):
        asked = words(question)
        scored = sorted(((len(asked & w), cid) for cid, w in nodes), reverse=True)
        return [(cid, float(score)) for score, cid in scored if score > 0]
    return retrieve
'''
STACK = """\
name: counting
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {chunk_size: 400, chunk_overlap: 0}
retriever:
  factory: counting_retriever:make
  args: {}
k: 3
"""


def test_the_mutate_example_case_file_loads_for_the_audit_with_its_answers():
    cases = load_cases(MUTATE / "cases.yaml")
    # 14 intents asked two ways each (examples/mutate/cases.yaml)
    assert len(cases) == 28
    first, last = cases[0], cases[-1]
    assert (first.case_id, first.answer, first.anchor) == (
        "domestic-meal-allowance/1",
        "46 euros",
        "domestic trips",
    )
    assert (last.case_id, last.answer, last.anchor) == (
        "onboarding-courses/2",
        "10 working days",
        "mandatory online courses",
    )
    # an audit case file names neither: the cases carry none
    audit_case = load_cases(EXAMPLES / "audit" / "cases.yaml")[0]
    assert (audit_case.answer, audit_case.anchor) == (None, None)


def test_ragaudit_audit_runs_on_the_mutate_case_file_and_records_answers(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    cases = str(MUTATE / "cases.yaml")
    corpus = str(MUTATE / "corpus")
    # the dry run checks every input as the audit does and embeds nothing
    settings = str(MUTATE / "recursive.yaml")
    assert main(["audit", corpus, cases, "--settings", settings, "--dry-run"]) == 0
    assert "unknown field" not in capsys.readouterr().err
    (tmp_path / "counting_retriever.py").write_text(COUNTING_RETRIEVER, encoding="utf-8")
    (tmp_path / "counting.yaml").write_text(STACK, encoding="utf-8")
    out = tmp_path / "audit.json"
    status = main(["audit", corpus, cases, "--stack", str(tmp_path / "counting.yaml"),
                   "--out", str(out)])  # fmt: skip
    assert status in (0, 1), capsys.readouterr().err
    records = {c["case_id"]: c for c in json.loads(out.read_text(encoding="utf-8"))["cases"]}
    assert len(records) == 28
    meal = records["domestic-meal-allowance/2"]
    assert (meal["answer"], meal["anchor"]) == ("46 euros", "domestic trips")
    manager = records["eastfield-manager/1"]
    assert (manager["answer"], manager["anchor"]) == ("Helen Marsh", "Eastfield")


def test_mutate_refuses_an_audit_case_file_in_one_line_naming_intent_and_field(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    cases = EXAMPLES / "audit" / "cases.yaml"
    out = tmp_path / "never.json"
    status = main(["mutate", str(EXAMPLES / "audit" / "corpus"), str(cases), "--no-generate",
                   "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    # line 5 of examples/audit/cases.yaml: `  - intent: death-benefit-estate`
    assert status == 2 and not out.exists()
    assert err == [
        f"ragaudit mutate: case file {cases}: line 5: intents[0].answer: intent "
        "'death-benefit-estate' names no answer: mutate needs the value its expected document "
        "states, verbatim"
    ]


def test_an_intent_without_answer_after_one_with_is_named_by_its_position(tmp_path):
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "intents:\n"
        "  - intent: leave\n    expect: [policies/leave]\n    answer: 27 days\n"
        "    phrasings:\n      - How many days of leave do I get?\n"
        "  - intent: passwords\n    expect: [it/passwords]\n    anchor: password\n"
        "    phrasings:\n      - How long must a password be?\n",
        encoding="utf-8",
    )
    with pytest.raises(RagauditError) as refused:
        load_mutation_cases(cases, read_user_corpus(MUTATE / "corpus").documents)
    assert str(refused.value).startswith(
        f"case file {cases}: line 7: intents[1].answer: intent 'passwords' names no answer"
    )
    # the audit takes the same file as it is
    assert [c.answer for c in load_cases(cases)] == ["27 days", None]
