"""One instance record per (mutant, phrasing), in the results file's record format: the
operator is the probe, the phrasing's case id the instance, the user's column the config.
Each record carries the model-free measures (gold in context, span preserved, ranks and the
margin to the trap) and the retrieval-side measure that says whether the column handled the
mutant without generation (mutation.score reads it): true, false, or null when no
retrieval-side measure can say (remove_answer with something retrieved)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from ragaudit.mutation.grouping import Mutant
from ragaudit.results.records import InstanceRecord, instance_record
from ragaudit.stack.diagnostics import diagnostic_fields, span_in

HANDLED_FIELDS = {
    "control": "gold_in_context",
    "nothing_retrieved": "nothing_retrieved",
    "new_revision_first": "gold_ranked_above_trap",
    "original_first": "gold_ranked_above_trap",
    "gold_in_context": "gold_in_context",
    "header_and_row_in_context": "header_and_row_in_context",
}
"""An operator's retrieval-side measure -> the record field that says it was handled."""


def _best(spans: Sequence[Any], ranking: Sequence[Any], chunks: dict) -> Any | None:
    for candidate in ranking:
        chunk = chunks.get(candidate.chunk_id)
        if chunk is not None and any(span_in(s, chunk) for s in spans):
            return candidate
    return None


def _all_in(spans: Sequence[Any], selected: Sequence[Any], chunks: dict) -> bool:
    return all(any(span_in(s, chunks[c.chunk_id]) for c in selected) for s in spans)


def hit_json(candidate: Any, chunk: Any) -> dict:
    """A `retrieved` entry (the shape of stack.retrieval.Hit.to_json)."""
    return {
        "chunk_id": candidate.chunk_id, "doc_id": candidate.source, "rank": candidate.rank,
        "score": candidate.score, "dense_score": candidate.score,
        "bm25_score": candidate.bm25_score, "start": chunk.start, "end": chunk.end,
    }  # fmt: skip


def mutant_record(
    mutant: Mutant,
    case: Any,
    column: Any,
    layer: str,
    measure: str,
    ranking: list | None,
    corpus_chunks: Sequence[Any],
    indexed: dict,
    error: str | None = None,
) -> InstanceRecord:
    """The record of one phrasing asked against one mutant (or the control), through the
    one record builder."""
    record = instance_record(
        key=f"{mutant.operator}/{case.case_id}{_variant(mutant)}/{column.name}/"
        f"{column.embedder_label}",
        probe=mutant.operator, layer=layer, instance_id=case.case_id, config=column.name,
        embedder=column.embedder_label, chunking=column.chunking_name, k=column.k,
        question=case.question, gold_answer=mutant.accept[0] if mutant.accept else None,
        spans=tuple([asdict(s) for s in spans] for spans in (
            mutant.gold_spans, mutant.trap_spans, mutant.extra_spans
        )),
        answer_doc_ids=[mutant.mutant_doc_id or mutant.doc_id], anchor=None,
        grading=_grading(mutant),
        meta={"mutant": mutant.mutant_id, "rule": mutant.rule, "intent": mutant.intent},
        diagnostics=diagnostic_fields(()),
    )  # fmt: skip
    record["retrieval_error"] = error
    mutation = {"mutant": mutant.mutant_id, "measure": HANDLED_FIELDS[measure]}
    if ranking is None:
        record["diagnostics_reason"] = "retrieval failed, so nothing was measured"
        record["mutation"] = mutation | {"handled_retrieval": False, "top_score": None}
        return record
    selected = column.selected(ranking)
    record["retrieved"] = [hit_json(c, indexed[c.chunk_id]) for c in selected]
    record.update(_measures(mutant, ranking, selected, corpus_chunks, indexed))
    record["mutation"] = mutation | _retrieval_side(
        mutant, case, record, ranking, selected, indexed, mutation["measure"]
    )
    return record


def _retrieval_side(
    mutant: Mutant, case: Any, record: dict, ranking: list, selected: list, indexed: dict,
    measure: str,
) -> dict:  # fmt: skip
    """The record's retrieval-side measures and whether the one its operator reads
    (`measure`) handled the mutant."""
    header_row = [s for s in mutant.extra_spans if s.role in ("table_header", "table_row")]
    values = {
        "gold_in_context": record["gold_in_context"],
        "nothing_retrieved": not selected,
        "gold_ranked_above_trap": record["gold_rank"] is not None
        and (record["trap_rank"] is None or record["gold_rank"] < record["trap_rank"]),
        "header_and_row_in_context": bool(header_row) and _all_in(header_row, selected, indexed),
    }
    sources = {c.source for c in selected}
    side = {
        # the audit's measure: every required source, and one of the alternatives, selected
        "source_in_top_k": set(case.expect_all) <= sources
        and (not case.expect_any or bool(set(case.expect_any) & sources)),
        "top_score": ranking[0].score if ranking else None,
        "nothing_retrieved": not selected,
        "gold_ranked_above_trap": values["gold_ranked_above_trap"] if mutant.trap_spans else None,
        "header_and_row_in_context": values["header_and_row_in_context"] if header_row else None,
        "handled_retrieval": bool(values[measure]),
    }
    if measure == "nothing_retrieved" and selected:
        # something reached the model: only its answer could show an abstention, so without
        # generation this phrasing is not measured (None), not survived
        side["handled_retrieval"] = None
    return side


def _variant(mutant: Mutant) -> str:
    return f"@{mutant.variant}" if mutant.variant else ""


def _grading(mutant: Mutant) -> dict:
    if mutant.expect == "abstain":
        return {"kind": "abstain"}
    return {"kind": "value", "accept": list(mutant.accept), "trap_values": list(mutant.traps)}


def _measures(
    mutant: Mutant, ranking: list, selected: list, corpus_chunks: Sequence[Any], indexed: dict
) -> dict:
    gold, traps = list(mutant.gold_spans), list(mutant.trap_spans)
    out: dict = {}
    if gold:
        out["gold_in_context"] = _all_in(gold, selected, indexed)
        out["span_preserved"] = all(any(span_in(s, c) for c in corpus_chunks) for s in gold)
        hit = _best(gold, ranking, indexed)
        if hit is not None:
            out["gold_rank"], out["gold_score"] = hit.rank, hit.score
        else:
            out["gold_rank_reason"] = "no chunk holding a gold span was ranked within the pool"
    if traps and gold:
        trap = _best(traps, ranking, indexed)
        if trap is not None:
            out["trap_rank"], out["trap_score"] = trap.rank, trap.score
        if out.get("gold_score") is not None and out.get("trap_score") is not None:
            out["margin"] = out["gold_score"] - out["trap_score"]
    return out
