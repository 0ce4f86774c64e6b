"""Gains explained: per single-variable comparison × probe × embedder, which instances
flipped each way on gold_in_context, and whether each gain was a repair (the span was cut
before and whole after: preservation) or a ranking change."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragaudit.stack.configs import Comparison

MEASURE = "gold_in_context"


def _mcnemar(b: int, c: int) -> tuple[float | None, str | None]:
    try:
        from ragaudit.analysis.stats import mcnemar_exact
    except ImportError as error:  # the analysis stage ships it; say so rather than guess
        return None, f"mcnemar_exact unavailable ({error})"
    return mcnemar_exact(b, c), None


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


def _compare_cell(
    comparison: Comparison,
    probe: str,
    embedder: str,
    instance_ids: list[str],
    by_key: dict[tuple[str, str, str, str], dict],
) -> dict | None:
    gains: list[str] = []
    losses: list[str] = []
    kinds = {"preservation": 0, "ranking": 0}
    gain_kind: dict[str, str] = {}
    from_count = to_count = n = excluded = 0
    ran = False
    for instance_id in instance_ids:
        before = by_key.get((probe, embedder, comparison.from_config, instance_id))
        after = by_key.get((probe, embedder, comparison.to_config, instance_id))
        if before is None or after is None:
            continue
        ran = True
        was, now = before.get(MEASURE), after.get(MEASURE)
        if was is None or now is None:
            excluded += 1
            continue
        n += 1
        from_count += was
        to_count += now
        if now and not was:
            gains.append(instance_id)
            # Preservation: retrieval could not have found it before, the boundary cut it.
            kind = (
                "preservation"
                if before.get("span_preserved") is False and after.get("span_preserved") is True
                else "ranking"
            )
            kinds[kind] += 1
            gain_kind[instance_id] = kind
        elif was and not now:
            losses.append(instance_id)
    if not ran:
        return None
    entry: dict[str, Any] = {
        "name": comparison.name,
        "from": comparison.from_config,
        "to": comparison.to_config,
        "variable": comparison.variable,
        "probe": probe,
        "embedder": embedder,
        "measure": MEASURE,
        "from_count": from_count,
        "to_count": to_count,
        "n": n,
        "excluded": excluded,
        "gains": gains,
        "losses": losses,
        "gain_kinds": kinds,
        "gain_kind_by_instance": gain_kind,
        "mcnemar_p": None,
        "mcnemar_p_reason": None,
    }
    if n == 0:
        entry["mcnemar_p_reason"] = f"no instance has {MEASURE} at both ends"
    else:
        entry["mcnemar_p"], entry["mcnemar_p_reason"] = _mcnemar(len(gains), len(losses))
    return entry
