"""The user's column: their settings file (ragaudit's own splitter and dense or hybrid
retrieval, with the audit's slot policy) or their stack file (their splitter, their
retriever or embedder, k), as `ragaudit audit` runs them. It says how it cuts one document
(what boundary and table_split search with) and ranks one corpus's cases; everything is
built through the audit's machinery, so a mutant is retrieved exactly as an audit case is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragaudit.audit.cases import Case
from ragaudit.audit.chunks import AuditChunk, build_chunks
from ragaudit.audit.engine import build_index, embed_questions, rank_chunks
from ragaudit.audit.policy import Candidate, apply_policy
from ragaudit.audit.settings import AuditSettings, load_settings
from ragaudit.audit.userstack import (
    load_audit_stack,
    prepare_stack,
    rank_with_stack,
    stack_settings,
)
from ragaudit.backends.specs import describe_model, load_embedder
from ragaudit.documents import Document
from ragaudit.errors import RagauditError
from ragaudit.mutate.operator import Splitter
from ragaudit.stack.stackfile import StackSpec, build_splitter, check_stack, load_stack
from ragaudit.userstack.splitter import UserSplitter

DEFAULT_RANK_DEPTH = 100


@dataclass
class Ranked:
    """One corpus's cases ranked by the column (None: the case's call failed)."""

    ranked: dict[str, list[Candidate] | None]
    chunks: list[AuditChunk]
    """Every chunk of the corpus as the column cut it."""
    indexed: dict[str, AuditChunk]
    failures: list[Any] = field(default_factory=list)
    models: list[dict] = field(default_factory=list)


def _load_stack(path: Path) -> StackSpec:
    """A component stack as `ragaudit audit` loads it, or a `pipeline:` stack (built per
    operator corpus later, by userpipeline)."""
    stack = load_stack(path)
    if stack.pipeline is None:
        return load_audit_stack(path)
    check_stack(stack, list(stack.probes or ()), [])
    return stack


class Column:
    """A settings file or a stack file as the one column of a mutation audit."""

    def __init__(self, settings_path: Path | None, stack_path: Path | None) -> None:
        if settings_path is not None and stack_path is not None:
            raise RagauditError("give --settings or --stack, not both")
        self.path = stack_path or settings_path
        self.stack: StackSpec | None = None
        if stack_path is not None:
            self.stack = _load_stack(stack_path)
            if self.stack.pipeline is not None:
                # its whole pipeline answers: no splitter or slot policy of ragaudit's
                self.settings = AuditSettings(name=self.stack.name)
                return
            base = AuditSettings(name=self.stack.name)
            self.settings = stack_settings(self.stack, base, self.stack.where("k"))
            label = self.stack.where("splitter", "class")
            self._user_splitter = UserSplitter(build_splitter(self.stack), label, self.stack.limits)
        else:
            self.settings = load_settings(settings_path) if settings_path else None
            self.settings = self.settings or AuditSettings(name="default")

    @property
    def pipeline(self) -> bool:
        """A `pipeline:` stack: the user's whole pipeline is the column (mutate.pipeline_column)."""
        return self.stack is not None and self.stack.pipeline is not None

    @property
    def name(self) -> str:
        return self.stack.name if self.stack is not None else self.settings.name

    @property
    def chunking_name(self) -> str:
        return self.stack.chunking_name if self.stack else self.settings.chunking_name()

    @property
    def embedder_label(self) -> str:
        return self.stack.embedder_label if self.stack else self.settings.embedder

    @property
    def k(self) -> int | None:
        return self.stack.k if self.pipeline else self.settings.k

    def config_json(self) -> dict:
        """The results file's `configs` entry: the column the operators run through."""
        if self.stack is not None:
            return self.stack.to_config_json()
        values = self.settings.model_dump(mode="json")
        return {
            "name": self.name, "kind": "settings", "chunking": self.chunking_name,
            "k": self.k, "hybrid": self.settings.hybrid,
            "file": str(self.path) if self.path else None, "settings": values,
            "description": f"{self.path or 'default settings'}: {self.chunking_name}, k={self.k}",
        }  # fmt: skip

    def splitter(self) -> Splitter | None:
        """How the column cuts one document: its chunks' offsets, in order (None for a
        pipeline: its chunks are its own)."""
        if self.pipeline:
            return None
        if self.stack is not None:
            user = self._user_splitter
            name = self.chunking_name
            return lambda doc: [(c.start, c.end) for c in user.split([doc], name).chunks]
        settings = self.settings
        return lambda doc: [(c.start, c.end) for c in build_chunks([doc], settings)[0]]

    def cut(self, documents: Sequence[Document]) -> list[AuditChunk]:
        """Every chunk of `documents` as the column cuts them (no model; none for a
        pipeline, whose chunks ragaudit never sees)."""
        if self.pipeline:
            return []
        if self.stack is not None:
            return prepare_stack(self.stack, documents).chunks
        return build_chunks(list(documents), self.settings)[0]

    def rank(
        self, documents: Sequence[Document], cases: Sequence[Case], cache: Any, workers: int,
        depth: int = DEFAULT_RANK_DEPTH,
    ) -> Ranked:  # fmt: skip
        """Rank `cases` over `documents` to `depth` (at least the candidate pool)."""
        if self.pipeline:
            from ragaudit.mutate.pipeline_column import rank_with_pipeline

            return rank_with_pipeline(self.stack, documents, cases, cache, workers)
        depth = max(depth, self.settings.candidate_pool)
        if self.stack is not None:
            prepared = prepare_stack(self.stack, documents)
            got = rank_with_stack(prepared, cases, self.settings, depth, cache, workers=workers)
            return Ranked(got.ranked, prepared.chunks, got.indexed, got.failures, got.models)
        chunks, _ = build_chunks(list(documents), self.settings)
        embedder = self._embedder(cache, workers)
        index = build_index(embedder, chunks, self.chunking_name)
        vectors, failures = embed_questions(embedder, [(c.case_id, c.question) for c in cases])
        ranked = {
            c.case_id: rank_chunks(
                index, vectors[c.case_id], c.question, depth, self.settings.hybrid
            )
            if c.case_id in vectors
            else None
            for c in cases
        }
        return Ranked(ranked, chunks, index.indexed, index.failures + failures,
                      [describe_model(embedder)])  # fmt: skip

    def _embedder(self, cache: Any, workers: int) -> Any:
        if getattr(self, "_loaded", None) is None:
            self._loaded = load_embedder(self.settings.embedder, cache, workers=workers)
        return self._loaded

    def selected(self, ranking: list[Candidate]) -> list[Candidate]:
        """What reaches the model: the slot policy (pool, threshold, cap, floor) over the
        ranking, as the audit applies it."""
        return apply_policy(ranking, self.settings).selected
