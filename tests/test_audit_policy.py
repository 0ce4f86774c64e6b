"""The slot policy between the ranking and the model: pool, threshold, per-source cap, and a
floor that may only backfill from the first `backfill_range` candidates."""

from __future__ import annotations

from ragaudit.auditing.policy import Candidate, apply_policy
from ragaudit.auditing.settings import AuditSettings, Floor


def ranking(types: dict[int, str], n: int = 48, sources: dict[int, str] | None = None):
    """n candidates, best first; rank r is a ruling unless `types` says otherwise."""
    sources = sources or {}
    return [
        Candidate(
            chunk_id=f"c{r}",
            source=sources.get(r, f"doc{r}"),
            source_type=types.get(r, "ruling"),
            rank=r,
            score=round(0.9 - r * 0.01, 4),
        )
        for r in range(1, n + 1)
    ]


def settings(**values) -> AuditSettings:
    base = {"k": 6, "candidate_pool": 48, "floor": Floor(source_type="statute", slots=2)}
    return AuditSettings(**(base | values))


def test_the_studys_trap_production_backfill_range_misses_what_the_test_reaches():
    # The key statute sits at rank 21, no statute in the first 12 (the audit's 2nd phrasing).
    ranked = ranking({21: "statute", 35: "statute"})
    production = apply_policy(ranked, settings(backfill_range=12))
    assert [c.rank for c in production.selected] == [1, 2, 3, 4, 5, 6]
    assert production.floor_type_in_backfill_range == 0
    assert production.floor_unfilled == 2 and production.floor_backfilled == 0

    test_script = apply_policy(ranked, settings(backfill_range=48))
    assert [c.rank for c in test_script.selected] == [1, 2, 3, 4, 21, 35]
    assert test_script.backfilled_chunk_ids == ["c21", "c35"]
    assert test_script.floor_unfilled == 0


def test_floor_backfills_within_range_replacing_the_lowest_others():
    ranked = ranking({1: "statute", 9: "statute", 11: "statute"})
    outcome = apply_policy(ranked, settings(backfill_range=12))
    assert [c.rank for c in outcome.selected] == [1, 2, 3, 4, 5, 9]
    assert outcome.floor_present_before == 1 and outcome.floor_backfilled == 1
    assert outcome.floor_type_in_backfill_range == 3


def test_per_source_cap_keeps_a_split_document_from_flooding_the_top_k():
    # ranks 1-5 are five subsections of one statute
    same = {r: "statutes/estate" for r in range(1, 6)}
    ranked = ranking({r: "statute" for r in range(1, 6)}, sources=same)
    capped = apply_policy(ranked, settings(per_source_cap=2, floor=None))
    assert [c.rank for c in capped.selected] == [1, 2, 6, 7, 8, 9]
    assert capped.skipped_by_cap == 3
    uncapped = apply_policy(ranked, settings(floor=None))
    assert [c.source for c in uncapped.selected].count("statutes/estate") == 5


def test_cap_also_binds_the_floors_backfill():
    same = {8: "statutes/a", 9: "statutes/a", 10: "statutes/a"}
    ranked = ranking({8: "statute", 9: "statute", 10: "statute"}, sources=same)
    outcome = apply_policy(ranked, settings(per_source_cap=1, backfill_range=12))
    assert [c.rank for c in outcome.selected] == [1, 2, 3, 4, 5, 8]
    assert outcome.floor_unfilled == 1


def test_score_threshold_and_pool_bound_the_candidates():
    ranked = ranking({}, n=60)
    outcome = apply_policy(ranked, settings(floor=None, min_score=0.86, candidate_pool=10))
    # scores are 0.9 - 0.01 * rank: only ranks 1-4 reach 0.86
    assert [c.rank for c in outcome.selected] == [1, 2, 3, 4]
    assert outcome.below_threshold == 6
    outcome = apply_policy(ranked, settings(floor=None, k=6, candidate_pool=6))
    assert len(outcome.selected) == 6


def test_the_floors_relevance_gate_refuses_weak_backfill():
    ranked = ranking({9: "statute", 11: "statute"})  # scores 0.81 and 0.79
    gate = Floor(source_type="statute", slots=2, min_score=0.8)
    outcome = apply_policy(ranked, settings(floor=gate, backfill_range=12))
    assert outcome.backfilled_chunk_ids == ["c9"]
    assert outcome.floor_unfilled == 1 and outcome.floor_type_in_backfill_range == 1
