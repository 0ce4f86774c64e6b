"""Which way each retrieval constant is looser, and the words that say so. Shared by the
settings-file comparison (`ragaudit.drift.settings`) and the comparison of constants read
from code (`ragaudit.drift.compare`), so both name the looser side the same way."""

from __future__ import annotations

# constant -> (which way is looser, why it matters). "higher": a larger value lets more
# through; "lower": a smaller value does; None: a different stack, neither side looser.
DIRECTIONS: dict[str, tuple[str | None, str]] = {
    "k": ("higher", "more slots reach the model"),
    "candidate_pool": ("higher", "more candidates before the slot policy"),
    "candidate_multiplier": ("higher", "a larger candidate pool before the slot policy"),
    "per_source_cap": ("higher", "one source may take more slots (none = no cap)"),
    "floor.slots": ("higher", "more slots reserved for the floor's source type"),
    "floor.min_score": ("lower", "weaker matches may take a reserved slot (none = no gate)"),
    "backfill_range": ("higher", "the floor may reach further down the ranking"),
    "min_score": ("lower", "fewer candidates are dropped by the threshold (none = no threshold)"),
    "max_distance": ("higher", "more distant candidates are kept (none = no limit)"),
    "truncation": ("higher", "a longer slice keeps more of the ranking"),
    "floor.source_type": (None, "the reserved slots go to a different source type"),
    "floor": (None, "one side reserves slots, the other does not"),
    "embedder": (None, "different vectors, different rankings"),
    "splitter": (None, "different chunks"),
    "chunk_size": (None, "different chunks"),
    "overlap": (None, "different chunks"),
    "overlap_rule": (None, "the overlap is carried differently: different chunks"),
    "hybrid": (None, "BM25 fusion changes the ranking"),
    "split_subsections": (None, "different chunks for long documents"),
    "subsection_marker": (None, "different subsections found"),
    "split_max_lead_in": (None, "different documents split"),
    "split_min_subsections": (None, "different documents split"),
    "split_min_chars": (None, "different documents split"),
}
# null means no limit at all for these: the looser side by construction
UNBOUNDED = {
    "per_source_cap",
    "min_score",
    "backfill_range",
    "floor.min_score",
    "max_distance",
    "truncation",
}


def direction(constant: str) -> tuple[str | None, str]:
    """(which way is looser, why it matters) for a constant; a truncation of a named list
    (`candidates[:N]`) goes the way every truncation goes."""
    if constant in DIRECTIONS:
        return DIRECTIONS[constant]
    if constant.endswith("[:N]"):
        return DIRECTIONS["truncation"]
    return (None, "differs")


def looser(constant: str, left: object, right: object) -> str | None:
    """Which side is looser: "left", "right", or None when neither is by construction (a
    different stack, values that do not compare). Null is no limit where one is meant."""
    way = direction(constant)[0]
    if way is None or left == right:
        return None
    if left is None or right is None:
        if constant in UNBOUNDED or constant.endswith("[:N]"):
            return "left" if left is None else "right"
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right)):
        return None
    if way == "higher":
        return "left" if left > right else "right"
    return "left" if left < right else "right"


def verdict(looser_name: str | None, why: str) -> str:
    """What a differing constant means, in the words both drift reports print."""
    if looser_name is None:
        return f"differs, neither side looser ({why})"
    return f"{looser_name} is looser ({why})"


def looser_summary(name: str, other: str, count: int) -> str:
    """The closing line for a side that is looser on `count` constants."""
    return (
        f"[fail] {name} is looser than {other} on {count} constant(s): if {name} is the "
        "test, its results are optimistic about production"
    )
