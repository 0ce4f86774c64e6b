"""With generation: every record is answered through the column's generator over what its
retrieval selected, and over its oracle context (the chunks holding its gold), graded by the
judge-free graders; analysis then attributes each wrong answer (retrieval, generation or the
generator's ceiling) as in the matrix."""

from __future__ import annotations

from typing import Any

from ragaudit.grading.grade import grade_records
from ragaudit.runner.generate import DEFAULT_GEN_PARAMS, generate_records


def answer_records(
    results: dict, generator: Any, column: Any, workers: int, progress: Any = None
) -> dict:
    """Fill each record's generation, oracle and grade; returns the generation counts.
    `progress` (runner.progress.Progress) shows the prompts as they are answered."""
    records = results["instances"]
    if progress is not None:
        progress.stage("generating", 0)
    counts = generate_records(
        records,
        results["chunks"],
        generator,
        gen_configs=[column.name],
        params=dict(DEFAULT_GEN_PARAMS),
        chunk_offsets=results["chunk_offsets"],
        workers=workers,
        progress=None if progress is None else progress.update,
    )
    grade_records(records, results["chunks"])
    results["run"]["generation_counts"] = counts
    return counts
