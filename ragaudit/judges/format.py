"""How a scorecard's figures are written for a person: the report section, the inspector's
Judges page and the CLI's table call these, so a figure reads the same everywhere. Rates
are results.format's (`63% 5/8`, halves up)."""

from __future__ import annotations

from ragaudit.results.format import ABSENT, fmt_ratio

OUTCOME_WORDS = {
    "scored": "scored",
    "nan_refusal": "NaN on an abstention",
    "nan": "NaN",
    "parse_failure": "parse failure",
    "judge_failed": "judge call failed",
    "error": "library error",
    "not_applicable": "not applicable",
}
NO_VERDICT_ORDER = ("nan_refusal", "nan", "parse_failure", "judge_failed", "error")
MEASURED_AGAINST = {
    "answer": "the verdict (a wrong answer should be flagged)",
    "context": "gold_in_context (missed gold should be flagged)",
}


def fmt_share(share: dict | None) -> str:
    """`{"count", "n"}` as `63% 5/8`."""
    return ABSENT if share is None else fmt_ratio(share["count"], share["n"])


def fmt_auroc(auroc: dict | None) -> str:
    """`0.73`, or `n/a (no record to pass)`."""
    if not auroc or auroc.get("value") is None:
        reason = (auroc or {}).get("reason")
        return f"{ABSENT} ({reason})" if reason else ABSENT
    return f"{auroc['value']:.2f}"


def fmt_no_verdict(rates: dict) -> str:
    """No-verdict outcomes among the records scored: `2/9: 1 parse failure, 1 NaN`."""
    parts = rates["no_verdict"]
    count = parts["should_flag"]["count"] + parts["should_pass"]["count"]
    n = parts["should_flag"]["n"] + parts["should_pass"]["n"]
    merged: dict[str, int] = {}
    for side in parts.values():
        for outcome, k in side["by_outcome"].items():
            merged[outcome] = merged.get(outcome, 0) + k
    detail = ", ".join(f"{merged[o]} {OUTCOME_WORDS[o]}" for o in NO_VERDICT_ORDER if merged.get(o))
    return f"{count}/{n}" + (f": {detail}" if detail else "")


def fmt_stability(stability: dict) -> str:
    """`100% 4/4 same outcome` (or `not measured` when no record ran twice)."""
    agree = stability["agree"]
    if not agree["n"]:
        return "not measured"
    text = f"{fmt_ratio(agree['count'], agree['n'])} same outcome"
    if stability.get("mean_abs_difference") is not None:
        text += f", mean score change {stability['mean_abs_difference']:.2f}"
    return text


def fmt_calls(cost: dict) -> str:
    """`4.0 (source: 4)` judge calls per sample."""
    if cost["calls_per_sample"] is None:
        return ABSENT
    return f"{cost['calls_per_sample']:.1f} (source: {cost['calls_in_source']})"


def fmt_tokens(cost: dict) -> str:
    """`1,234 in + 56 out` tokens per sample, from the replies' usage."""
    if cost["prompt_tokens_per_sample"] is None:
        return ABSENT
    prompt, completion = cost["prompt_tokens_per_sample"], cost["completion_tokens_per_sample"]
    text = f"{prompt:,.0f} in + {completion:,.0f} out"
    if cost.get("calls_without_usage"):
        text += f" ({cost['calls_without_usage']} calls reported no usage)"
    return text


def fmt_seconds(seconds: float | None) -> str:
    """`1 h 05 min`, `3 min 20 s`, `12 s`."""
    if seconds is None:
        return ABSENT
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


def fmt_score(evaluation: dict) -> str:
    """An evaluation's score (`0.50`) or its outcome in words."""
    if evaluation["outcome"] == "scored":
        return f"{evaluation['score']:.2f}"
    return OUTCOME_WORDS[evaluation["outcome"]]
