"""Small results files written by hand for the gate's tests: each cell is a list of
per-instance values given by the test, so every count, p and drop is counted by hand.

`gate_run({("boundary", "C"): [True, False, ...]})` is one run; a value is the record's
gold_in_context, or with `measure="correct"` its grade (the cell then generated)."""

from __future__ import annotations

import json
from pathlib import Path

PRIMARY = "local:minilm"
LAYERS = {"control": "control", "negation": "embedding"}
DOCUMENTS = [f"doc-{i:03d}" for i in range(6)]


def _record(probe: str, config: str, i: int, value, measure: str, verdict: str) -> dict:
    record = {
        "key": f"{probe}/{probe}-{i:03d}/{config}/{PRIMARY}",
        "probe": probe,
        "layer": LAYERS.get(probe, "architectural"),
        "instance_id": f"{probe}-{i:03d}",
        "config": config,
        "embedder": PRIMARY,
        "k": 3,
        "question": f"{probe} question {i}?",
        "gold_in_context": value if measure == "gold_in_context" else True,
        "gold_rank": (1 if value else None) if measure == "gold_in_context" else 1,
        "retrieved": [],
        "generation": None,
        "grade": None,
    }
    if measure == "correct":
        record["generation"] = {"status": "ok", "reply": "45 months" if value else "12 months"}
        record["grade"] = {
            "verdict": "correct" if value else verdict,
            "correct": bool(value),
            "branch": "value_match" if value else f"{verdict}:12",
        }
    return record


def _cell(probe: str, config: str, values: list, measure: str) -> dict:
    count = sum(1 for v in values if v)
    return {
        "probe": probe,
        "layer": LAYERS.get(probe, "architectural"),
        "config": config,
        "embedder": PRIMARY,
        "n": len(values),
        "generated": measure == "correct",
        "measures": {measure: {"count": count, "n": len(values), "rate": count / len(values)}},
    }


def gate_run(
    cells: dict[tuple[str, str], list],
    *,
    measure: str = "gold_in_context",
    verdict: str = "trap_taken",
    documents: list[str] | None = None,
    digest: str = "d" * 64,
    sha: str = "a" * 64,
) -> dict:
    """One complete run holding `cells` ((probe, config) -> per-instance values)."""
    configs = sorted({config for _, config in cells})
    probes = list(dict.fromkeys(probe for probe, _ in cells))
    docs = DOCUMENTS if documents is None else documents
    return {
        "schema_version": 4,
        "created_at": "2026-12-01T10:00:00+00:00",
        "complete": True,
        "run": {},
        "corpus": {
            "seed": 7,
            "n": max(len(v) for v in cells.values()),
            "sha256": sha,
            "documents": len(docs),
            "probes": [{"name": p, "layer": LAYERS.get(p, "architectural")} for p in probes],
        },
        "configs": [{"name": c, "splitter": "recursive"} for c in configs],
        "embedders": [{"spec": PRIMARY, "role": "primary"}],
        "models": [
            {"spec": PRIMARY, "kind": "embedder", "name": "minilm", "digest": digest},
        ],
        "conditions": {},
        "chunks": {},
        "chunk_offsets": {"recursive-1000-0": {d: [[0, 100]] for d in docs}},
        "instances": [
            _record(probe, config, i, value, measure, verdict)
            for (probe, config), values in cells.items()
            for i, value in enumerate(values)
        ],
        "cells": [_cell(p, c, values, measure) for (p, c), values in cells.items()],
        "comparisons": [],
        "severity_rules": [],
    }


def write_run(path: Path, results: dict) -> Path:
    """`results` as JSON at `path` (its folder made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, allow_nan=False), encoding="utf-8")
    return path
