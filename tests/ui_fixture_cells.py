"""Aggregates for the UI's test results file: cells, Wilson intervals, comparisons.

Split from ui_fixtures.py; the builder there calls these over its instance records.
"""

from __future__ import annotations

import math

PRIMARY = "local:minilm"


def wilson(count: int, n: int, z: float = 1.96) -> list[float] | None:
    """Wilson 95% score interval for count/n (the fixture's own copy)."""
    if n == 0:
        return None
    p = count / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def _count(records: list[dict], field: str) -> dict | None:
    values = [r[field] for r in records if r.get(field) is not None]
    if not values:
        return None
    count = sum(1 for v in values if v)
    return {
        "count": count,
        "n": len(values),
        "rate": count / len(values),
        "wilson": wilson(count, len(values)),
    }


def _grade_count(
    records: list[dict], verdicts: set[str] | None, correct: bool = False
) -> dict | None:
    graded = [r for r in records if r["grade"] is not None]
    if not graded:
        return None
    if correct:
        count = sum(1 for r in graded if r["grade"]["correct"])
    else:
        count = sum(1 for r in graded if r["grade"]["verdict"] in verdicts)
    n = len(graded)
    return {"count": count, "n": n, "rate": count / n, "wilson": wilson(count, n)}


def _cells(instances: list[dict]) -> list[dict]:
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for r in instances:
        groups.setdefault((r["probe"], r["config"], r["embedder"]), []).append(r)
    cells = []
    for (probe, config, embedder), records in groups.items():
        generated = any(r["grade"] is not None for r in records)
        measures = {
            "gold_in_context": _count(records, "gold_in_context"),
            "span_preserved": _count(records, "span_preserved"),
            "correct": _grade_count(records, None, correct=True),
            "abstained": _grade_count(records, {"abstained"}),
            "trap_taken": _grade_count(records, {"trap_taken"}),
            "empty": _grade_count(records, {"empty"}),
            "failed_call": _grade_count(records, {"failed_call"}),
            "retrieval_failed_call": {
                "count": 0,
                "n": len(records),
                "rate": 0.0,
                "wilson": wilson(0, len(records)),
            },
        }
        failures = sum(1 for r in records if r["grade"] and not r["grade"]["correct"])
        successes = sum(1 for r in records if r["grade"] and r["grade"]["correct"])
        if not generated:
            severity = {"class": "undetermined", "branch": "not_generated"}
            detect = {
                "measurable": False,
                "reason": "generation did not run",
                "failures": 0,
                "successes": 0,
                "threshold": None,
                "permutation": None,
            }
        else:
            measurable = failures >= 2 and successes >= 2
            severity = (
                {"class": "none", "branch": "no_failures"}
                if failures == 0
                else (
                    {"class": "medium", "branch": "separable"}
                    if measurable
                    else {"class": "undetermined", "branch": "too_small"}
                )
            )
            detect = {
                "measurable": measurable,
                "reason": None if measurable else "fewer than 2 failures or successes",
                "failures": failures,
                "successes": successes,
                "threshold": {
                    "cut": 0.83,
                    "catches": failures,
                    "failures": failures,
                    "false_positives": 1,
                    "successes": successes,
                    "separable": True,
                    "label": "in-sample diagnostic",
                }
                if measurable
                else None,
                "permutation": {
                    "p_value": 0.0312,
                    "reshuffles": 20000,
                    "seed": 17,
                    "mean_fail": 0.78,
                    "mean_pass": 0.84,
                }
                if measurable
                else None,
            }
        cells.append(
            {
                "probe": probe,
                "layer": records[0]["layer"],
                "config": config,
                "embedder": embedder,
                "measures": measures,
                "generated": generated,
                "detectability": detect,
                "severity": severity,
                "citation_check": {
                    "caught": 0,
                    "satisfied": 1,
                    "no_citation": 0,
                    "no_checkable_value": 1,
                    "abstained": 1,
                    "failures": failures,
                }
                if generated
                else None,
            }
        )
    return cells


def _comparisons(instances: list[dict]) -> list[dict]:
    by_key = {(r["probe"], r["instance_id"], r["config"], r["embedder"]): r for r in instances}
    out = []
    for probe in sorted({r["probe"] for r in instances if r["embedder"] == PRIMARY}):
        ids = sorted({r["instance_id"] for r in instances if r["probe"] == probe})
        a = [by_key[(probe, i, "C", PRIMARY)]["gold_in_context"] for i in ids]
        b = [by_key[(probe, i, "M", PRIMARY)]["gold_in_context"] for i in ids]
        if None in a:
            continue
        out.append(
            {
                "name": "C->M",
                "from": "C",
                "to": "M",
                "variable": "hybrid",
                "probe": probe,
                "embedder": PRIMARY,
                "measure": "gold_in_context",
                "from_count": sum(a),
                "to_count": sum(b),
                "n": len(ids),
                "gains": [i for i, x, y in zip(ids, a, b, strict=True) if y and not x],
                "losses": [i for i, x, y in zip(ids, a, b, strict=True) if x and not y],
                "gain_kinds": {"preservation": 0, "ranking": 0},
                "mcnemar_p": 1.0,
            }
        )
    return out
