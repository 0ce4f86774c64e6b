"""Every distinct question asked of a pipeline once, through the call cache, up to
`workers` in flight (backends.concurrency.ordered_outcomes).

An answer is keyed by (the pipeline's name, its identity, the question): a rerun replays it,
and an edited factory module, URL or template, or a bumped `version:`, asks again
(targets.pipeline.identity). Each computed answer is stored with its identity and how long it
took (for --dry-run's estimate). Outcomes are taken in question order and everything with
a visible effect (cache rows, counts, failures) is done then, so `--workers 4` stores,
counts and fails exactly as `--workers 1`. A question the pipeline fails on is one failed
call with its one-line reason; the next question is asked.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from ragaudit.backends.cache import call_key
from ragaudit.backends.concurrency import ordered_outcomes
from ragaudit.backends.reply_text import storable
from ragaudit.errors import ModelCallFailed
from ragaudit.targets.pipeline.answer import PipelineAnswer
from ragaudit.targets.pipeline.safe_answers import replayable, storable_answer

BACKEND = "pipeline"
KIND = "answer"


def answer_key(model: str, identity: str, question: str) -> str:
    """The call-cache key of one question's answer."""
    return call_key(BACKEND, model, identity, KIND, {}, question)


def cached_answers(cache: Any, model: str, identity: str, questions: Sequence[str]) -> dict:
    """question -> PipelineAnswer for the questions the cache holds (a row that does not
    read back is a miss, asked again; so is one holding a lone surrogate, in one line)."""
    keys = {answer_key(model, identity, q): q for q in questions}
    found: dict[str, PipelineAnswer] = {}
    poisoned = 0
    for key, value in cache.get_many(list(keys)).items():
        try:
            answer = PipelineAnswer.from_json(json.loads(value))
        except (ValueError, KeyError, TypeError):
            continue
        if replayable(answer):
            found[keys[key]] = answer
        else:
            poisoned += 1
    if poisoned:
        print(f"{model}: {poisoned} stored answer(s) hold a lone surrogate (stored before "
              "replies were checked): not replayed, asked again", file=sys.stderr)  # fmt: skip
    return found


def ask_all(
    questions: Sequence[str],
    ask: Callable[[str], PipelineAnswer],
    cache: Any,
    *,
    model: str,
    identity: str,
    workers: int = 1,
    on_answer: Callable[[int], None] | None = None,
) -> tuple[dict[str, PipelineAnswer | str], set[str]]:
    """question -> its answer, or the failed call's reason, and the questions replayed;
    `on_answer(replayed)` after each."""
    questions = list(dict.fromkeys(questions))
    replayed = cached_answers(cache, model, identity, questions)
    answers: dict[str, PipelineAnswer | str] = {}
    for question in questions:
        if question in replayed:
            answers[question] = replayed[question]
            cache.count(model, "replayed", keys=[question])
            if on_answer is not None:
                on_answer(1)
    missing = [q for q in questions if q not in replayed]

    def timed(question: str) -> tuple[PipelineAnswer, float]:
        started = time.perf_counter()
        answer = ask(question)
        return answer, time.perf_counter() - started

    for question, outcome in zip(missing, ordered_outcomes(timed, missing, workers), strict=True):
        if outcome.error is not None:
            error = outcome.error
            reason = str(error) if isinstance(error, ModelCallFailed) else _line(error)
            reason = storable(reason)
            answers[question] = reason
            cache.record_failure(model, KIND, reason, keys=[question])
        else:
            answer, seconds = outcome.value
            answers[question] = answer = storable_answer(answer)
            value = json.dumps(answer.to_json(), allow_nan=False).encode("utf-8")
            cache.put(model, KIND, answer_key(model, identity, question), value,
                      identity=identity, seconds=seconds)  # fmt: skip
            cache.count(model, "computed", keys=[question])
        if on_answer is not None:
            on_answer(0)
    return {q: answers[q] for q in questions}, set(replayed)


def _line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0][:200]}" if text else type(error).__name__
