"""A batch of mined facts phrased and checked: the generator writes two phrasings per fact
(or templates stand in), then every check runs and is recorded, cheapest first, so a fact
dropped early costs no further call.

1. phrasing (phrasing.py): two questions in the document's language, a phrasing the checks
   below would drop asked once more (`phrasing_unusable` when the reply holds fewer than
   two, `wrong_language` when the precise one is read as another language);
2. no model: each phrasing asks something (`not_a_question`: a bare name such as
   'gitcvs.dbDriver'), the answer is not in either question (`answer_in_question`); each
   asks for the fact its statement gives (relation.asks_the_fact: `asks_how_to`,
   `asks_yes_no`, `relation_changed`, `anchor_not_named`, `document_not_named`); the answer stands
   verbatim in the source (`not_verbatim_in_source`), the two are not one question twice
   (`near_duplicate`) nor a question already kept (`duplicate_question`);
3. oracle: given only the source paragraph, the generator states the answer for both
   (`oracle_failed`);
4. closed book: asked with no context; a right answer keeps the case, labelled
   `known_without_context`.
A failed call makes its fact `unverified`: never an intent, never silently dropped."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragaudit.auditing.cases import normalise_question
from ragaudit.casemining.asking import Ask, ask_all, failed, said_answer
from ragaudit.casemining.checks import (
    answer_in_question,
    asks_something,
    near_duplicate,
    source_paragraph,
)
from ragaudit.casemining.phrasing import phrase, templates
from ragaudit.casemining.prompts import (
    ANSWER_PARAMS,
    CLOSED_BOOK_PROMPT,
    ORACLE_PROMPT,
    document_title,
)
from ragaudit.casemining.relation import REASONS as FACT_REASONS
from ragaudit.casemining.relation import asks_the_fact
from ragaudit.documents import Document
from ragaudit.mutation.text import holds

REASONS = (
    "phrasing_unusable", "wrong_language", "not_a_question", "answer_in_question",
    *FACT_REASONS.values(),
    "not_verbatim_in_source", "near_duplicate", "duplicate_question", "oracle_failed",
)  # fmt: skip
"""Every reason a fact is dropped for, in the order the checks run."""

Stage = Callable[[str, int], Callable[[int, int, int], None]]
"""progress: a stage's name and size -> its (done, total, replayed) callback."""


@dataclass
class Trial:
    """One fact on its way through the checks."""

    candidate: Any
    language: str
    questions: tuple[str, str] | None = None
    method: str = "generator"
    checks: dict = field(default_factory=dict)
    outcome: str = "pending"
    """`pending` while checks remain; then `kept`, `rejected` or `unverified`."""
    reason: str | None = None
    detail: str | None = None
    known_without_context: bool | None = None

    def reject(self, reason: str, detail: str) -> None:
        self.outcome, self.reason, self.detail = "rejected", reason, detail

    def unverify(self, what: str, generation: dict) -> None:
        self.outcome, self.reason = "unverified", what
        self.detail = generation.get("error") or "the call failed"


@dataclass
class Verifier:
    """Phrases and checks facts of one corpus with one generator (None: templates, and
    the model checks recorded as not run)."""

    documents: dict[str, Document]
    generator: Any
    workers: int = 4
    stage: Stage | None = None
    seen_questions: set[str] = field(default_factory=set)
    _anchor_documents: dict[str, int] = field(default_factory=dict)

    def run(self, candidates: Sequence[Any], languages: dict[str, str]) -> list[Trial]:
        trials = [Trial(c, languages[c.doc_id]) for c in candidates]
        if self.generator is None:
            templates(trials)
        else:
            phrase(trials, self._ask, self._usable)
        for trial in _pending(trials):
            self._offline_checks(trial)
        if self.generator is None:
            for trial in _pending(trials):
                trial.checks["oracle"] = trial.checks["closed_book"] = {
                    "passed": None, "skipped": "--no-generate: no generator"
                }  # fmt: skip
        else:
            self._oracle(_pending(trials))
            self._closed_book(_pending(trials))
        for trial in _pending(trials):
            trial.outcome = "kept"
            self.seen_questions.update(normalise_question(q) for q in trial.questions)
        return trials

    def _ask(self, name: str, asks: list[Ask], prompt: dict, params: dict) -> dict[str, dict]:
        progress = self.stage(name, len(asks)) if self.stage is not None and asks else None
        return ask_all(asks, self.generator, prompt, params, self.workers, progress)

    def _usable(self, trial: Trial, question: str) -> bool:
        """The offline checks would keep this phrasing (phrasing.py asks again if not)."""
        c = trial.candidate
        return (asks_something(question, c.anchor, document_title(c.doc_id))["passed"]
                and answer_in_question(c.answer, question)["passed"]
                and self._fits(trial, question)["passed"])  # fmt: skip

    def _fits(self, trial: Trial, question: str) -> dict:
        c = trial.candidate
        if c.anchor not in self._anchor_documents:
            self._anchor_documents[c.anchor] = sum(
                holds(d.text, c.anchor) for d in self.documents.values()
            )
        return asks_the_fact(
            question, sentence=c.sentence, answer=c.answer, anchor=c.anchor,
            title=document_title(c.doc_id), elsewhere=self._anchor_documents[c.anchor] > 1,
        )  # fmt: skip

    def _offline_checks(self, trial: Trial) -> None:
        c, (first, second) = trial.candidate, trial.questions
        asks = [asks_something(q, c.anchor, document_title(c.doc_id)) for q in (first, second)]
        trial.checks["asks_something"] = {"passed": all(a["passed"] for a in asks), "each": asks}
        fits = [self._fits(trial, q) for q in (first, second)]
        trial.checks["asks_the_fact"] = {"passed": all(f["passed"] for f in fits), "each": fits}
        given_away = [answer_in_question(c.answer, q) for q in (first, second)]
        trial.checks["answer_not_in_question"] = {
            "passed": all(g["passed"] for g in given_away),
            "found": [g.get("found") for g in given_away if not g["passed"]],
        }
        doc = self.documents[c.doc_id]
        others = [d for d in c.pair_docs if d != c.doc_id]
        trial.checks["verbatim_in_source"] = {
            "passed": holds(doc.text, c.answer),
            "also_in": others,
        }
        trial.checks["near_duplicate"] = near_duplicate(first, second)
        repeated = [q for q in (first, second) if normalise_question(q) in self.seen_questions]
        if not trial.checks["asks_something"]["passed"]:
            bare = next(q for q, a in zip((first, second), asks, strict=True) if not a["passed"])
            trial.reject("not_a_question", f"{bare!r} names something, asks nothing")
        elif not trial.checks["answer_not_in_question"]["passed"]:
            trial.reject(
                "answer_in_question",
                f"{trial.checks['answer_not_in_question']['found'][0]!r} in a question",
            )
        elif not trial.checks["asks_the_fact"]["passed"]:
            number, unfit = next((i, f) for i, f in enumerate(fits, 1) if not f["passed"])
            check = unfit[unfit["failed"]]
            trial.reject(FACT_REASONS[unfit["failed"]], f"phrasing {number}: {_said(check)}")
        elif not trial.checks["verbatim_in_source"]["passed"]:
            trial.reject("not_verbatim_in_source", f"{c.answer!r} not in {c.doc_id}")
        elif not trial.checks["near_duplicate"]["passed"]:
            trial.reject(
                "near_duplicate", f"token Jaccard {trial.checks['near_duplicate']['jaccard']}"
            )
        elif repeated or normalise_question(first) == normalise_question(second):
            trial.reject("duplicate_question", f"{(repeated or [first])[0]!r} is asked already")

    def _oracle(self, trials: list[Trial]) -> None:
        asks = []
        for t in trials:
            c = t.candidate
            paragraph = source_paragraph(self.documents[c.doc_id].text, c.start, c.end)
            asks += [Ask(f"{c.candidate_id}#{i}", q, paragraph) for i, q in enumerate(t.questions)]
        replies = self._ask("oracle check", asks, ORACLE_PROMPT, ANSWER_PARAMS)
        for trial in trials:
            outcome = self._graded(trial, replies, "oracle check call failed")
            if outcome is None:
                continue
            trial.checks["oracle"] = {
                "passed": all(o["correct"] for o in outcome),
                "answers": outcome,
            }
            if not trial.checks["oracle"]["passed"]:
                wrong = [o["reply"] for o in outcome if not o["correct"]]
                trial.reject("oracle_failed", f"given its source, answered {wrong[0]!r}")

    def _closed_book(self, trials: list[Trial]) -> None:
        asks = [
            Ask(f"{t.candidate.candidate_id}#{i}", q)
            for t in trials
            for i, q in enumerate(t.questions)
        ]
        replies = self._ask("closed-book check", asks, CLOSED_BOOK_PROMPT, ANSWER_PARAMS)
        for trial in trials:
            outcome = self._graded(trial, replies, "closed-book call failed")
            if outcome is None:
                continue
            trial.known_without_context = any(o["correct"] for o in outcome)
            trial.checks["closed_book"] = {"known": trial.known_without_context, "answers": outcome}

    def _graded(self, trial: Trial, replies: dict[str, dict], what: str) -> list[dict] | None:
        generations = [replies[f"{trial.candidate.candidate_id}#{i}"] for i in range(2)]
        broken = next((g for g in generations if failed(g)), None)
        if broken is not None:
            trial.unverify(what, broken)
            return None
        return [said_answer(g, trial.candidate.answer) for g in generations]


def _said(check: dict) -> str:
    """One line of what a failed fact check found."""
    shown = {k: v for k, v in check.items() if k != "passed" and v}
    return ", ".join(f"{k} {v}" for k, v in shown.items()) or "failed"


def _pending(trials: list[Trial]) -> list[Trial]:
    return [t for t in trials if t.outcome == "pending"]
