"""Flaky verdicts: an instance whose answer verdict changes when only the generation's
conditions change (llama.cpp's thread count moves a greedy reply's logits in their last
bits; a remote model's seed) is not evidence about the stack either way. `ragaudit run
--repeat K` runs generation under K conditions; this marks every record whose `correct`
differs between them, so the gate leaves it out and lists it."""

from __future__ import annotations

import json
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


def generation_conditions(results: dict) -> dict[str, str]:
    """Generator spec -> what its calls are keyed by beyond the prompt, as canonical JSON:
    its `models` entry (name, digest, an engine's settings such as llama.cpp's threads) and
    the run's generation parameters (the seed); a pipeline's entry alone (it is sent none of
    ragaudit's parameters). For each generator that answered a record of `results`."""
    models = {m.get("spec"): m for m in results.get("models") or [] if isinstance(m, dict)}
    params = (results.get("run") or {}).get("generation_params")
    answered = {
        generation.get("generator")
        for record in results.get("instances") or []
        if isinstance(generation := record.get("generation"), dict)
    }
    out = {}
    for spec in sorted(s for s in answered if isinstance(s, str)):
        model = models.get(spec) or {}
        keyed = [model] if model.get("backend") == "pipeline" else [model, params]
        out[spec] = json.dumps(keyed, sort_keys=True, default=str)
    return out


def unvaried(first: dict, rerun: dict) -> list[str]:
    """The generators that answered `rerun` under the very conditions they answered `first`
    under: every call they made in it was one the first run made (replayed), so none of
    their verdicts could change."""
    before = generation_conditions(first)
    return [
        spec for spec, keyed in generation_conditions(rerun).items() if before.get(spec) == keyed
    ]
