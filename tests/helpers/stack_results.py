"""A results file with the user's stack, built by hand in the shape of issue 13's contract
(§6): two built-in configs B and C under local:minilm, and the stack `mine`, whose embedder
(an OpenAI-compatible server) is not the primary. Every figure is written here, so a test's
expected value is this file's, counted by hand."""

from __future__ import annotations

import copy

PRIMARY = "local:minilm"
STACK_EMBEDDER = "openai:nomic-embed-text"
STACK_CHUNKING = "stack-mine"
B_CHUNKING = "recursive-1000-200-carry_tail"

STACK_CONFIG = {
    "name": "mine",
    "kind": "stack",
    "chunking": STACK_CHUNKING,
    "k": 3,
    "hybrid": False,
    "probes": ["boundary"],
    "description": "my stack: llama-index SentenceSplitter 400/40, k=3",
    "stack": {
        "file": "my_stack.yaml",
        "sha256": "ab" * 32,
        "splitter": {
            "class": "llama_index.core.node_parser.SentenceSplitter",
            "args": {"chunk_size": 400, "chunk_overlap": 40},
        },
        "embedder": {
            "spec": STACK_EMBEDDER,
            "base_url": "http://127.0.0.1:8090/v1",
            "api_key_env": "EMBED_KEY",
        },
        "generator": None,
        "retriever": None,
    },
}


def _config(name: str, k: int) -> dict:
    return {
        "name": name,
        "kind": "builtin",
        "splitter": "recursive",
        "chunk_size": 1000,
        "overlap": 200,
        "overlap_rule": "carry_tail",
        "k": k,
        "hybrid": False,
        "probes": None,
        "description": f"recursive 1000/200 carry-tail, k={k}",
    }


def _measure(count: int, n: int) -> dict:
    return {"count": count, "n": n, "rate": count / n, "wilson": [0.1, 0.9]}


def _cell(probe: str, config: str, embedder: str, counts: dict, generated: bool) -> dict:
    layer = "control" if probe == "control" else "architectural"
    measures = {name: _measure(count, 5) for name, count in counts.items()}
    return {
        "probe": probe,
        "layer": layer,
        "config": config,
        "embedder": embedder,
        "n": 5,
        "generated": generated,
        "measures": measures,
        "severity": {"class": "medium" if generated else "undetermined", "branch": "x"},
        "detectability": {"measurable": False, "min_class_size": 3, "score": "top1_cosine"},
    }


# (probe, config, embedder): gold_in_context, span_preserved, correct (of 5 each)
CELLS = [
    _cell("control", "B", PRIMARY, {"gold_in_context": 5, "span_preserved": 5}, False),
    _cell("control", "C", PRIMARY, {"gold_in_context": 5, "span_preserved": 5}, False),
    _cell(
        "boundary",
        "B",
        PRIMARY,
        {"gold_in_context": 2, "span_preserved": 2, "correct": 1},
        True,
    ),
    _cell("boundary", "C", PRIMARY, {"gold_in_context": 3, "span_preserved": 2}, False),
    _cell(
        "boundary",
        "mine",
        STACK_EMBEDDER,
        {"gold_in_context": 4, "span_preserved": 4, "correct": 3},
        True,
    ),
]

DOC = "boundary-000"
DOC_TEXT = "Section 4417-B. " + "The retention interval is 38 days. " * 4


def _record(config: str, embedder: str, chunking: str, gold: bool, chunk_id: str) -> dict:
    return {
        "key": f"boundary/boundary-000/{config}/{embedder}",
        "probe": "boundary",
        "layer": "architectural",
        "instance_id": "boundary-000",
        "config": config,
        "embedder": embedder,
        "chunking": chunking,
        "question": "What is the retention interval?",
        "gold_answer": "38 days",
        "gold_spans": [
            {"doc_id": DOC, "start": 16, "end": 51, "text": DOC_TEXT[16:51], "role": "gold"}
        ],
        "trap_spans": [],
        "extra_spans": [],
        "answer_doc_ids": [DOC],
        "retrieved": [
            {
                "chunk_id": chunk_id,
                "doc_id": DOC,
                "rank": 1,
                "score": 0.8,
                "dense_score": 0.8,
                "bm25_score": None,
                "start": 0,
                "end": 60,
            }
        ],
        "retrieval_error": None,
        "gold_in_context": gold,
        "span_preserved": gold,
        "generation": None,
        "grade": None,
    }


def stack_results(*, with_stack: bool = True) -> dict:
    """The results file; without the stack it is what a run before issue 13 wrote."""
    results = {
        "schema_version": 4,
        "created_at": "2026-12-01T10:00:00+00:00",
        "complete": True,
        "run": {
            "preset": "quick",
            "gen_configs": ["B"],
            "generate": True,
            "indexes": [
                {"embedder": PRIMARY, "chunking": B_CHUNKING, "chunks": 10},
                {
                    "embedder": STACK_EMBEDDER,
                    "chunking": STACK_CHUNKING,
                    "chunks": 12,
                    "approximate_spans": 2,
                },
            ],
            "chunk_counts": {B_CHUNKING: 10, STACK_CHUNKING: 12},
        },
        "corpus": {
            "seed": 7,
            "n": 5,
            "documents": 11,
            "sha256": "0" * 64,
            "probes": [
                {"name": "control", "layer": "control", "n": 5},
                {"name": "boundary", "layer": "architectural", "n": 5},
            ],
        },
        "configs": [_config("B", 3), _config("C", 8), copy.deepcopy(STACK_CONFIG)],
        "embedders": [{"spec": PRIMARY, "role": "primary", "probes": ["control", "boundary"]}],
        "generator": {"spec": "local:qwen2.5-0.5b"},
        "models": [],
        "conditions": {"calls": {"replayed": 0, "computed": 0, "failed": 0}},
        "control_certification": {PRIMARY: {"certified": True, "pass_rate": 0.8}},
        "chunks": {
            f"{B_CHUNKING}/{DOC}#0": {
                "doc_id": DOC,
                "chunking": B_CHUNKING,
                "index": 0,
                "start": 0,
                "end": 60,
                "text": DOC_TEXT[0:60],
            },
            f"{STACK_CHUNKING}/{DOC}#0": {
                "doc_id": DOC,
                "chunking": STACK_CHUNKING,
                "index": 0,
                "start": 0,
                "end": 60,
                "text": DOC_TEXT[0:60].upper(),  # the splitter rewrote it
                "span_exact": False,
            },
        },
        "chunk_offsets": {
            B_CHUNKING: {DOC: [[0, 60], [40, len(DOC_TEXT)]]},
            STACK_CHUNKING: {DOC: [[0, 60], [60, len(DOC_TEXT)]]},
        },
        "instances": [
            _record("B", PRIMARY, B_CHUNKING, False, f"{B_CHUNKING}/{DOC}#0"),
            _record("mine", STACK_EMBEDDER, STACK_CHUNKING, True, f"{STACK_CHUNKING}/{DOC}#0"),
        ],
        "cells": copy.deepcopy(CELLS),
        "comparisons": [],
        "severity_rules": [{"class": "none", "branch": "no_failures", "text": "No failures."}],
        "analysis": {"wilson_confidence": 0.95, "cells": len(CELLS)},
        "grading_patterns": {},
    }
    if not with_stack:
        results["configs"] = results["configs"][:2]
        results["cells"] = [c for c in results["cells"] if c["config"] != "mine"]
        results["instances"] = [r for r in results["instances"] if r["config"] != "mine"]
        results["run"]["indexes"] = results["run"]["indexes"][:1]
    return results
