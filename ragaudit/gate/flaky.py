"""Flaky verdicts: an instance whose answer verdict changes when only the generation's
conditions change (llama.cpp's thread count moves a greedy reply's logits in their last
bits; a remote model's seed) is not evidence about the stack either way. `ragaudit run
--repeat K` runs generation under K conditions; this marks every record whose `correct`
differs between them, so the gate leaves it out and lists it."""

from __future__ import annotations

from collections.abc import Sequence


def _verdict(record: dict) -> tuple[bool, str] | None:
    grade = record.get("grade")
    if not isinstance(grade, dict):
        return None
    return bool(grade.get("correct")), str(grade.get("verdict"))


def flaky_keys(runs: Sequence[dict]) -> dict[str, list[tuple[bool, str] | None]]:
    """Record key -> its (correct, verdict) under each run, for the keys graded in the first
    run whose `correct` is not the same in every run that graded it."""
    by_run = [{r["key"]: r for r in run.get("instances") or []} for run in runs]
    out = {}
    for key in by_run[0]:
        verdicts = [_verdict(records[key]) if key in records else None for records in by_run]
        if verdicts[0] is None:
            continue
        seen = {v[0] for v in verdicts if v is not None}
        if len(seen) > 1:
            out[key] = verdicts
    return out


def mark_flaky(results: dict, runs: Sequence[dict], conditions: Sequence[str]) -> list[str]:
    """Mark `results` (the first of `runs`) in place: each flaky record gets `flaky` (the
    conditions and its verdict under each), and the file a top-level `flaky` listing them.
    Returns the flaky keys."""
    found = flaky_keys(runs)
    for record in results.get("instances") or []:
        if record["key"] in found:
            record["flaky"] = {
                "conditions": list(conditions),
                "verdicts": [None if v is None else v[1] for v in found[record["key"]]],
            }
    results["flaky"] = {"conditions": list(conditions), "instances": sorted(found)}
    return sorted(found)
