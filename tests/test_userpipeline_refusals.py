"""A pipeline whose prompt has no NOT_IN_CONTEXT token refuses in its own words: the
abstention grader recognises plain-language refusals (grading.text.ABSTENTION_PATTERNS),
each pattern pinned by hand-written replies that no older pattern caught, and answers
that merely mention knowing or documents are not taken for refusals. End to end, a
pipeline that replies "I don't know." abstains on the unanswerable probe (correct) and is
wrong where the corpus holds the answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragaudit.cli.main import main
from ragaudit.grading.text import ABSTENTION_PATTERNS, abstains

PLAIN = {  # each reply: the plain-language pattern (by its opening words) it stands for
    "I don't know.": r"\bI (?:do not",
    "I do not know the answer to that question.": r"\bI (?:do not",
    "Sorry, I don\u2019t know.": r"\bI (?:do not",
    "There's no answer to that in what I have.": r"\bthere['\u2019]s no",
    "The sources don't tell us when the bridge opened.": r"\b(?:context|documents?|sources?",
    "The documents do not address this question.": r"\b(?:context|documents?|sources?",
    "That is not in any of the documents I was given.": r"\bnot (?:in|within|part of)",
    "It's not part of the provided context.": r"\bnot (?:in|within|part of)",
    "I've no information.": r"\b(?:I have|I['\u2019]ve) no",
    "I've no way to know from these passages.": r"\b(?:I have|I['\u2019]ve) no",
}
ANSWERS = [
    "The tide is at 06:40.",
    "I know the answer: 42 stations.",
    "The documents say the bridge opened in 1932 [c1].",
    "According to the sources, the limit is 55 km/h.",
    "No, the fee is not waived.",
]
PLAIN_PATTERNS = (  # as written in grading/text.py, listed in the results file
    r"\bI (?:do not|don['\u2019]?t) know\b",
    r"\bthere['\u2019]s no (?:information|mention|answer)",
    r"\b(?:context|documents?|sources?|passages?|text) (?:does not|doesn['\u2019]t|do not|"
    r"don['\u2019]t) (?:tell|answer|cover|address)",
    r"\bnot (?:in|within|part of) (?:any of )?(?:the |these |my )?(?:provided |given )?"
    r"(?:context|documents?|sources?|passages?)",
    r"\b(?:I have|I['\u2019]ve) no (?:information|way (?:of|to) know)",
)
OLDER = tuple(p for p in ABSTENTION_PATTERNS if p not in PLAIN_PATTERNS)


@pytest.mark.parametrize("reply", list(PLAIN))
def test_a_plain_language_refusal_abstains(reply):
    assert abstains(reply)
    assert not any(re.search(p, reply, re.IGNORECASE) for p in OLDER)  # new with issue 26
    matched = [p for p in ABSTENTION_PATTERNS if re.search(p, reply, re.IGNORECASE)]
    assert [p for p in matched if p.startswith(PLAIN[reply])] == matched


@pytest.mark.parametrize("reply", ANSWERS)
def test_an_answer_is_not_a_refusal(reply):
    assert not abstains(reply)


REFUSER = """
def make(documents):
    return lambda question: {"answer": "I don't know.", "contexts": [documents[0]["text"]]}
"""


def test_a_pipeline_refusing_in_its_own_words_is_graded_abstained(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    (tmp_path / "refusing_rag.py").write_text(REFUSER)
    monkeypatch.syspath_prepend(str(tmp_path))
    stack = tmp_path / "pipe.yaml"
    stack.write_text("name: refuser\npipeline:\n  factory: refusing_rag:make\n"
                     "probes: [unanswerable, control]\n")  # fmt: skip
    out = tmp_path / "out.json"
    assert main(["run", "--stack", str(stack), "--stack-only", "--n", "1", "--out", str(out)]) == 0
    results = json.loads(out.read_text())
    verdicts = {r["probe"]: r["grade"]["verdict"] for r in results["instances"]}
    assert verdicts == {"unanswerable": "abstained", "control": "abstained"}
    correct = {r["probe"]: r["grade"]["correct"] for r in results["instances"]}
    assert correct == {"unanswerable": True, "control": False}
    assert OLDER + PLAIN_PATTERNS == tuple(results["grading_patterns"]["abstention"])


# Real replies (tests/data/refusals_n25.json): the 1.5B Qwen on the unanswerable probe at
# config B, n=25, with ragaudit's prompt and with it minus its NOT_IN_CONTEXT instruction
# (python -m ragaudit.bench pipeline_n25). Each was read and labelled by hand: `refuses`
# says whether the reply declines for want of evidence, whatever the grader says.
REAL = json.loads((Path(__file__).parent / "data" / "refusals_n25.json").read_text())
REAL_PINS: dict[str, list[str]] = {  # plain pattern (opening words) -> real replies it caught
    p[:14]: [r["reply"] for r in REAL["replies"] if r["refuses"] and re.search(p, r["reply"], re.I)]
    for p in PLAIN_PATTERNS
}
NO_REAL_REPLY = {p[:14] for p in PLAIN_PATTERNS}  # the run gave no refusal in plain words


def test_each_real_reply_is_graded_as_read_by_hand():
    # none refuses: each states a value or a fact, often "This is stated in the context [c3]."
    wrong = [r["reply"] for r in REAL["replies"] if abstains(r["reply"]) != r["refuses"]]
    assert len(REAL["replies"]) == 50 and wrong == []


def test_each_plain_pattern_is_pinned_by_a_real_reply_or_said_to_have_none():
    assert {p for p, replies in REAL_PINS.items() if not replies} == NO_REAL_REPLY
