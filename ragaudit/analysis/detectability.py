"""Detectability: can a retrieval similarity tell failing instances from passing ones?

The score is a similarity of the top-ranked chunk, because that is what a running stack
has without the answer key: its cosine on a dense cell (`top1_cosine`), its dense cosine
on a hybrid cell (`top1_dense_cosine`). A hybrid's own `score` is the fused
reciprocal-rank score, 1/(60 + rank) summed over the two rankings: a function of ranks
alone, about 1/61 + 1/61 for almost every question, so sweeping it sweeps a constant. It
is never read. A hybrid cell also sweeps the same chunk's BM25 score (`top1_bm25`) in a
block of its own, `detectability.bm25`, which severity never reads.

The threshold sweep is fitted and scored on the same instances, so it is an in-sample
diagnostic, never a deployable check.
"""

from __future__ import annotations

from ragaudit.analysis.stats import PERMUTATION_RESHUFFLES, PERMUTATION_SEED, permutation_test
from ragaudit.results.swept_scores import TOP1_BM25, TOP1_COSINE, TOP1_DENSE_COSINE

MIN_CLASS_SIZE = 5
"""Failures and successes a cell needs, each, before a sweep or a permutation test is run
(severity's `small_classes` rule reads the same number)."""
SIGNIFICANCE = 0.05
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
_NOTHING_DEFINES_FAILURE = "nothing defines a failure here: no gold span and no generation"


def is_hybrid_cell(records: list[dict], config_hybrid: bool | None = None) -> bool:
    """True when the cell's config says hybrid, or any retrieved hit records a BM25 score
    (only a fused ranking records one). Either signal suffices, so a fused rank score is
    never read as a similarity, even in a file whose configs lack the flag."""
    if config_hybrid:
        return True
    return any(
        hit.get("bm25_score") is not None
        for record in records
        for hit in record.get("retrieved") or []
    )


def top_hit(record: dict) -> dict | None:
    """The top-ranked retrieved chunk, or None when nothing was retrieved."""
    hits = record.get("retrieved") or []
    return min(hits, key=lambda h: h.get("rank", 0)) if hits else None


def top1_similarity(record: dict, hybrid: bool) -> float | None:
    """The top-ranked chunk's cosine (its `dense_score`), or None when there is none.

    On a dense cell a hit recorded without `dense_score` falls back to its `score`, the
    cosine a dense ranking sorted on. On a hybrid cell `score` is the fused rank score and
    is never read: such a hit is unscored."""
    hit = top_hit(record)
    if hit is None:
        return None
    value = hit.get("dense_score")
    if value is None and not hybrid:
        value = hit.get("score")
    return None if value is None else float(value)


def top1_bm25(record: dict) -> float | None:
    """The top-ranked chunk's BM25 score (hybrid records), or None when it records none."""
    hit = top_hit(record)
    value = None if hit is None else hit.get("bm25_score")
    return None if value is None else float(value)


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


def _unscored_reason(records: list[dict], values: list, missing: str) -> str | None:
    """Why instances were left out of a sweep, each count out of the cell's instances as a
    plain "3/25" (the text the results file records), or None when none was."""
    n = len(records)
    empty = sum(1 for r in records if top_hit(r) is None)
    absent = sum(1 for v in values if v is None) - empty
    parts = []
    if empty:
        parts.append(f"{empty}/{n} retrieved nothing")
    if absent:
        parts.append(f"{absent}/{n} have a top-ranked hit that records {missing}")
    return "; ".join(parts) or None


def sweep_block(
    score: str, failed: list[bool] | None, values: list[float | None], unscored: str | None
) -> dict:
    """One score's detectability over a cell: class sizes, the in-sample threshold sweep
    and the permutation test, or why neither was measurable. `values[i]` is records[i]'s
    score (None: unscored, left out and counted)."""
    block: dict = {"score": score, "min_class_size": MIN_CLASS_SIZE}
    if failed is None:
        return {
            **block,
            "measurable": False,
            "reason": _NOTHING_DEFINES_FAILURE,
            "failures": None,
            "successes": None,
            "unscored": None,
            "unscored_reason": None,
            "threshold": None,
            "permutation": None,
        }
    scored = [(f, v) for f, v in zip(failed, values, strict=True) if v is not None]
    fail_scores = [v for f, v in scored if f]
    pass_scores = [v for f, v in scored if not f]
    block.update(
        failures=len(fail_scores),
        successes=len(pass_scores),
        unscored=len(values) - len(scored),
        unscored_reason=unscored,
        threshold=None,
        permutation=None,
    )
    if len(fail_scores) < MIN_CLASS_SIZE or len(pass_scores) < MIN_CLASS_SIZE:
        block["measurable"] = False
        block["reason"] = (
            f"{len(fail_scores)} failures and {len(pass_scores)} successes: "
            f"needs at least {MIN_CLASS_SIZE} of each"
        )
        return block
    block["measurable"] = True
    block["reason"] = None
    block["threshold"] = threshold_sweep(fail_scores, pass_scores)
    # Every cut tried, so the inspector plots the sweep without recomputing it.
    block["sweep"] = block["threshold"].pop("points")
    block["permutation"] = {
        "p_value": permutation_test(fail_scores, pass_scores),
        "reshuffles": PERMUTATION_RESHUFFLES,
        "seed": PERMUTATION_SEED,
        "mean_fail": sum(fail_scores) / len(fail_scores),
        "mean_pass": sum(pass_scores) / len(pass_scores),
    }
    return block


def detectability(
    records: list[dict], failed: list[bool] | None, config_hybrid: bool | None = None
) -> dict:
    """Detectability of one cell. `failed[i]` says whether records[i] is a failure; None
    when nothing in the cell defines failure (no gold span and no generation).
    `config_hybrid` is the cell's config's `hybrid` flag as the results file records it.

    The cell's score is named in `score`. `by_instance` records, per instance id, the
    failure flag and the score the sweep used (plus `bm25` on a hybrid cell), so the
    inspector plots the swept points without recomputing either. A hybrid cell's BM25
    sweep is the `bm25` block (same shape); a dense cell's `bm25` is None."""
    hybrid = is_hybrid_cell(records, config_hybrid)
    cosines = [top1_similarity(r, hybrid) for r in records]
    missing = "no dense cosine (its fused rank score is never swept)" if hybrid else "no cosine"
    name = TOP1_DENSE_COSINE if hybrid else TOP1_COSINE
    result = sweep_block(name, failed, cosines, _unscored_reason(records, cosines, missing))
    bm25 = [top1_bm25(r) for r in records] if hybrid else None
    if bm25 is not None:
        reason = _unscored_reason(records, bm25, "no BM25 score")
        result["bm25"] = sweep_block(TOP1_BM25, failed, bm25, reason)
    else:
        result["bm25"] = None
    if failed is None:
        result["by_instance"] = None
        return result
    by_instance = {}
    for i, (record, is_failure) in enumerate(zip(records, failed, strict=True)):
        point = {"failed": is_failure, "score": cosines[i]}
        if bm25 is not None:
            point["bm25"] = bm25[i]
        by_instance[record["instance_id"]] = point
    result["by_instance"] = by_instance
    return result


def _significant(block: dict) -> bool:
    return block["permutation"]["p_value"] < SIGNIFICANCE


def detectability_summary(cells: list[dict]) -> dict:
    """Counts over cells: how many swept each score, could be examined, separated, and
    differed at p < SIGNIFICANCE; the hybrid cells' BM25 sweeps counted apart."""
    scores: dict[str, int] = {}
    for cell in cells:
        name = cell["detectability"]["score"]
        scores[name] = scores.get(name, 0) + 1
    measurable = [c["detectability"] for c in cells if c["detectability"]["measurable"]]
    bm25 = [c["detectability"]["bm25"] for c in cells if c["detectability"].get("bm25")]
    bm25_measurable = [b for b in bm25 if b["measurable"]]
    return {
        "scores": scores,
        "measurable": len(measurable),
        "not_measurable": len(cells) - len(measurable),
        "separable": sum(1 for d in measurable if d["threshold"]["separable"]),
        "significant": sum(1 for d in measurable if _significant(d)),
        "alpha": SIGNIFICANCE,
        "bm25": {
            "score": TOP1_BM25,
            "cells": len(bm25),
            "measurable": len(bm25_measurable),
            "separable": sum(1 for b in bm25_measurable if b["threshold"]["separable"]),
            "significant": sum(1 for b in bm25_measurable if _significant(b)),
        },
    }
