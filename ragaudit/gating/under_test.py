"""What changed between the baseline and the new run that the gate pairs across, because it
is what a team changes: other model weights, settings that move a greedy reply (llama.cpp's
thread count, prefix reuse), another config, other prompts. Reported, never refused."""

from __future__ import annotations

from ragaudit.comparison.pairing import ColumnPair
from ragaudit.comparison.provenance import weights
from ragaudit.results.format import fmt_digest

REPLY_SETTINGS = {"llm_threads": "llama.cpp threads", "prefix_reuse": "prefix reuse"}


def _models(results: dict) -> dict[str, dict]:
    return {m["spec"]: m for m in results.get("models") or [] if isinstance(m.get("spec"), str)}


def _prompts(results: dict) -> dict[str, str]:
    out = {}
    for record in results.get("instances") or []:
        prompt = (record.get("generation") or {}).get("prompt_sha256")
        if isinstance(prompt, str):
            out[record["key"]] = prompt
    return out


def model_changes(baseline: dict, new: dict) -> tuple[list[str], list[str]]:
    """The models in the gate's words, as (changes, remarks): other weights are the change
    under test and are paired across (compare.provenance words the same facts for
    `compare`, which does not pair across them); an unrecorded digest is a remark."""
    found = weights(baseline, new)
    changes = [
        f"{spec} has other weights in the baseline ({fmt_digest(was)}) than in the new run "
        f"({fmt_digest(now)}): this is the change under test; instances are paired by id."
        for spec, was, now in found.other
    ]
    for side, only in (("the baseline", found.only_a), ("the new run", found.only_b)):
        if only:
            changes.append(f"only {side} ran {', '.join(only)}.")
    remarks = [
        f"{spec}: its weights' digest is not recorded in both files, so whether they changed "
        "is unchecked; instances are paired by id."
        for spec in found.unchecked
    ]
    return changes, remarks


def changes_under_test(baseline: dict, new: dict, pairs: list[ColumnPair]) -> list[str]:
    """One sentence per change, baseline before new (then any remark on what could not be
    checked)."""
    notes, remarks = model_changes(baseline, new)
    before, after = _models(baseline), _models(new)
    for spec in sorted(before.keys() & after.keys()):
        for field, words in REPLY_SETTINGS.items():
            was, now = before[spec].get(field), after[spec].get(field)
            if was is not None and now is not None and was != now:
                notes.append(f"{spec}: {words} {was} → {now}")
    notes += [f"config changed: {p.label}" for p in pairs if p.a != p.b]
    prompts_a, prompts_b = _prompts(baseline), _prompts(new)
    both = prompts_a.keys() & prompts_b.keys()
    other = sum(1 for key in both if prompts_a[key] != prompts_b[key])
    if other:
        notes.append(f"the prompt changed in {other} of {len(both)} records generated in both")
    return [f"Change under test: {note}" for note in notes] + remarks
