"""A person's review of a cases file: each intent accepted, rejected or left undecided, and
edited (its phrasings, answer, anchor); an edit checked as the miner checks a case; and
the reviewed file's content, the accepted intents alone in the cases file's format.

Plain data in, plain data out: the page holds the decisions and edits in its session.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ragaudit.casemining.checks import answer_in_question

UNDECIDED, ACCEPT, REJECT = "undecided", "accept", "reject"
DECISIONS = (UNDECIDED, ACCEPT, REJECT)
"""A reviewer's choices for one intent, in the order the page offers them."""


@dataclass(frozen=True)
class Edit:
    """What a reviewer may change in an intent."""

    phrasings: tuple[str, ...]
    answer: str
    anchor: str


def phrasing_text(phrasing: str | Mapping) -> str:
    """A phrasing's question: a bare string, or the `q` of a phrasing with its own id."""
    return phrasing if isinstance(phrasing, str) else str(phrasing.get("q", ""))


def as_written(intent: Mapping) -> Edit:
    """The intent's phrasings, answer and anchor as the file has them."""
    return Edit(
        tuple(phrasing_text(p) for p in intent.get("phrasings") or []),
        str(intent.get("answer") or ""),
        str(intent.get("anchor") or ""),
    )


def edited_fields(intent: Mapping, edit: Edit) -> list[str]:
    """The fields `edit` changes, in the file's order (empty: nothing edited)."""
    before = as_written(intent)
    return [name for name in ("phrasings", "answer", "anchor")
            if getattr(edit, name) != getattr(before, name)]  # fmt: skip


def edit_problem(edit: Edit, document: str | None, doc_id: str) -> str | None:
    """One line saying why `edit` cannot be saved, or None: a blank field, a phrasing
    giving the answer away (the miner's own check), or an answer that does not stand
    verbatim in its source document (unknown when the document could not be read)."""
    if not edit.answer.strip():
        return "the answer is blank"
    if not edit.anchor.strip():
        return "the anchor is blank"
    for number, question in enumerate(edit.phrasings, 1):
        if not question.strip():
            return f"phrasing {number} is blank"
        given_away = answer_in_question(edit.answer, question)
        if not given_away["passed"]:
            return f"phrasing {number} gives the answer away ({given_away['found']!r} is in it)"
    if document is None:
        return f"{doc_id} could not be read, so the answer cannot be checked against it"
    if edit.answer not in document:
        return f"the answer {edit.answer!r} does not stand verbatim in {doc_id}"
    return None


def answer_span(document: str, answer: str, near: int) -> tuple[int, int] | None:
    """The occurrence of `answer` in `document` nearest to offset `near`, as [start, end)."""
    starts = [match.start() for match in re.finditer(re.escape(answer), document)]
    if not answer or not starts:
        return None
    start = min(starts, key=lambda s: (abs(s - near), s))
    return start, start + len(answer)


def sentence_span(document: str, source: Mapping) -> tuple[int, int] | None:
    """Where the source's sentence stands in `document`: its recorded `sentence_start`,
    else the occurrence of its text that holds the answer's span; None when not found."""
    sentence = source.get("sentence") or ""
    start, end = source.get("start"), source.get("end")
    given = source.get("sentence_start")
    if sentence and isinstance(given, int) and document[given : given + len(sentence)] == sentence:
        return given, given + len(sentence)
    if not sentence or not isinstance(start, int) or not isinstance(end, int):
        return None
    for match in re.finditer(re.escape(sentence), document):
        if match.start() <= start and end <= match.end():
            return match.span()
    return None


def applied(intent: Mapping, edit: Edit, document: str | None) -> dict:
    """A copy of `intent` with `edit` applied: its phrasings (a phrasing with its own id
    keeps it), answer and anchor; the source span moved to the new answer's occurrence
    nearest the old one; and `provenance.review` saying what was edited and what it was
    before, since the recorded checks ran on that."""
    fields = edited_fields(intent, edit)
    result = copy.deepcopy(dict(intent))
    if not fields:
        return result
    result["phrasings"] = [
        {**phrasing, "q": new} if isinstance(phrasing, Mapping) else new
        for phrasing, new in zip(intent["phrasings"], edit.phrasings, strict=True)
    ]
    result["answer"], result["anchor"] = edit.answer, edit.anchor
    provenance = result.setdefault("provenance", {}) or {}
    result["provenance"] = provenance
    source = provenance.get("source")
    if isinstance(source, dict) and document is not None and "answer" in fields:
        span = answer_span(document, edit.answer, int(source.get("start") or 0))
        if span is not None:
            source["start"], source["end"] = span
    before = as_written(intent)
    provenance["review"] = {
        "edited": fields,
        "before": {name: list(getattr(before, name)) if name == "phrasings"
                   else getattr(before, name) for name in fields},
    }  # fmt: skip
    return result


def reviewed_document(
    document: Mapping, decisions: Mapping[str, str], edits: Mapping[str, Edit],
    texts: Mapping[str, str | None],
) -> dict:  # fmt: skip
    """The reviewed cases file: the input's `generated_by`, its `counts` with
    `reviewed: {accepted, rejected, edited}`, the accepted intents (edited where edited)
    in the input's order, and its `rejected` and `unverified` lists as the miner wrote
    them. `decisions` and `edits` are by intent name; `texts` is each intent's source
    document (None when unread)."""
    intents, edited, rejected = [], 0, 0
    for intent in document["intents"]:
        name = intent["intent"]
        decision = decisions.get(name, UNDECIDED)
        rejected += decision == REJECT
        if decision != ACCEPT:
            continue
        edit = edits.get(name, as_written(intent))
        edited += bool(edited_fields(intent, edit))
        intents.append(applied(intent, edit, texts.get(name)))
    counts = copy.deepcopy(dict(document.get("counts") or {}))
    counts["reviewed"] = {"accepted": len(intents), "rejected": rejected, "edited": edited}
    reviewed = {"generated_by": copy.deepcopy(document["generated_by"]), "counts": counts,
                "intents": intents}  # fmt: skip
    for listed in ("rejected", "unverified"):
        if document.get(listed) is not None:
            reviewed[listed] = copy.deepcopy(document[listed])
    return reviewed
