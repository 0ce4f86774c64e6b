"""Detectability: can a retrieval score tell failing instances from passing ones?

The score is the top-1 retrieval score (the best-ranked chunk's score), because that is
what a running stack has without the answer key. The threshold sweep is fitted and
scored on the same instances, so it is an in-sample diagnostic, never a deployable check.
"""

from __future__ import annotations

from ragaudit.analysis.stats import PERMUTATION_RESHUFFLES, PERMUTATION_SEED, permutation_test

MIN_CLASS_SIZE = 5
SCORE_BASIS = "top1_score"
SWEEP_LABEL = "in-sample diagnostic"
# A cut "separates" when it flags at least this share of failures ...
SEPARABLE_MIN_CATCH_RATE = 0.8
# ... while flagging at most this share of successes.
SEPARABLE_MAX_FALSE_POSITIVE_RATE = 0.2
SEPARABLE_CRITERION = (
    f"flags score < cut; separable when it catches at least "
    f"{SEPARABLE_MIN_CATCH_RATE:.0%} of failures with at most "
    f"{SEPARABLE_MAX_FALSE_POSITIVE_RATE:.0%} of successes flagged"
)


def top1_score(record: dict) -> float | None:
    """The score of the best-ranked retrieved chunk, or None when nothing was retrieved."""
    hits = [h for h in record.get("retrieved") or [] if h.get("score") is not None]
    if not hits:
        return None
    return float(min(hits, key=lambda h: h.get("rank", 0))["score"])


def threshold_sweep(fail_scores: list[float], pass_scores: list[float]) -> dict:
    """Best cut (flag score < cut) by catch rate minus false-positive rate, in-sample."""
    values = sorted(set(fail_scores) | set(pass_scores))
    candidates = [(a + b) / 2 for a, b in zip(values, values[1:], strict=False)]
    candidates.append(values[-1] + 1e-9)
    best = None
    points = []
    for cut in candidates:
        catches = sum(1 for s in fail_scores if s < cut)
        false_positives = sum(1 for s in pass_scores if s < cut)
        points.append(
            {"cut": round(cut, 6), "catches": catches, "false_positives": false_positives}
        )
        gain = catches / len(fail_scores) - false_positives / len(pass_scores)
        key = (gain, -false_positives)
        if best is None or key > best[0]:
            best = (key, cut, catches, false_positives)
    _, cut, catches, false_positives = best
    catch_rate = catches / len(fail_scores)
    fp_rate = false_positives / len(pass_scores)
    return {
        "cut": round(cut, 6),
        "catches": catches,
        "failures": len(fail_scores),
        "false_positives": false_positives,
        "successes": len(pass_scores),
        "separable": catch_rate >= SEPARABLE_MIN_CATCH_RATE
        and fp_rate <= SEPARABLE_MAX_FALSE_POSITIVE_RATE,
        "criterion": SEPARABLE_CRITERION,
        "label": SWEEP_LABEL,
        "points": points,
    }


def detectability(records: list[dict], failed: list[bool] | None) -> dict:
    """Detectability of one cell. `failed[i]` says whether records[i] is a failure; None
    when nothing in the cell defines failure (no gold span and no generation).

    `by_instance` records, per instance id, the failure flag and the score (top-1) that
    the sweep used, so the inspector plots the swept points without recomputing either."""
    base = {"score": SCORE_BASIS, "min_class_size": MIN_CLASS_SIZE}
    if failed is None:
        return {
            **base,
            "measurable": False,
            "reason": "nothing defines a failure here: no gold span and no generation",
            "failures": None,
            "successes": None,
            "unscored": None,
            "threshold": None,
            "permutation": None,
            "by_instance": None,
        }
    by_instance = {
        record["instance_id"]: {"failed": is_failure, "score": top1_score(record)}
        for record, is_failure in zip(records, failed, strict=True)
    }
    scored = [p for p in by_instance.values() if p["score"] is not None]
    fail_scores = [p["score"] for p in scored if p["failed"]]
    pass_scores = [p["score"] for p in scored if not p["failed"]]
    result = {
        **base,
        "failures": len(fail_scores),
        "successes": len(pass_scores),
        "unscored": len(by_instance) - len(scored),
        "threshold": None,
        "permutation": None,
        "by_instance": by_instance,
    }
    if len(fail_scores) < MIN_CLASS_SIZE or len(pass_scores) < MIN_CLASS_SIZE:
        result["measurable"] = False
        result["reason"] = (
            f"{len(fail_scores)} failures and {len(pass_scores)} successes: "
            f"needs at least {MIN_CLASS_SIZE} of each"
        )
        return result
    result["measurable"] = True
    result["reason"] = None
    result["threshold"] = threshold_sweep(fail_scores, pass_scores)
    # Every cut tried, so the inspector plots the sweep without recomputing it.
    result["sweep"] = result["threshold"].pop("points")
    result["permutation"] = {
        "p_value": permutation_test(fail_scores, pass_scores),
        "reshuffles": PERMUTATION_RESHUFFLES,
        "seed": PERMUTATION_SEED,
        "mean_fail": sum(fail_scores) / len(fail_scores),
        "mean_pass": sum(pass_scores) / len(pass_scores),
    }
    return result
