"""Analysis: cells with Wilson intervals, detectability, severity, citation rollup, and
McNemar p-values on comparisons. `analyse(results)` fills them in the results dict."""

from __future__ import annotations

from ragaudit.analysis.attribution import attribute_cell
from ragaudit.analysis.cells import cell_measures, citation_counts, failure_flags, group_cells
from ragaudit.analysis.detectability import detectability, detectability_summary
from ragaudit.analysis.severity import LOUD_VERDICTS, SeverityFacts, classify, severity_rules
from ragaudit.analysis.stats import mcnemar_exact, wilson_interval
from ragaudit.grading.grade import grading_patterns

CONTROL_PASS_RATE = 0.9
QUOTE_RULE = (
    "for each verdict, the reply of the first instance record, in the results file's "
    "order, whose verdict it is; quoted in full"
)


def analyse(results: dict) -> None:
    """Fill results["cells"], ["citation_rollup"], ["severity_rules"],
    ["grading_patterns"], ["control_certification"] and ["analysis"], and add
    "mcnemar_p" to each comparison that lacks one. Citation outcomes are read as grading
    recorded them."""
    config_order = [c["name"] for c in results.get("configs") or []]
    hybrid = {c["name"]: c.get("hybrid") for c in results.get("configs") or []}
    cells = []
    for (probe, config, embedder), records in group_cells(
        results.get("instances") or [], config_order
    ):
        generated = any(r.get("generation") for r in records)
        failed, basis = failure_flags(records, generated)
        cells.append(
            {
                "probe": probe,
                "layer": records[0].get("layer"),
                "config": config,
                "embedder": embedder,
                "n": len(records),
                "measures": cell_measures(records, generated),
                "generated": generated,
                "failure_basis": basis,
                "failures": None if failed is None else sum(failed),
                "successes": None if failed is None else len(failed) - sum(failed),
                "detectability": detectability(records, failed, hybrid.get(config)),
                "citation_check": citation_counts(records, failed) if generated else None,
                "attribution": attribute_cell(records, generated),
                "_records": records,
                "_failed": failed,
            }
        )
    certification = _certify_controls(cells, results)
    for cell in cells:
        cell["severity"] = _severity(cell, certification)
        del cell["_records"], cell["_failed"]
    results["cells"] = cells
    results["control_certification"] = certification
    results["citation_rollup"] = _citation_rollup(cells, config_order)
    results["severity_rules"] = severity_rules()
    results["grading_patterns"] = grading_patterns()
    for comparison in results.get("comparisons") or []:
        n = comparison.get("n") or 0
        if n > 0:  # intervals on both ends, so a delta is read against its noise
            comparison["from_wilson"] = list(wilson_interval(comparison["from_count"], n))
            comparison["to_wilson"] = list(wilson_interval(comparison["to_count"], n))
        if comparison.get("mcnemar_p") is None:
            gains = len(comparison.get("gains") or [])
            losses = len(comparison.get("losses") or [])
            comparison["mcnemar_p"] = mcnemar_exact(gains, losses)
    results["analysis"] = _summary(cells)


def _certify_controls(cells: list[dict], results: dict) -> dict:
    """An embedder is certified only if its control cells ran and every one passed."""
    embedders = [e.get("spec") for e in results.get("embedders") or []]
    embedders += [c["embedder"] for c in cells if c["embedder"] not in embedders]
    out = {}
    for embedder in embedders:
        controls = [c for c in cells if c["embedder"] == embedder and c["layer"] == "control"]
        if not controls:
            out[embedder] = {
                "certified": False,
                "reason": "controls were never run under this embedder",
                "pass_rate": CONTROL_PASS_RATE,
                "failing_cells": [],
            }
            continue
        failing = [
            f"{c['probe']}/{c['config']}"
            for c in controls
            if c["failures"] is None or c["failures"] > (1 - CONTROL_PASS_RATE) * c["n"] + 1e-9
        ]
        out[embedder] = {
            "certified": not failing,
            "reason": None if not failing else f"control cells below {CONTROL_PASS_RATE:.0%}",
            "pass_rate": CONTROL_PASS_RATE,
            "failing_cells": failing,
        }
    return out


def _severity(cell: dict, certification: dict) -> dict:
    records, failed = cell["_records"], cell["_failed"] or []
    failures = [r for r, f in zip(records, failed, strict=False) if f]
    verdicts = [((r.get("grade") or {}).get("verdict")) for r in failures]
    eligible = [
        r for r, v in zip(failures, verdicts, strict=True) if v not in ("abstained", "failed_call")
    ]
    flagged = [r for r in eligible if (r.get("citation_check") or {}).get("flagged")]
    threshold = cell["detectability"].get("threshold") or {}
    facts = SeverityFacts(
        failures=cell["failures"],
        successes=cell["successes"],
        generated=cell["generated"],
        embedder_certified=certification.get(cell["embedder"], {}).get("certified", False),
        loud_failures=sum(1 for v in verdicts if v in LOUD_VERDICTS),
        separable=bool(threshold.get("separable")),
        check_flagged=len(flagged),
        check_eligible=len(eligible),
    )
    return classify(facts)


def _citation_rollup(cells: list[dict], config_order: list[str]) -> dict:
    rollup: dict = {}
    for cell in cells:
        counts = cell.get("citation_check")
        if not counts:
            continue
        target = rollup.setdefault(cell["config"], {key: 0 for key in counts})
        for key, value in counts.items():
            target[key] = target.get(key, 0) + value
    rank = {name: i for i, name in enumerate(config_order)}
    return {k: rollup[k] for k in sorted(rollup, key=lambda k: (rank.get(k, len(rank)), k))}


def _summary(cells: list[dict]) -> dict:
    severity_counts: dict[str, int] = {}
    for cell in cells:
        name = cell["severity"]["class"]
        severity_counts[name] = severity_counts.get(name, 0) + 1
    return {
        "cells": len(cells),
        "detectability": detectability_summary(cells),
        "severity_counts": severity_counts,
        "wilson_confidence": 0.95,
        "quote_rule": QUOTE_RULE,
    }
