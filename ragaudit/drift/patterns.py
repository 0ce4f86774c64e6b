"""The canonical retrieval constants and the names projects give them. A name as written
(`TOP_K`, `topK`, `candidateMultiplier`, `MAX_PER_SOURCE`, `k=`) is put in snake case and
matched against the patterns in order; the first match is its constant. A project's own
names the patterns miss are mapped by a small YAML file (`ragaudit.drift.namemap`)."""

from __future__ import annotations

import re

# canonical constant -> the names it goes by (snake case). Order matters: the first match
# wins, so the specific patterns (a gate, a backfill, a multiplier) come before top-k.
PATTERNS: dict[str, str] = {
    "floor.min_score": r"gate|(^|_)(backfill|floor)_(\w+_)?(score|similarity|threshold)$",
    "floor.slots": r"(^|_)(reserved|floor|min)_(\w+_)?slots$|^slots_reserved$",
    "backfill_range": r"backfill|(^|_)floor_(range|window|depth|pool)$",
    "candidate_multiplier": r"multiplier|over_?fetch|over_?sampl",
    "candidate_pool": (
        r"(^|_)candidates?_(pool|count|k|limit|size|n|num)(_size)?$"
        r"|^(fetch_k|num_candidates|n_candidates|pool_size|rerank_pool|retrieval_pool)$"
    ),
    "per_source_cap": (
        r"(^|_)max_(\w+_)?per_\w+|(^|_)cap_per_\w+"
        r"|(^|_)per_(source|doc|document|file|article|law|statute|parent)_(cap|limit|max)$"
        r"|^(source|doc|document|parent)_cap$"
    ),
    "max_distance": r"(^|_)max_(distance|dist)$|(^|_)distance_(threshold|cutoff)$",
    "min_score": (
        r"(^|_)min_(\w+_)?(score|similarity|sim|relevance|cosine)$"
        r"|(^|_)(score|similarity|relevance|cosine)_(threshold|cutoff)$|^(threshold|cutoff)$"
    ),
    "chunk_size": r"(^|_)chunk_(size|len|length|chars|tokens)$|^max_chunk_(size|chars|length)$",
    "overlap": r"(^|_)(chunk_)?overlap(_size|_chars|_tokens)?$",
    "k": (
        r"^(k|top_?k|top_?n|similarity_top_k|n_results|num_results|final_k|n_docs|num_docs)$"
        r"|_top_?k$"
    ),
}
CANONICAL = [
    "k",
    "candidate_multiplier",
    "candidate_pool",
    "per_source_cap",
    "min_score",
    "max_distance",
    "floor.slots",
    "floor.min_score",
    "backfill_range",
    "chunk_size",
    "overlap",
]
"""The canonical constants in the order a report lists them (the retrieval's own order)."""
assert set(CANONICAL) == set(PATTERNS)
_COMPILED = {constant: re.compile(pattern) for constant, pattern in PATTERNS.items()}


def snake(name: str) -> str:
    """`candidateMultiplier` -> `candidate_multiplier`, `MAX_PER_SOURCE` -> `max_per_source`,
    `top-k` -> `top_k`: one spelling to match patterns and to pair truncated lists."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name.strip())
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"[^a-z0-9_.]+", "_", name.lower()).strip("_")


def canonical(name: str) -> str | None:
    """The canonical constant a name as written stands for, or None."""
    key = snake(name).rsplit(".", 1)[-1]
    for constant, pattern in _COMPILED.items():
        if pattern.search(key):
            return constant
    return None


def truncation_key(sliced: str) -> str:
    """The constant a `[:N]` / `.slice(0, N)` of a list is compared under when nothing
    names it: `lawCandidates.slice(0, 12)` and `law_candidates[:12]` both become
    `law_candidates[:N]`, so a JavaScript side pairs with a Python one."""
    return f"{snake(sliced)}[:N]"
