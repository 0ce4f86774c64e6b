"""The slot policy production retrieval applies between the ranking and the model: a
candidate pool, a score threshold, a per-source cap, and a floor of reserved slots for one
source type that may only be backfilled from the first `backfill_range` candidates.

That last limit is the one the originating study's test script got wrong: production would rather
leave the floor unmet than drag a far-away document in, and a test that backfills from the
whole pool passes on a case production fails."""

from __future__ import annotations

from dataclasses import dataclass, field

from ragaudit.auditing.settings import AuditSettings


@dataclass(frozen=True)
class Candidate:
    """One chunk in the full ranking for one question."""

    chunk_id: str
    source: str
    source_type: str | None
    rank: int
    """1-based position in the full ranking (dense, or fused when hybrid)."""
    score: float
    """Dense cosine similarity (what a threshold applies to)."""
    bm25_score: float | None = None


@dataclass
class PolicyOutcome:
    """The top-k the model would see, and what each rule did to get there."""

    selected: list[Candidate]
    below_threshold: int = 0
    skipped_by_cap: int = 0
    floor_slots: int | None = None
    floor_present_before: int | None = None
    floor_backfilled: int = 0
    floor_unfilled: int = 0
    floor_type_in_backfill_range: int | None = None
    backfilled_chunk_ids: list[str] = field(default_factory=list)


def apply_policy(ranked: list[Candidate], settings: AuditSettings) -> PolicyOutcome:
    """Select the top-k from `ranked` (best first) under the pool, threshold, cap and floor."""
    pool = [c for c in ranked if c.rank <= settings.candidate_pool]
    eligible = [c for c in pool if settings.min_score is None or c.score >= settings.min_score]
    outcome = PolicyOutcome(selected=[], below_threshold=len(pool) - len(eligible))
    cap = settings.per_source_cap
    per_source: dict[str, int] = {}

    for candidate in eligible:
        if len(outcome.selected) == settings.k:
            break
        if cap is not None and per_source.get(candidate.source, 0) >= cap:
            outcome.skipped_by_cap += 1
            continue
        outcome.selected.append(candidate)
        per_source[candidate.source] = per_source.get(candidate.source, 0) + 1

    floor = settings.floor
    if floor is None:
        return outcome
    reach = settings.effective_backfill_range
    in_reach = [c for c in eligible if c.rank <= reach and c.source_type == floor.source_type]
    if floor.min_score is not None:
        # the floor's own relevance gate: a weak match is not worth a reserved slot
        in_reach = [c for c in in_reach if c.score >= floor.min_score]
    outcome.floor_slots = floor.slots
    outcome.floor_type_in_backfill_range = len(in_reach)
    have = sum(c.source_type == floor.source_type for c in outcome.selected)
    outcome.floor_present_before = have
    chosen = {c.chunk_id for c in outcome.selected}
    for candidate in in_reach:
        if have >= floor.slots:
            break
        if candidate.chunk_id in chosen:
            continue
        if cap is not None and per_source.get(candidate.source, 0) >= cap:
            continue
        if len(outcome.selected) == settings.k:
            victim = _lowest_other(outcome.selected, floor.source_type)
            if victim is None:
                break
            outcome.selected.remove(victim)
            per_source[victim.source] -= 1
        outcome.selected.append(candidate)
        chosen.add(candidate.chunk_id)
        per_source[candidate.source] = per_source.get(candidate.source, 0) + 1
        outcome.backfilled_chunk_ids.append(candidate.chunk_id)
        have += 1
    outcome.floor_backfilled = len(outcome.backfilled_chunk_ids)
    outcome.floor_unfilled = max(0, floor.slots - have)
    outcome.selected.sort(key=lambda c: c.rank)
    return outcome


def _lowest_other(selected: list[Candidate], floor_type: str) -> Candidate | None:
    others = [c for c in selected if c.source_type != floor_type]
    return max(others, key=lambda c: c.rank) if others else None
