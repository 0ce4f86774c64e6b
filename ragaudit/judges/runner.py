"""Running the metrics: each (sample, metric, repetition) is one evaluation, run through the
library on its own proxy URL, with up to `workers` in flight; each ends as one outcome.

Outcomes (every one kept, in every denominator it belongs to):
- `scored`: the library returned a finite score;
- `nan_refusal`: it returned NaN for an answer that abstains (RAGAS does so by design:
  an abstention has no statements to check, ragas PR #1773);
- `nan`: it returned NaN (or nothing) for any other answer;
- `parse_failure`: a reply of the judge's could not be read as the structure the library asked
  for (instructor's validation, DeepEval's "invalid JSON");
- `judge_failed`: a call to the judge failed (down, timed out, junk), reason from the proxy;
- `error`: the library raised anything else (its type and message kept);
- `not_applicable`: the metric needs a reference the question does not have (not run).
Only `scored` carries a score; every other outcome is "no verdict" and is not flagged.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from ragaudit.backends.reply_text import storable
from ragaudit.judges.metrics import Metric
from ragaudit.judges.proxy import Evaluation, RecordingProxy
from ragaudit.judges.samples import Sample

NO_VERDICT = ("nan_refusal", "nan", "parse_failure", "judge_failed", "error")
OUTCOMES = ("scored", *NO_VERDICT, "not_applicable")
REPLY_CHARS = 4000
_PARSE_ERRORS = ("ValidationError", "JSONDecodeError", "InstructorRetryException")
_QUIET = ("instructor", "ragas", "deepeval", "httpx", "openai", "httpcore")


@dataclass(frozen=True)
class Task:
    """One evaluation to run."""

    sample: Sample
    metric: Metric
    repetition: int

    @property
    def id(self) -> tuple[str, str, int]:
        return (self.sample.key, self.metric.name, self.repetition)


def tasks_for(samples: list[Sample], metrics: list[Metric], stability: int) -> list[Task]:
    """Every sample under every metric, then the first `stability` samples again (the
    stability rerun, repetition 2)."""
    tasks = [Task(sample, metric, 1) for sample in samples for metric in metrics]
    tasks += [Task(sample, metric, 2) for sample in samples[:stability] for metric in metrics]
    return tasks


def quiet_libraries() -> None:
    """The libraries log each failure with a traceback; ragaudit reports them counted."""
    for name in _QUIET:
        logging.getLogger(name).setLevel(logging.CRITICAL)


def run_tasks(
    tasks: list[Task],
    proxy: RecordingProxy,
    *,
    workers: int,
    timeout: float,
    on_done: Callable[[Task, dict], None],
) -> None:
    """Run every task, `workers` at a time; `on_done(task, evaluation record)` as each ends
    (in this thread, so the caller may write files without locks)."""
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures = {pool.submit(evaluate, task, proxy, timeout): task for task in tasks}
        for future in as_completed(futures):
            on_done(futures[future], future.result())
    except BaseException:
        # Ctrl-C: nothing more is started; the evaluations in flight end with their call
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def evaluate(task: Task, proxy: RecordingProxy, timeout: float) -> dict:
    """One evaluation's record: its outcome, score, flag, reasons and what it cost."""
    sample, metric = task.sample, task.metric
    if metric.needs_reference and sample.reference is None:
        reason = "not run: the question has no reference answer (nothing to recall)"
        return _record(task, "not_applicable", None, reason, Evaluation(task.repetition), 0.0)
    base_url, calls = proxy.open_evaluation(task.repetition)
    started = time.perf_counter()
    score, reason, error = None, None, None
    try:
        score, reason = metric.runner()(sample, base_url, proxy.judge.model, timeout)
    except Exception as raised:  # every library failure becomes a counted outcome
        error = raised
    finally:
        proxy.close_evaluation(base_url)
    seconds = time.perf_counter() - started
    status, detail = classify(score, error, calls, sample)
    if status == "scored":
        detail = reason
    if detail is not None:  # a library's text may quote a reply: redacted like the replies
        detail = storable(proxy.upstream.redact(detail))
    return _record(
        task, status, float(score) if status == "scored" else None, detail, calls, seconds
    )


def classify(
    score: object, error: BaseException | None, calls: Evaluation, sample: Sample
) -> tuple[str, str | None]:
    """(outcome, its reason) for what the library returned or raised."""
    if error is None:
        if isinstance(score, int | float) and math.isfinite(score):
            return "scored", None
        if sample.abstains:
            return "nan_refusal", "NaN for an answer that abstains (no statements to check)"
        return "nan", f"the library returned {score!r} (no verdict)"
    if calls.failures:
        return "judge_failed", calls.failures[-1]
    line = _one_line(error)
    chain = _chain(error)
    parse = any(type(e).__name__ in _PARSE_ERRORS for e in chain) or "invalid JSON" in line
    if parse and calls.replies:  # a reply the library could not read (not its own input)
        last = calls.replies[-1][:200] if calls.replies else "no reply"
        return "parse_failure", f"{line} (last judge reply: {last!r})"
    return "error", line


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())[:300]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _record(
    task: Task, status: str, score: float | None, reason: str | None, calls: Evaluation, seconds
) -> dict:
    flagged = status == "scored" and score < task.metric.threshold
    return {
        "key": task.sample.key,
        "metric": task.metric.name,
        "repetition": task.repetition,
        "outcome": status,
        "score": score,
        "flagged": flagged,
        "reason": reason,
        "judge_replies": [reply[:REPLY_CHARS] for reply in calls.replies],
        "calls": calls.calls,
        "replayed": calls.replayed,
        "computed": calls.computed,
        "failed": calls.failed,
        "prompt_tokens": calls.prompt_tokens,
        "completion_tokens": calls.completion_tokens,
        "tokens_unreported": calls.tokens_unreported,
        "seconds": round(seconds, 3),
    }


def describe(record: dict) -> str:
    """One progress line for an evaluation record."""
    score = "" if record["score"] is None else f" {record['score']:.2f}"
    flag = " flagged" if record["flagged"] else ""
    cost = f"{record['calls']} call(s), {record['computed']} computed"
    head = f"{record['metric']} r{record['repetition']} {record['key']}"
    return f"{head}: {record['outcome']}{score}{flag} ({cost})"
