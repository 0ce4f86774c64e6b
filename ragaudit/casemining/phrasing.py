"""Two phrasings per fact: the generator's, repaired where they miss the fact, or templates
under --no-generate.

1. The generator writes a precise and a casual question from the fact's statement.
2. A phrasing the checks would drop (not a question, not asking this fact: relation.py), and
   a casual one that asks the precise one's question again, is asked once more, the
   precise one in the manual's style, the casual one from the precise one, each request
   naming what it must keep (the value, the anchor as written, the page).
3. Where the casual one still fails, the precise one passes and the statement gives a
   default, maximum or minimum, the casual one is the template's search-box query for the
   fact ('default gc.reflogExpire in git-config?'), and the phrasing is recorded as
   `generator, casual from template`. Not for a value stated without one: 'value of
   BITMAP_OPT_HASH_CACHE?' for the size of a cache that flag turns on asks another thing
   (all five such queries of the first git-doc run did).
Read by hand, the 1.5B generator left the anchor out of 24 of 100 git-doc facts' precise
questions and wrote one question twice for 22 more; asking once more keeps such facts
without keeping their faults. Every reply, first and second, is recorded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragaudit.casemining.asking import Ask, failed
from ragaudit.casemining.checks import near_duplicate, parse_phrasings
from ragaudit.casemining.language import detect_language
from ragaudit.casemining.prompts import (
    PHRASE_PARAMS,
    PHRASE_PROMPT,
    casual_request,
    document_title,
    phrase_request,
    precise_request,
    template_phrasings,
)
from ragaudit.casemining.relation import stated_relation

Asker = Callable[[str, list[Ask], dict, dict], dict[str, dict]]
"""(stage name, asks, prompt, params) -> key -> generation (Verifier._ask)."""
Usable = Callable[[Any, str], bool]
"""(trial, phrasing) -> whether the offline checks would keep it."""
FROM_TEMPLATE = "generator, casual from template"


def templates(trials: list[Any]) -> None:
    """--no-generate: both phrasings from the templates."""
    for trial in trials:
        trial.questions, trial.method = _templates(trial), "template"


def phrase(trials: list[Any], ask: Asker, usable: Usable) -> None:
    """The generator's two phrasings of each fact, repaired (module docstring), then the
    precise one's language checked against the document's."""
    asks = [Ask(t.candidate.candidate_id, phrase_request(
        document_title(t.candidate.doc_id), t.candidate.sentence, t.candidate.heading,
        t.candidate.answer, t.candidate.anchor, t.language)) for t in trials]  # fmt: skip
    replies = ask("phrasing facts", asks, PHRASE_PROMPT, PHRASE_PARAMS)
    for trial in trials:
        generation = replies[trial.candidate.candidate_id]
        if failed(generation):
            trial.unverify("phrasing call failed", generation)
            continue
        trial.questions = parse_phrasings(generation["reply"])
        trial.checks["phrasing"] = {"reply": generation["reply"]}
        if trial.questions is None:
            trial.reject("phrasing_unusable", "the reply holds fewer than two questions")
    pending = [t for t in trials if t.outcome == "pending"]
    _ask_again(pending, ask, usable)
    for trial in (t for t in pending if t.outcome == "pending"):
        _casual_from_template(trial, usable)
        _check_language(trial)


def _again(trial: Any, usable: Usable) -> list[str]:
    """Which of a fact's phrasings to ask once more: 'precise', 'casual' or both."""
    precise, casual = trial.questions
    which = [] if usable(trial, precise) else ["precise"]
    if not usable(trial, casual) or not near_duplicate(precise, casual)["passed"]:
        which.append("casual")
    return which


def _ask_again(trials: list[Any], ask: Asker, usable: Usable) -> None:
    wanted = {t.candidate.candidate_id: _again(t, usable) for t in trials}
    asks = []
    for trial in trials:
        c = trial.candidate
        relation = stated_relation(c.sentence, c.answer, c.anchor)
        for which in wanted[c.candidate_id]:
            request = precise_request if which == "precise" else casual_request
            text = request(trial.questions[0], c.anchor, document_title(c.doc_id),
                           trial.language, relation)  # fmt: skip
            asks.append(Ask(f"{c.candidate_id}#{which}", text))
    replies = ask("rewriting phrasings", asks, PHRASE_PROMPT, PHRASE_PARAMS)
    for trial in trials:
        for which in wanted[trial.candidate.candidate_id]:
            generation = replies[f"{trial.candidate.candidate_id}#{which}"]
            if failed(generation):
                trial.unverify("rewriting call failed", generation)
                break
            _replace(trial, which, generation["reply"])


def _replace(trial: Any, which: str, reply: str | None) -> None:
    """The phrasing `which` replaced by the reply's first line, when it holds one."""
    lines = [line for line in (reply or "").splitlines() if line.strip()]
    parsed = parse_phrasings(f"{lines[0]}\n{lines[0]}") if lines else None  # one line
    index = 0 if which == "precise" else 1
    trial.checks["phrasing"][f"{which}_rewritten"] = {
        "was": trial.questions[index], "reply": reply}  # fmt: skip
    if parsed is not None:
        questions = list(trial.questions)
        questions[index] = parsed[0]
        trial.questions = tuple(questions)


def _casual_from_template(trial: Any, usable: Usable) -> None:
    precise, casual = trial.questions
    if not usable(trial, precise):
        return  # the checks drop the fact for its precise phrasing
    if usable(trial, casual) and near_duplicate(precise, casual)["passed"]:
        return
    c = trial.candidate
    if stated_relation(c.sentence, c.answer, c.anchor) is None:
        return  # 'value of <anchor>' presumes the value is the anchor's; a default says so
    query = _templates(trial)[1]
    trial.checks["phrasing"]["casual_from_template"] = {"was": casual, "template": query}
    trial.questions, trial.method = (precise, query), FROM_TEMPLATE


def _check_language(trial: Any) -> None:
    read_as = [detect_language(q) for q in trial.questions]
    passed = read_as[0] in (trial.language, "und")
    trial.checks["language"] = {"document": trial.language, "phrasings": read_as,
                                "passed": passed}  # fmt: skip
    if not passed:
        trial.reject("wrong_language", f"document {trial.language}, question {read_as[0]}")


def _templates(trial: Any) -> tuple[str, str]:
    c = trial.candidate
    return template_phrasings(c.anchor, document_title(c.doc_id), c.sentence, c.answer,
                              trial.language)  # fmt: skip
