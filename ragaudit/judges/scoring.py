"""Scoring a metric against ragaudit's ground truth, from the evaluation records alone.

- What should be flagged: for an `answer` metric a wrong answer (the grader's verdict is not
  correct); for a `context` metric missed gold (`gold_in_context` false). A record with no
  ground truth for the metric (no gold to retrieve) or not run (`not_applicable`) is left
  out, and counted.
- Flagged: a score below the metric's threshold. Every outcome that is not a score (NaN, a
  parse failure, a failed judge call, a library error) is "no verdict": it stays in the
  denominators and counts as not flagged, and the counts of each are listed.
- Recall: flagged / should be flagged. False-positive rate: flagged / should not be.
- AUROC: the chance that a random record that should not be flagged scores above a random
  one that should (ties half), a no-verdict scoring as a pass (1.0); null with the reason
  when either class is empty.
- Stability: of the records run twice, the share whose outcome (flagged, passed, no
  verdict) is the same both times, and the mean absolute score difference where both
  runs gave a score.
- Cost: judge calls and tokens (from the replies' usage) per evaluation run.
Only the first repetition is scored; the second serves stability.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ragaudit.judges.metrics import Metric
from ragaudit.judges.runner import NO_VERDICT
from ragaudit.judges.samples import Sample


def should_flag(metric: Metric, sample: Sample) -> bool | None:
    """Whether the metric should flag the sample; None when there is nothing to score."""
    if metric.measures == "answer":
        return not sample.correct
    if sample.gold_in_context is None:
        return None
    return not sample.gold_in_context


def score_metric(metric: Metric, samples: dict[str, Sample], evaluations: list[dict]) -> dict:
    """The metric's scorecard entry: overall, per probe, per failure kind, stability, cost."""
    mine = [e for e in evaluations if e["metric"] == metric.name]
    first = [e for e in mine if e["repetition"] == 1]
    rows = [(samples[e["key"]], e) for e in first]
    return {
        "metric": metric.name,
        "overall": _rates(metric, rows),
        "by_probe": _grouped(metric, rows, lambda sample: sample.probe),
        "by_kind": _grouped(metric, rows, lambda sample: sample.verdict),
        "outcomes": dict(sorted(Counter(e["outcome"] for e in first).items())),
        "stability": _stability(mine),
        "cost": _cost(mine, metric),
    }


def _grouped(metric: Metric, rows: list, key) -> dict:
    groups: dict[str, list] = {}
    for sample, evaluation in rows:
        groups.setdefault(key(sample), []).append((sample, evaluation))
    return {name: _rates(metric, group) for name, group in groups.items()}


def _rates(metric: Metric, rows: Iterable) -> dict:
    positives, negatives, left_out = [], [], 0
    for sample, evaluation in rows:
        truth = should_flag(metric, sample)
        if truth is None or evaluation["outcome"] == "not_applicable":
            left_out += 1
        else:
            (positives if truth else negatives).append(evaluation)
    return {
        "recall": _share(positives),
        "false_positive": _share(negatives),
        "auroc": _auroc(negatives, positives),
        "no_verdict": {
            "should_flag": _no_verdict(positives),
            "should_pass": _no_verdict(negatives),
        },
        "missed": [e["key"] for e in positives if not e["flagged"]],
        "left_out": left_out,
    }


def _share(evaluations: list[dict]) -> dict:
    return {"count": sum(1 for e in evaluations if e["flagged"]), "n": len(evaluations)}


def _no_verdict(evaluations: list[dict]) -> dict:
    counts = Counter(e["outcome"] for e in evaluations if e["outcome"] in NO_VERDICT)
    return {"count": sum(counts.values()), "n": len(evaluations), "by_outcome": dict(counts)}


def _pass_score(evaluation: dict) -> float:
    return evaluation["score"] if evaluation["outcome"] == "scored" else 1.0


def _auroc(negatives: list[dict], positives: list[dict]) -> dict:
    if not negatives or not positives:
        empty = "no record that should be flagged" if not positives else "no record to pass"
        return {"value": None, "reason": empty}
    wins = 0.0
    for negative in negatives:
        for positive in positives:
            a, b = _pass_score(negative), _pass_score(positive)
            wins += 1.0 if a > b else 0.5 if a == b else 0.0
    value = wins / (len(negatives) * len(positives))
    return {"value": round(value, 4), "reason": None, "pairs": len(negatives) * len(positives)}


def _outcome_class(evaluation: dict) -> str:
    if evaluation["outcome"] != "scored":
        return "no verdict"
    return "flagged" if evaluation["flagged"] else "passed"


def _stability(evaluations: list[dict]) -> dict:
    by_key: dict[str, dict[int, dict]] = {}
    for evaluation in evaluations:
        by_key.setdefault(evaluation["key"], {})[evaluation["repetition"]] = evaluation
    pairs = [(runs[1], runs[2]) for runs in by_key.values() if 1 in runs and 2 in runs]
    pairs = [(a, b) for a, b in pairs if a["outcome"] != "not_applicable"]
    same = sum(1 for a, b in pairs if _outcome_class(a) == _outcome_class(b))
    scored = [
        (a["score"], b["score"])
        for a, b in pairs
        if a["score"] is not None and b["score"] is not None
    ]
    difference = sum(abs(x - y) for x, y in scored) / len(scored) if scored else None
    return {
        "agree": {"count": same, "n": len(pairs)},
        "score_pairs": len(scored),
        "mean_abs_difference": None if difference is None else round(difference, 4),
        "changed": [a["key"] for a, b in pairs if _outcome_class(a) != _outcome_class(b)],
    }


def _cost(evaluations: list[dict], metric: Metric) -> dict:
    ran = [e for e in evaluations if e["outcome"] != "not_applicable"]
    n = len(ran)

    def mean(field: str) -> float | None:
        return round(sum(e[field] for e in ran) / n, 2) if n else None

    return {
        "evaluations": n,
        "calls_per_sample": mean("calls"),
        "calls_in_source": metric.calls_in_source,
        "prompt_tokens_per_sample": mean("prompt_tokens"),
        "completion_tokens_per_sample": mean("completion_tokens"),
        "calls_without_usage": sum(e["tokens_unreported"] for e in ran),
        "seconds_per_sample": mean("seconds"),
    }
