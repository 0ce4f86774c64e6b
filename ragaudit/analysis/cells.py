"""Cells: instance records grouped per probe x config x embedder, with every measure as
count/n, rate and a Wilson interval, and each cell's notion of failure."""

from __future__ import annotations

from ragaudit.analysis.stats import wilson_interval
from ragaudit.grading.citation_check import OUTCOMES as CITATION_OUTCOMES
from ragaudit.results.schema import RETRIEVAL_MEASURES, VERDICT_MEASURES


def measure(count: int, n: int) -> dict:
    """{"count", "n", "rate", "wilson": [lo, hi]} for count out of n (n > 0)."""
    lo, hi = wilson_interval(count, n)
    return {"count": count, "n": n, "rate": count / n, "wilson": [lo, hi]}


def group_cells(instances: list[dict], config_order: list[str]) -> list[tuple[tuple, list]]:
    """[((probe, config, embedder), records)] in probe order of first appearance, then
    the results file's config order, then embedder order of first appearance."""
    groups: dict[tuple, list] = {}
    probe_order: dict[str, int] = {}
    embedder_order: dict[str, int] = {}
    for record in instances:
        probe_order.setdefault(record["probe"], len(probe_order))
        embedder_order.setdefault(record["embedder"], len(embedder_order))
        key = (record["probe"], record["config"], record["embedder"])
        groups.setdefault(key, []).append(record)
    config_rank = {name: i for i, name in enumerate(config_order)}

    def order(key: tuple) -> tuple:
        probe, config, embedder = key
        return (
            embedder_order[embedder],
            probe_order[probe],
            config_rank.get(config, len(config_rank)),
            config,
        )

    return [(key, groups[key]) for key in sorted(groups, key=order)]


def failure_flags(records: list[dict], generated: bool) -> tuple[list[bool] | None, str | None]:
    """Which records failed, and on what basis: the answer when generation ran, else
    whether the gold reached the context. (None, None) when neither defines failure."""
    if generated:
        return [not (r.get("grade") or {}).get("correct", False) for r in records], "answer"
    if all(r.get("gold_in_context") is None and not r.get("retrieval_error") for r in records):
        return None, None
    return [r.get("gold_in_context") is not True for r in records], "gold_in_context"


def cell_measures(records: list[dict], generated: bool) -> dict:
    """Every measure of one cell; a measure that does not apply is null plus a reason."""
    n = len(records)
    out: dict = {}
    for name in RETRIEVAL_MEASURES:
        values = [r.get(name) for r in records]
        if all(v is None for v in values) and not any(r.get("retrieval_error") for r in records):
            out[name] = None
            out[f"{name}_reason"] = "this probe has no gold span"
        else:
            out[name] = measure(sum(1 for v in values if v is True), n)
    out["retrieval_failed_call"] = measure(sum(1 for r in records if r.get("retrieval_error")), n)
    graded = [r for r in records if r.get("grade")]
    if not generated or not graded:
        for name in ("correct", *VERDICT_MEASURES):
            out[name] = None
            out[f"{name}_reason"] = "generation did not run on this cell"
        return out
    out["correct"] = measure(sum(1 for r in graded if r["grade"].get("correct")), len(graded))
    for name in VERDICT_MEASURES:
        count = sum(1 for r in graded if r["grade"].get("verdict") == name)
        out[name] = measure(count, len(graded))
    return out


def citation_counts(records: list[dict], failed: list[bool] | None) -> dict:
    """Citation-check outcomes counted over the cell's failures (generation cells only)."""
    counts = {outcome: 0 for outcome in CITATION_OUTCOMES}
    counts["failures"] = 0
    for record, is_failure in zip(records, failed or [], strict=False):
        check = record.get("citation_check")
        if not is_failure or not check:
            continue
        counts["failures"] += 1
        counts[check.get("outcome", "not_applicable")] += 1
    return counts
