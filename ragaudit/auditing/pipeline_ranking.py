"""A `pipeline:` stack ranking cases: the user's whole pipeline, built over a corpus (the
one column, targets.column), asked every case's question once through the call cache, each
context it returns located in that corpus (targets.pipeline.contexts) as its ranking. The
audit ranks a pipeline's cases this way (auditing.target), and the mutation audit each
operator's corpus (mutation.pipeline_column), so a mutant is asked exactly as a case is."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragaudit.auditing.policy import Candidate
from ragaudit.targets.column import TargetColumn
from ragaudit.targets.pipeline.build import BuiltPipeline
from ragaudit.targets.pipeline.calls import ask_all
from ragaudit.targets.pipeline.contexts import ContextLocator


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
    built: BuiltPipeline | None = None
    """The pipeline (and its oracle) built over this corpus."""
    locator: ContextLocator | None = None
    """Where this corpus's contexts (and oracle passages) were located."""


def corpus_digest(documents: Sequence[Any]) -> str:
    """What the pipeline was built over: part of its answers' cache identity, so the same
    question over another operator's corpus is asked again, not replayed."""
    digest = hashlib.sha256()
    for doc in sorted(documents, key=lambda d: d.doc_id):
        digest.update(f"{doc.doc_id}\0{doc.text}\n".encode())
    return digest.hexdigest()


def rank_with_pipeline(
    stack: Any, documents: Sequence[Any], cases: Sequence[Any], cache: Any, workers: int,
    built: BuiltPipeline | None = None,
) -> PipelineRanked:  # fmt: skip
    """Build the pipeline over `documents` (unless `built` already is), ask every case
    once, locate its contexts."""
    built = built if built is not None else TargetColumn(stack, documents).pipeline
    corpus = corpus_digest(documents)
    identity = cache.remember_identity({**built.identity, "mutation_corpus": corpus})
    answers, replayed = ask_all(
        [c.question for c in cases], built.ask, cache, model=built.model, identity=identity,
        workers=workers,
    )  # fmt: skip
    # a located chunk is numbered in the order this corpus's contexts came: named by the
    # corpus too, so an id never stands for two passages of two corpora
    locator = ContextLocator(list(documents), f"{stack.chunking_name}@{corpus[:8]}")
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
    return PipelineRanked(
        ranked, list(locator.chunks), indexed, failures, built.models(), replies, built, locator
    )
