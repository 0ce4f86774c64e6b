"""Gains explained: per single-variable comparison × probe × embedder, which instances
flipped each way on gold_in_context, and whether each gain was a repair (the span was cut
before and whole after: preservation) or a ranking change."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragaudit.analysis.stats import mcnemar_exact
from ragaudit.stack.configs import Comparison

MEASURE = "gold_in_context"


def compare(
    records: Sequence[dict], comparisons: Sequence[Comparison], config_names: Sequence[str]
) -> list[dict]:
    """One entry per comparison × probe × embedder whose two configs both ran.

    Pairs are per instance; an instance whose record at either end has no value (retrieval
    failed, or the probe has no gold) is left out of `n` and counted in `excluded`.
    """
    by_key: dict[tuple[str, str, str, str], dict] = {}
    for record in records:
        key = (record["probe"], record["embedder"], record["config"], record["instance_id"])
        by_key[key] = record
    cells: dict[tuple[str, str], list[str]] = {}
    for probe, embedder, _config, instance_id in by_key:
        ids = cells.setdefault((probe, embedder), [])
        if instance_id not in ids:
            ids.append(instance_id)
    out: list[dict] = []
    for comparison in comparisons:
        if comparison.from_config not in config_names or comparison.to_config not in config_names:
            continue
        for (probe, embedder), instance_ids in cells.items():
            entry = _compare_cell(comparison, probe, embedder, instance_ids, by_key)
            if entry is not None:
                out.append(entry)
    return out


@dataclass
class _Tally:
    """One comparison's flips in one probe × embedder cell, counted per instance."""

    gains: list[str] = field(default_factory=list)
    losses: list[str] = field(default_factory=list)
    gain_kinds: dict[str, int] = field(default_factory=lambda: {"preservation": 0, "ranking": 0})
    gain_kind_by_instance: dict[str, str] = field(default_factory=dict)
    from_count: int = 0
    to_count: int = 0
    n: int = 0
    excluded: int = 0


def _gain_kind(before: dict, after: dict) -> str:
    # Preservation: retrieval could not have found it before, the boundary cut it.
    if before.get("span_preserved") is False and after.get("span_preserved") is True:
        return "preservation"
    return "ranking"


def _tally_cell(
    comparison: Comparison,
    probe: str,
    embedder: str,
    instance_ids: list[str],
    by_key: dict[tuple[str, str, str, str], dict],
) -> _Tally | None:
    """The cell's flips, or None when no instance has a record at both ends."""
    tally = _Tally()
    ran = False
    for instance_id in instance_ids:
        before = by_key.get((probe, embedder, comparison.from_config, instance_id))
        after = by_key.get((probe, embedder, comparison.to_config, instance_id))
        if before is None or after is None:
            continue
        ran = True
        was, now = before.get(MEASURE), after.get(MEASURE)
        if was is None or now is None:
            tally.excluded += 1
            continue
        tally.n += 1
        tally.from_count += was
        tally.to_count += now
        if now and not was:
            tally.gains.append(instance_id)
            kind = _gain_kind(before, after)
            tally.gain_kinds[kind] += 1
            tally.gain_kind_by_instance[instance_id] = kind
        elif was and not now:
            tally.losses.append(instance_id)
    return tally if ran else None


def _compare_cell(
    comparison: Comparison,
    probe: str,
    embedder: str,
    instance_ids: list[str],
    by_key: dict[tuple[str, str, str, str], dict],
) -> dict | None:
    tally = _tally_cell(comparison, probe, embedder, instance_ids, by_key)
    if tally is None:
        return None
    entry: dict[str, Any] = {
        "name": comparison.name,
        "from": comparison.from_config,
        "to": comparison.to_config,
        "variable": comparison.variable,
        "probe": probe,
        "embedder": embedder,
        "measure": MEASURE,
        "from_count": tally.from_count,
        "to_count": tally.to_count,
        "n": tally.n,
        "excluded": tally.excluded,
        "gains": tally.gains,
        "losses": tally.losses,
        "gain_kinds": tally.gain_kinds,
        "gain_kind_by_instance": tally.gain_kind_by_instance,
        "mcnemar_p": None,
        "mcnemar_p_reason": None,
    }
    if tally.n == 0:
        entry["mcnemar_p_reason"] = f"no instance has {MEASURE} at both ends"
    else:
        entry["mcnemar_p"] = mcnemar_exact(len(tally.gains), len(tally.losses))
    return entry
