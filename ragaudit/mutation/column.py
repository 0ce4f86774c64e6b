"""The user's column: their settings file (ragaudit's own splitter and dense or hybrid
retrieval, with the audit's slot policy) or their stack file (their splitter, their
retriever or embedder, k), as `ragaudit audit` runs them. It says how it cuts one document
(what boundary and table_split search with) and ranks one corpus's cases; everything is
built through the audit's machinery, so a mutant is retrieved exactly as an audit case is."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragaudit.auditing.cases import Case
from ragaudit.auditing.chunks import AuditChunk, build_chunks
from ragaudit.auditing.engine import (
    DEFAULT_RANK_DEPTH,
    build_index,
    embed_questions,
    embed_text_of,
    rank_chunks,
)
from ragaudit.auditing.policy import Candidate, apply_policy
from ragaudit.auditing.settings import AuditSettings, load_settings
from ragaudit.auditing.target import (
    as_audit_chunks,
    load_audit_stack,
    prepare_stack,
    rank_with_stack,
    stack_settings,
)
from ragaudit.backends.specs import describe_model, load_embedder
from ragaudit.documents import Document
from ragaudit.errors import RagauditError
from ragaudit.mutation.operator import Splitter
from ragaudit.mutation.overlay import OverlayIndex, Ranked
from ragaudit.mutation.window import embedder_in_window
from ragaudit.stack.windows import survey_window
from ragaudit.targets.column import TargetColumn
from ragaudit.targets.stackfile import StackSpec, check_stack, load_stack


def _load_stack(source: Path | StackSpec) -> StackSpec:
    """A component stack as `ragaudit audit` loads it, or a `pipeline:` stack (built per
    operator corpus later, by targets.pipeline); a StackSpec given in Python is checked
    alike."""
    stack = source if isinstance(source, StackSpec) else load_stack(source)
    if stack.pipeline is None:
        return load_audit_stack(stack)
    check_stack(stack, list(stack.probes or ()), [])
    return stack


class Column:
    """A settings file or a stack file as the one column of a mutation audit."""

    def __init__(
        self, settings_path: Path | AuditSettings | None, stack_path: Path | StackSpec | None
    ) -> None:
        """Each a file's path, or (from the library) AuditSettings or a StackSpec."""
        if settings_path is not None and stack_path is not None:
            raise RagauditError("give --settings or --stack, not both")
        self.path = stack_path or settings_path
        if not isinstance(self.path, (str, Path)):
            self.path = None  # given in Python: no file
        self.stack: StackSpec | None = None
        if stack_path is not None:
            self.stack = _load_stack(stack_path)
            if self.stack.pipeline is not None:
                # its whole pipeline answers: no splitter or slot policy of ragaudit's
                self.settings = AuditSettings(name=self.stack.name)
                return
            base = AuditSettings(name=self.stack.name)
            self.settings = stack_settings(self.stack, base, self.stack.where("k"))
            # the stack over no documents yet: how it cuts one (targets.column)
            self._target = TargetColumn(self.stack, (), cut_only=True)
        else:
            if isinstance(settings_path, AuditSettings):
                self.settings = settings_path
            else:
                self.settings = load_settings(settings_path) if settings_path else None
            self.settings = self.settings or AuditSettings(name="default")

    @property
    def pipeline(self) -> bool:
        """A `pipeline:` stack: the user's whole pipeline is the column
        (mutation.pipeline_column)."""
        return self.stack is not None and self.stack.pipeline is not None

    @property
    def overlay(self) -> bool:
        """ragaudit ranks with its own core (settings, or a stack's splitter and embedder):
        each mutant is an overlay on one base index. A user's retriever or pipeline is
        rebuilt per corpus instead (mutation.groups)."""
        return not self.pipeline and (self.stack is None or self.stack.retriever is None)

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
            return self._target.offsets
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
            from ragaudit.auditing.pipeline_ranking import rank_with_pipeline

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

    def base_index(
        self, documents: Sequence[Document], cases: Sequence[Case], cache: Any, workers: int,
        progress: Any, depth: int = DEFAULT_RANK_DEPTH,
    ) -> tuple[OverlayIndex, dict]:  # fmt: skip
        """The unmutated corpus indexed once (the overlay column's base), and its index
        section: chunks, the collection and the chunks past the embedder's window."""
        depth = max(depth, self.settings.candidate_pool)
        chunks = self.cut(documents)
        embedder = self._embedder(cache, workers)
        progress.stage("embedding the corpus", len({embed_text_of(c) for c in chunks}))
        index = build_index(embedder, chunks, self.chunking_name, progress.advance)
        progress.finish_stage()  # the chunks the collection already held
        window = survey_window(embedder, [embed_text_of(c) for c in chunks])
        section = {
            "chunking": self.chunking_name, "chunks": len(chunks),
            "indexed": len(index.indexed), "collection": index.collection_name,
            "embedder": embedder.spec, **window.fields(chunks, embed_text_of),
        }  # fmt: skip
        overlay = OverlayIndex(embedder, index, self._cut_added, cases, depth, self.settings.hybrid)
        return overlay, section

    def window_check(self, cache: Any, workers: int) -> Any:
        """`in_window(text, offset)`: whether text[:offset] fits the embedder's input window
        (mutation.window; a tokenizer pass, the embedder loaded on first use); None when
        ragaudit does not embed for this column (a user's retriever or pipeline)."""
        if not self.overlay:
            return None
        found: list = []

        def in_window(text: str, offset: int) -> bool | None:
            if not found:
                found.append(embedder_in_window(self._embedder(cache, workers)))
            return None if found[0] is None else found[0](text, offset)

        return in_window

    def _cut_added(self, documents: Sequence[Document]) -> list[AuditChunk]:
        """A mutant's documents cut as the column cuts (one document at a time, so the
        same as inside the whole corpus)."""
        if self.stack is not None:
            return as_audit_chunks(self._target.cut(documents)[0], documents)
        return build_chunks(list(documents), self.settings)[0]

    def _embedder(self, cache: Any, workers: int) -> Any:
        if getattr(self, "_loaded", None) is None:
            if self.stack is not None and self.stack.embedder is not None:
                self._loaded = self._target.embedder(cache, workers=workers)
            else:
                self._loaded = load_embedder(self.settings.embedder, cache, workers=workers)
        return self._loaded

    def selected(self, ranking: list[Candidate]) -> list[Candidate]:
        """What reaches the model: the slot policy (pool, threshold, cap, floor) over the
        ranking, as the audit applies it."""
        return apply_policy(ranking, self.settings).selected
