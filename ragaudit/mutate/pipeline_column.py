"""A `pipeline:` stack as the mutation audit's column: the user's whole pipeline built over
each operator's corpus (ingested once per corpus, userpipeline.build), every phrasing asked
once per corpus through the call cache, each context it returns located in that corpus
(userpipeline.contexts) as its ranking. Its answer is the record's generation, graded like
any other. The pipeline's chunks are its own, so what needs ragaudit's splitter (boundary,
table_split) and the retrieval-side `--no-generate` measures are not applicable."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragaudit.audit.policy import Candidate
from ragaudit.mutate.operator import PIPELINE_CHUNKS
from ragaudit.userpipeline.build import build_pipeline
from ragaudit.userpipeline.calls import ask_all
from ragaudit.userpipeline.contexts import ContextLocator


@dataclass(frozen=True)
class PipelineFailure:
    """A phrasing the pipeline failed on (its one-line reason)."""

    item: str
    error: str
    model: str
    kind: str = "pipeline"


@dataclass
class PipelineRanked:
    """What the pipeline returned for one operator corpus's phrasings."""

    ranked: dict[str, list[Candidate] | None]
    chunks: list
    """The located contexts (the only chunks ragaudit knows of a pipeline)."""
    indexed: dict
    failures: list[PipelineFailure]
    models: list[dict]
    answers: dict[str, tuple[Any, bool]]
    """case id -> (its PipelineAnswer, replayed)."""


def corpus_digest(documents: Sequence[Any]) -> str:
    """What the pipeline was built over: part of its answers' cache identity, so the same
    question over another operator's corpus is asked again, not replayed."""
    digest = hashlib.sha256()
    for doc in sorted(documents, key=lambda d: d.doc_id):
        digest.update(f"{doc.doc_id}\0{doc.text}\n".encode())
    return digest.hexdigest()


def rank_with_pipeline(
    stack: Any, documents: Sequence[Any], cases: Sequence[Any], cache: Any, workers: int
) -> PipelineRanked:
    """Build the pipeline over `documents`, ask every case once, locate its contexts."""
    built = build_pipeline(stack, list(documents))
    identity = cache.remember_identity(
        {**built.identity, "mutation_corpus": corpus_digest(documents)}
    )
    answers, replayed = ask_all(
        [c.question for c in cases], built.ask, cache, model=built.model, identity=identity,
        workers=workers,
    )  # fmt: skip
    locator = ContextLocator(list(documents), stack.chunking_name)
    ranked: dict[str, list[Candidate] | None] = {}
    indexed: dict = {}
    failures, replies = [], {}
    for case in cases:
        answer = answers[case.question]
        if isinstance(answer, str):
            ranked[case.case_id] = None
            failures.append(PipelineFailure(case.case_id, answer, built.model))
            continue
        shown = answer.contexts[: stack.k] if stack.k is not None else answer.contexts
        candidates = []
        placed = locator.locate_all(shown)
        for position, (context, chunk) in enumerate(zip(shown, placed, strict=True), 1):
            if chunk is None or chunk.chunk_id in {c.chunk_id for c in candidates}:
                continue  # a context found in no document of this corpus
            indexed[chunk.chunk_id] = chunk
            score = context.score if context.score is not None else 0.0
            candidates.append(Candidate(chunk.chunk_id, chunk.doc_id, None, position, score))
        ranked[case.case_id] = candidates
        replies[case.case_id] = (answer, case.question in replayed)
    return PipelineRanked(ranked, list(locator.chunks), indexed, failures, built.models(), replies)


def answer_record(record: dict, reply: tuple[Any, bool] | None, generate: bool) -> dict:
    """A mutant record under a pipeline: its answer as the generation (when graded), and
    the retrieval-side measures ragaudit cannot take of a pipeline marked not applicable."""
    record["span_preserved"] = None
    record["mutation"]["handled_retrieval"] = None
    record["mutation"]["measure"] = PIPELINE_CHUNKS
    if reply is None or not generate:
        return record
    answer, replayed = reply
    labels = {f"c{i}": hit["chunk_id"] for i, hit in enumerate(record["retrieved"], 1)}
    record["generation"] = {
        "generator": record["embedder"], "prompt_sha256": None, "status": "ok",
        "reply": answer.answer, "error": None, "citations": [], "citation_labels": labels,
        "replayed": replayed, "usage": None,
    }  # fmt: skip
    record["oracle"] = None
    return record
