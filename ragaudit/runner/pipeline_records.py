"""A pipeline's answer to one instance as an instance record: its located contexts as the
ranking (rank = the context's position in what the pipeline returned), the same diagnostics
as a stack's (stack.diagnostics.diagnose), the answer as the record's generation, its
citations read from what the pipeline says it cited or from the answer's [n] marks."""

from __future__ import annotations

from typing import Any

from ragaudit.runner.generate import parse_citations
from ragaudit.runner.retrieve import base_record
from ragaudit.stack.diagnostics import ChunkingView, diagnose
from ragaudit.stack.retrieval import Hit
from ragaudit.targets.pipeline.answer import PipelineAnswer
from ragaudit.targets.pipeline.oracle import NOT_MEASURED


def context_label(position: int) -> str:
    """The label of the context at 1-based `position` (the answer's [c1] or [1] reads it)."""
    return f"c{position}"


def located_hits(answer: PipelineAnswer, placed: list[Any], k: int | None) -> list[Hit]:
    """The located contexts as hits, ranked by their position among all returned ones."""
    hits = []
    for position, (context, chunk) in enumerate(zip(answer.contexts, placed, strict=True), 1):
        if k is not None and position > k:
            break
        if chunk is None or any(hit.chunk_id == chunk.chunk_id for hit in hits):
            continue
        hits.append(
            Hit(chunk.chunk_id, chunk.doc_id, position, context.score, context.score, None,
                chunk.start, chunk.end)
        )  # fmt: skip
    return hits


def answered_record(
    instance: Any,
    stack: Any,
    answer: PipelineAnswer,
    placed: list[Any],
    view: ChunkingView,
    chunk_by_id: dict,
    *,
    generated: bool,
    replayed: bool,
) -> dict:
    """The record of an instance the pipeline answered; `placed`: each context's chunk or
    None (it matches no document); `generated`: the run grades answers for its probe."""
    record = base_record(instance, stack, stack.embedder_label)
    hits = located_hits(answer, placed, stack.k)
    shown = answer.contexts[: stack.k] if stack.k is not None else answer.contexts
    record["k"] = len(shown)
    record["retrieved"] = [hit.to_json() for hit in hits]
    record.update(diagnose(instance, view, hits, len(hits), chunk_by_id))
    labels = {
        context_label(position): chunk.chunk_id if chunk is not None else f"unmatched:{position}"
        for position, chunk in enumerate(placed[: len(shown)], 1)
    }
    record["pipeline"] = {
        "contexts": [
            {
                "rank": position,
                "chunk_id": chunk.chunk_id if chunk is not None else None,
                "span_exact": chunk.span_exact if chunk is not None else None,
                "id": context.id,
                "score": context.score,
                "text": None if chunk is not None else context.text,
            }
            for position, (context, chunk) in enumerate(zip(shown, placed, strict=False), 1)
        ],
        "unmatched": sum(1 for chunk in placed[: len(shown)] if chunk is None),
    }
    if generated:
        record["generation"] = {
            "generator": stack.embedder_label,
            "prompt_sha256": None,
            "status": "ok",
            "reply": answer.answer,
            "error": None,
            "citations": cited(answer, labels),
            "citation_labels": labels,
            "replayed": replayed,
            "usage": None,
        }
        record["oracle"] = None
        record["ceiling"] = NOT_MEASURED if not stack.oracle else None
    return record


def cited(answer: PipelineAnswer, labels: dict[str, str]) -> list[str]:
    """The chunk ids the answer cites: the pipeline's own list (context ids or 1-based
    positions) when it gives one, else the answer's [c1] / [1] marks."""
    if answer.citations is None:
        return parse_citations(answer.answer, labels)
    by_id = {c.id: context_label(i) for i, c in enumerate(answer.contexts, 1) if c.id}
    out: list[str] = []
    for given in answer.citations:
        label = by_id.get(given) or (context_label(int(given)) if given.isdigit() else None)
        chunk_id = labels.get(label) if label else None
        chosen = chunk_id or given
        if chosen not in out:
            out.append(chosen)
    return out


def failed_record(instance: Any, stack: Any, reason: str, *, generated: bool) -> dict:
    """The record of an instance whose pipeline call failed: nothing measured, the
    generation a failed call (it stays in the cell's n)."""
    record = base_record(instance, stack, stack.embedder_label)
    record["retrieval_error"] = reason
    record["diagnostics_reason"] = "the pipeline call failed, so nothing was measured"
    if generated:
        record["generation"] = {
            "generator": stack.embedder_label, "prompt_sha256": None, "status": "failed_call",
            "reply": None, "error": reason, "citations": [], "citation_labels": {},
            "replayed": False, "usage": None,
        }  # fmt: skip
        record["oracle"] = None
    return record
