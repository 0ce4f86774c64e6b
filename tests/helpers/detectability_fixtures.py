"""Hand-built hybrid and dense cells for the detectability tests: the fused score of every
top hit is the constant a top-ranked chunk gets from reciprocal-rank fusion, while the
dense cosines (written by hand) separate failures from successes."""

from __future__ import annotations

EMBEDDER = "local:minilm"
# The fused RRF score of a chunk ranked first by both dense and BM25: 1/(60+1) + 1/(60+1).
FUSED_TOP = 1 / 61 + 1 / 61
FAIL_COSINES = [0.41, 0.43, 0.45, 0.47, 0.49]
PASS_COSINES = [0.71, 0.73, 0.75, 0.77, 0.79]
# Interleaved, so BM25 cannot separate this cell: fail mean 9, pass mean 10.
FAIL_BM25 = [5.0, 7.0, 9.0, 11.0, 13.0]
PASS_BM25 = [6.0, 8.0, 10.0, 12.0, 14.0]


def hit(rank: int, score: float, dense: float | None, bm25: float | None) -> dict:
    """A retrieved entry; `dense=None` leaves `dense_score` out, as an older file would."""
    entry = {"chunk_id": f"c{rank}", "doc_id": "d", "rank": rank, "score": score}
    if dense is not None:
        entry["dense_score"] = dense
    entry["bm25_score"] = bm25
    return entry


def record(i: int, top: dict, probe: str = "superseded", config: str = "M") -> dict:
    """Instance i's record with `top` at rank 1 (listed second, so order is not rank)."""
    # Rank 2 carries a higher cosine than rank 1: the sweep must read the top-ranked chunk.
    second = hit(2, top["score"] - 0.0001, 0.99, None if top["bm25_score"] is None else 1.0)
    return {
        "instance_id": f"{probe}-{i:03d}",
        "probe": probe,
        "layer": "control" if probe == "control" else "retrieval",
        "config": config,
        "embedder": EMBEDDER,
        "retrieved": [second, top],
    }


def hybrid_records(dense=FAIL_COSINES + PASS_COSINES, bm25=FAIL_BM25 + PASS_BM25):
    """Ten hybrid records, every top hit at the constant fused score."""
    return [
        record(i, hit(1, FUSED_TOP, d, b)) for i, (d, b) in enumerate(zip(dense, bm25, strict=True))
    ]


FAILED = [True] * 5 + [False] * 5


def graded(instance: dict, correct: bool) -> dict:
    """The record with a generated reply graded correct or quietly wrong."""
    verdict = "correct" if correct else "wrong"
    return {
        **instance,
        "generation": {"reply": "x"},
        "grade": {"correct": correct, "verdict": verdict},
    }


def hybrid_results(dense: list[float], bm25: list[float]) -> dict:
    """A results dict: a certified control cell and one generated hybrid cell (FAILED)."""
    cell = [graded(r, not f) for r, f in zip(hybrid_records(dense, bm25), FAILED, strict=True)]
    controls = [
        graded(record(i, hit(1, FUSED_TOP, 0.8, 4.0), probe="control"), True) for i in range(10)
    ]
    return {
        "configs": [{"name": "M", "hybrid": True}],
        "embedders": [{"spec": EMBEDDER}],
        "instances": controls + cell,
    }
