"""remove_answer under `--no-generate`: no answer can show an abstention, so a mutant whose
phrasings still retrieve something is `not_measured` (not a survivor: the run exits 0), and
the retrieval-side measure is the top score drop when the answer is removed, the control
row's top score minus the mutant's, per phrasing. The column is a stack whose retriever
scores a chunk by the question words it shares (words of 4+ letters or digits), so every
score below is counted by hand."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from ragaudit.cli.main import main
from ragaudit.mutation.score import NOT_MEASURED

COUNTING_RETRIEVER = '''
import re

WORDS = re.compile(r"[a-z0-9]+")


def _words(text):
    return {w for w in WORDS.findall(text.lower()) if len(w) > 3 or w.isdigit()}


def make(chunks):
    """Score = the number of question words a chunk shares; chunks sharing none are left
    out, so a corpus with nothing on the question ranks nothing."""
    nodes = [(n.node_id, _words(n.get_content())) for n in chunks]

    def retrieve(question):
        asked = _words(question)
        scored = sorted(((len(asked & words), cid) for cid, words in nodes), reverse=True)
        return [(cid, float(score)) for score, cid in scored if score > 0]
    return retrieve
'''
DOCUMENTS = {
    # question words: what, overtime, rate, quay | much, crane, lift, berth, 5
    "handbook": "Overtime on the quay is paid at 150 percent of the hourly wage.",  # 2 | 0
    "cranes": "Crane K2 at berth 5 lifts 63 tonnes.",  # 0 | 3 (crane, berth, 5)
    "cafe": "The quay cafe opens early every morning.",  # 1 (quay) | 0
    "paint": "The berth is painted blue.",  # 0 | 1 (berth)
}
CASES = """
intents:
  - intent: overtime-rate
    expect: [handbook]
    answer: 150 percent
    phrasings:
      - What is the overtime rate on the quay?
  - intent: crane-k2
    expect: [cranes]
    answer: 63 tonnes
    phrasings:
      - How much can crane K2 lift at berth 5?
"""
STACK = """\
name: counting
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {chunk_size: 400, chunk_overlap: 0}
retriever:
  factory: counting_retriever:make
  args: {}
k: 2
"""


@pytest.fixture
def removed(tmp_path, monkeypatch, capsys):
    """`ragaudit mutate --operators remove_answer --no-generate`: (status, results, stdout,
    the JUnit file's root)."""
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in DOCUMENTS.items():
        (corpus / f"{name}.md").write_text(text + "\n", encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "counting_retriever.py").write_text(COUNTING_RETRIEVER, encoding="utf-8")
    (tmp_path / "counting.yaml").write_text(STACK, encoding="utf-8")
    out, junit = tmp_path / "out.json", tmp_path / "junit.xml"
    status = main(["mutate", str(corpus), str(tmp_path / "cases.yaml"), "--stack",
                   str(tmp_path / "counting.yaml"), "--operators", "remove_answer",
                   "--no-generate", "--out", str(out), "--junit", str(junit)])  # fmt: skip
    results = json.loads(out.read_text(encoding="utf-8"))
    return status, results, capsys.readouterr().out, ET.parse(junit).getroot()


def test_the_top_score_drop_is_recorded_per_phrasing_and_summarised(removed):
    status, results, printed, _ = removed
    records = {(r["probe"], r["instance_id"]): r["mutation"] for r in results["instances"]}
    # control: the answer's document shares 2 and 3 words; with both removed (one corpus
    # for the operator), the best left shares 1 (cafe: quay; paint: berth)
    assert records["control", "overtime-rate/1"]["top_score"] == 2.0
    assert records["control", "crane-k2/1"]["top_score"] == 3.0
    assert records["remove_answer", "overtime-rate/1"]["top_score_drop"] == 2.0 - 1.0
    assert records["remove_answer", "crane-k2/1"]["top_score_drop"] == 3.0 - 1.0
    section = results["mutation"]
    assert section["top_score_drop"] == {"n": 2, "mean": 1.5, "median": 1.5, "reason": None}
    assert "mean 1.500, median 1.500 over 2 phrasings" in printed
    assert "- remove_answer/crane-k2 (not_measured): crane-k2/1 2.000" in printed
    assert status == 0  # nothing survived: something retrieved is not a fabrication yet


def test_a_mutant_that_still_retrieves_is_not_measured_not_survived(removed):
    _, results, printed, root = removed
    section = results["mutation"]
    assert {k: section["control"][k] for k in ("cases", "passed")} == {
        "cases": 2,
        "passed": 2,
    } and section["survivors"] == []
    (score,) = section["scores"]
    assert (score["killed"], score["applicable"], score["not_measured"]) == (0, 0, 2)
    assert score["score"] is None and score["score_reason"] == NOT_MEASURED
    statuses = {m["mutant"]: m["status"] for m in section["mutants"] if m["status"] != "control"}
    assert statuses == {"remove_answer/overtime-rate": "not_measured",
                        "remove_answer/crane-k2": "not_measured"}  # fmt: skip
    assert f"| remove_answer | — ({NOT_MEASURED}) | 0 | 2 | 0 | 0 |" in printed
    skipped = [case.find("skipped") for case in root.iter("testcase")]
    assert [s.text for s in skipped] == [NOT_MEASURED, NOT_MEASURED]
