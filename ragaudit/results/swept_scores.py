"""The scores a detectability sweep may read, by name, and how a person reads each name.

The analysis stage records the name in every cell (`detectability.score`, and
`detectability.bm25.score` on a hybrid cell); the report and the inspector word it from
here, so a cell says the same thing about its score everywhere.
"""

from __future__ import annotations

TOP1_COSINE = "top1_cosine"
"""A dense cell's: the cosine of the top-ranked chunk."""
TOP1_DENSE_COSINE = "top1_dense_cosine"
"""A hybrid cell's: the dense cosine of the chunk the fused ranking put first."""
TOP1_BM25 = "top1_bm25"
"""A hybrid cell's second, reported apart: that chunk's BM25 score. Severity never reads it."""
LEGACY_TOP1_SCORE = "top1_score"
"""Files analysed before the score was named per cell: the top hit's `score` field, which
on a hybrid cell is the fused reciprocal-rank score."""

NOT_MEASURED = "not measured in this file"

SCORE_LABELS = {
    TOP1_COSINE: "top-1 cosine",
    TOP1_DENSE_COSINE: (
        "top-1 dense cosine (hybrid cell: the fused rank score is not a similarity)"
    ),
    TOP1_BM25: "top-1 BM25 score (hybrid cell; reported apart, severity never reads it)",
    LEGACY_TOP1_SCORE: (
        "top-1 recorded score (analysed before scores were named per cell: on a hybrid "
        "cell this is the fused rank score, a function of ranks, not a similarity)"
    ),
}


def score_label(name: str | None) -> str:
    """How a person reads a recorded score name; an unknown name reads as written, and a
    missing one (a file from before the field) as "not measured in this file"."""
    if not name:
        return NOT_MEASURED
    return SCORE_LABELS.get(name, name)
