"""What changed between the baseline and the new run that the gate pairs across, because it
is what a team changes: other model weights, settings that move a greedy reply (llama.cpp's
thread count, prefix reuse), another config, other prompts. Reported, never refused."""

from __future__ import annotations

from ragaudit.compare.pairing import ColumnPair
from ragaudit.compare.provenance import model_notes

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


def changes_under_test(baseline: dict, new: dict, pairs: list[ColumnPair]) -> list[str]:
    """One sentence per change, baseline before new."""
    notes, _ = model_notes(baseline, new)
    before, after = _models(baseline), _models(new)
    for spec in before.keys() & after.keys():
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
    return [f"Change under test: {note}" for note in notes]
