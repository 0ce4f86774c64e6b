"""Hand-made, realistic results for the grading / analysis / report tests: instance records
with retrieval, raw replies and citations, graded and analysed by the real code."""

from __future__ import annotations

import random

CONFIGS = [
    {"name": "A", "splitter": "fixed", "chunk_size": 1000, "overlap": 0, "k": 3, "hybrid": False},
    {
        "name": "B",
        "splitter": "recursive",
        "chunk_size": 1000,
        "overlap": 0,
        "k": 3,
        "hybrid": False,
    },
    {
        "name": "C",
        "splitter": "recursive",
        "chunk_size": 1000,
        "overlap": 200,
        "k": 8,
        "hybrid": False,
    },
    {
        "name": "M",
        "splitter": "recursive",
        "chunk_size": 1000,
        "overlap": 200,
        "k": 8,
        "hybrid": True,
    },
]
GEN_CONFIGS = ("B", "C")
EMBEDDER = "local:minilm"
SECOND_EMBEDDER = "local:e5-small"  # runs negation only: no controls
N = 10

ITEMS = [
    "respirator cartridges",
    "emergency lighting circuits",
    "eyewash stations",
    "fire door closers",
    "spill kits",
]
LABELS = [f"exception {i}" for i in range(1, 6)]
LABELLED_ITEMS = "; ".join(f"{a}: {b}" for a, b in zip(LABELS, ITEMS, strict=True))


def _chunk_id(config: str, doc: str, index: int) -> str:
    return f"{config}-chunking/{doc}#{index}"


def _reply(probe: str, i: int, config: str) -> tuple[str | None, str]:
    """(reply, status) for instance i; a spread of verdicts by construction."""
    if probe == "control":
        return f"The interval is {40 + i} days [c1].", "ok"
    if probe == "boundary":
        if i < 5:
            return "NOT_IN_CONTEXT", "ok"
        if i == 5:
            return None, "failed_call"
        if i == 6:
            return "", "ok"
        return f"It is {70 + i} days [c1].", "ok"
    if probe == "superseded":
        if config == "C" and i < 5:
            return "Every 28 days. [c1]", "ok"  # the superseded value, cited from the old doc
        if i == 9 and config == "B":
            return "Every 31 days.", "ok"  # no citation
        return "Every 38 days [c2].", "ok"
    if probe == "summarisation":
        if i < 4:
            return "exception 4, exception 2, exception 5 [c1]", "ok"
        if i < 8:
            return f"{ITEMS[0]}, {ITEMS[1]}, {ITEMS[2]} [c1]", "ok"
        return ", ".join(ITEMS) + " [c1]", "ok"
    if probe == "negation":
        if i % 3 == 0:
            return f"No. Widgets are not, at the Eastbrook store EB-{i:02d}, permitted [c1].", "ok"
        if i % 3 == 1:
            return f"Widgets are not permitted at store EB-{i:02d} [c1].", "ok"
        return f"Widgets are permitted at store EB-{i:02d} [c2].", "ok"
    if probe == "unanswerable":
        return ("NOT_IN_CONTEXT", "ok") if i != 3 else ("The limit is 12 units [c1].", "ok")
    raise AssertionError(probe)


def _grading(probe: str, i: int) -> tuple[dict, object]:
    if probe in ("control", "boundary"):
        value = f"{40 + i} days" if probe == "control" else f"{70 + i} days"
        return {"kind": "value", "accept": [value], "trap_values": []}, value
    if probe == "superseded":
        return {"kind": "value", "accept": ["38 days"], "trap_values": ["28 days"]}, "38 days"
    if probe == "summarisation":
        return {"kind": "list", "items": ITEMS, "labels": LABELS}, ITEMS
    if probe == "negation":
        spec = {
            "kind": "polarity",
            "expected": "not permitted",
            "subject": "widgets",
            "store": f"EB-{i:02d}",
        }
        return spec, "not permitted"
    return {"kind": "abstain"}, None


LAYERS = {
    "control": "control",
    "boundary": "architectural",
    "superseded": "architectural",
    "summarisation": "architectural",
    "negation": "embedding",
    "unanswerable": "architectural",
}


def make_results(seed: int = 5) -> dict:
    """A results dict with instances, chunks and comparisons, before grading/analysis."""
    from ragaudit.runner.generate import citation_label, parse_citations

    rng = random.Random(seed)
    chunks: dict = {}
    instances = []
    plan = [(EMBEDDER, p) for p in LAYERS] + [(SECOND_EMBEDDER, "negation")]
    for embedder, probe in plan:
        for config in (c["name"] for c in CONFIGS):
            for i in range(N):
                instance_id = f"{probe}-{i:03d}"
                doc = f"{probe}-{i:03d}"
                spec, gold = _grading(probe, i)
                ids = [_chunk_id(config, doc, 0), _chunk_id(config, doc + "-old", 0)]
                texts = {
                    "control": f"Policy {instance_id}: inspect every {40 + i} days.",
                    "boundary": f"Section {instance_id}: the interval is {70 + i} days.",
                    "superseded": "Old policy: inspect every 28 days.",
                    "summarisation": LABELLED_ITEMS,
                    "negation": f"Widgets are not permitted at store EB-{i:02d}.",
                    "unanswerable": "Unrelated filler about the canteen rota.",
                }
                chunks[ids[0]] = {"doc_id": doc, "text": texts[probe]}
                chunks[ids[1]] = {
                    "doc_id": doc + "-old",
                    "text": "Current policy: inspect every 38 days.",
                }
                in_context = not (probe == "boundary" and config == "A") and not (
                    probe == "summarisation" and config in ("A", "B")
                )
                if probe == "superseded" and config == "C":
                    # failures (i < 5) score low, successes high: separable in-sample
                    top = 0.40 + 0.01 * i if i < 5 else 0.80 + 0.01 * i
                else:
                    top = round(rng.uniform(0.5, 0.9), 4)
                retrieved = [
                    {"chunk_id": ids[0], "doc_id": doc, "rank": 1, "score": top},
                    {"chunk_id": ids[1], "doc_id": doc + "-old", "rank": 2, "score": top - 0.05},
                ]
                record = {
                    "key": f"{probe}/{instance_id}/{config}/{embedder}",
                    "probe": probe,
                    "layer": LAYERS[probe],
                    "instance_id": instance_id,
                    "config": config,
                    "embedder": embedder,
                    "question": f"Question {instance_id}?",
                    "gold_answer": gold,
                    "grading": spec,
                    "retrieved": retrieved,
                    "retrieval_error": None,
                    "gold_in_context": None if probe == "unanswerable" else in_context,
                    "span_preserved": None if probe == "unanswerable" else config != "A",
                    "generation": None,
                }
                if config in GEN_CONFIGS and (embedder == EMBEDDER or config == "B"):
                    reply, status = _reply(probe, i, config)
                    labels = {citation_label(j): h["chunk_id"] for j, h in enumerate(retrieved)}
                    record["generation"] = {
                        "generator": "local:qwen2.5-0.5b",
                        "prompt_sha256": f"{i:064x}",
                        "status": status,
                        "reply": reply,
                        "error": "ModelCallFailed: timed out" if status == "failed_call" else None,
                        "citations": parse_citations(reply or "", labels),
                        "citation_labels": labels,
                        "replayed": False,
                    }
                instances.append(record)
    comparisons = [
        {
            "name": "B->C",
            "from": "B",
            "to": "C",
            "variable": "overlap+k",
            "probe": "summarisation",
            "embedder": EMBEDDER,
            "measure": "gold_in_context",
            "from_count": 0,
            "to_count": 10,
            "n": 10,
            "gains": [f"summarisation-{i:03d}" for i in range(10)],
            "losses": [],
            "gain_kinds": {"preservation": 0, "ranking": 10},
        },
        {
            "name": "A->B",
            "from": "A",
            "to": "B",
            "variable": "splitter",
            "probe": "boundary",
            "embedder": EMBEDDER,
            "measure": "gold_in_context",
            "from_count": 0,
            "to_count": 10,
            "n": 10,
            "gains": [f"boundary-{i:03d}" for i in range(10)],
            "losses": [],
            "gain_kinds": {"preservation": 10, "ranking": 0},
        },
    ]
    return {
        "schema_version": 2,
        "created_at": "2026-11-29T23:10:00+00:00",
        "complete": True,
        "run": {
            "preset": "custom",
            "seed": 1234,
            "argv": ["run"],
            "gen_configs": list(GEN_CONFIGS),
            "gen_probes": None,
            "generate": True,
        },
        "corpus": {
            "seed": 1234,
            "n": N,
            "sha256": "ab" * 32,
            "documents": 120,
            "probes": [{"name": p, "layer": LAYERS[p], "n": N} for p in LAYERS],
        },
        "configs": CONFIGS,
        "embedders": [
            {"spec": EMBEDDER, "role": "primary", "probes": list(LAYERS)},
            {"spec": SECOND_EMBEDDER, "role": "secondary", "probes": ["negation"]},
        ],
        "generator": {"spec": "local:qwen2.5-0.5b"},
        "models": [
            {
                "spec": EMBEDDER,
                "kind": "embedder",
                "backend": "local",
                "name": "all-MiniLM-L6-v2-int8",
                "digest": "cd" * 32,
                "digest_reason": None,
            },
            {
                "spec": "local:qwen2.5-0.5b",
                "kind": "generator",
                "backend": "local",
                "name": "qwen2.5-coder-0.5b-instruct-q4_k_m",
                "digest": "unavailable",
                "digest_reason": "weights were removed before the run",
            },
        ],
        "conditions": {
            "calls": {"replayed": 3, "computed": 117, "failed": 2},
            "calls_by_model": {},
            "failed_calls": [
                {
                    "model": "local:qwen2.5-0.5b",
                    "kind": "generate",
                    "error": "ModelCallFailed: timed out",
                    "instance_keys": [f"boundary/boundary-005/{c}/{EMBEDDER}" for c in GEN_CONFIGS],
                }
            ],
            "contention_detection_configured": False,
            "contention_pattern_env": "RAGAUDIT_CONTENTION_PATTERN",
            "contention_seen": {"before": [], "after": []},
            "elapsed_seconds": None,
            "elapsed_seconds_reason": "3 of 122 calls were replayed from cache",
        },
        "chunks": chunks,
        "instances": instances,
        "cells": [],
        "comparisons": comparisons,
    }


def analysed_results(seed: int = 5) -> dict:
    """make_results() graded and analysed by the real grading and analysis code."""
    from ragaudit.analysis import analyse
    from ragaudit.grading.grade import grade_records

    results = make_results(seed)
    grade_records(results["instances"], chunks_by_id=results["chunks"])
    analyse(results)
    return results
