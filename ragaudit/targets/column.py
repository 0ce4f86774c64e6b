"""The one column: a parsed stack (targets.stackfile.StackSpec) built over one corpus.

`run`, `audit` and `mutate` all enter the user's system under test here, so each cuts,
ranks and asks it the same way:

* a component stack: their splitter cuts the documents (every chunk located in its
  document, approximate spans counted) and their retriever factory, when there is one, is
  built over those chunks or the documents; without one, ragaudit's core ranks with their
  embedder (the caller indexes, since run and audit keep different records);
* a `pipeline:` stack: their whole pipeline, built over the documents (factory called, or
  the service's documents ingested), answers and names its contexts.

Building a column loads no model and writes nothing, so a bad component is one line before
the call cache or Chroma opens. What each verb makes of the rankings (matrix records, audit
candidates, mutant records) stays with that verb.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ragaudit.backends.specs import option_keys
from ragaudit.documents import Document
from ragaudit.stack.chunking import Chunk
from ragaudit.targets.pipeline.build import BuiltPipeline, build_pipeline
from ragaudit.targets.retriever import UserRetriever
from ragaudit.targets.splitter import UserSplitter
from ragaudit.targets.stackfile import StackSpec, build_splitter


def load_model(loader: Callable, model: dict, cache: Any, **extra: Any) -> Any:
    """A stack's embedder or generator (`{"spec", "base_url", "api_key_env"}`) through the
    backends' loader, with its endpoint options (the key's variable name, never the key)."""
    options = {key: model.get(key) for key in option_keys()}
    return loader(model["spec"], cache, options=options, **extra)


def chunk_json(chunk: Any) -> dict:
    """A stack chunk as the results file's `chunks` entry (with `span_exact`)."""
    return {
        "doc_id": chunk.doc_id,
        "chunking": chunk.chunk_id.split("/", 1)[0],
        "index": chunk.index,
        "start": chunk.start,
        "end": chunk.end,
        "text": chunk.text,
        "span_exact": chunk.span_exact,
    }


class TargetColumn:
    """A stack built over `documents`: its chunks and retriever, or its pipeline."""

    def __init__(
        self, stack: StackSpec, documents: Sequence[Document], *, dry_run: bool = False,
        cut_only: bool = False,
    ) -> None:  # fmt: skip
        """Cut and build now (bad input: RagauditError naming the stack file's field).
        `dry_run`: a pipeline is checked and named, no factory called, nothing ingested.
        `cut_only`: a component stack's chunks only, no retriever built (a dry run's
        count, which calls no factory)."""
        self.stack = stack
        self.documents = tuple(documents)
        self.chunks: list[Chunk] = []
        self.approximate = 0
        """How many chunks the splitter rewrote, so they are placed approximately."""
        self.retriever: UserRetriever | None = None
        self.pipeline: BuiltPipeline | None = None
        if stack.pipeline is not None:  # its chunks are its own: none to cut
            if not cut_only:
                self.pipeline = build_pipeline(stack, self.documents, dry_run=dry_run)
            return
        label = stack.where("splitter", "class")
        self._splitter = UserSplitter(build_splitter(stack), label, stack.limits)
        self.chunks, self.approximate = self.cut(self.documents)
        if (
            stack.retriever is not None and not cut_only
        ):  # built now: a factory that raises is one line
            self.retriever = UserRetriever(
                stack.retriever["factory"], stack.retriever["args"], self.chunks,
                list(self.documents), stack.where("retriever", "factory"),
                chunking_name=stack.chunking_name, limits=stack.limits,
            )  # fmt: skip

    def cut(self, documents: Sequence[Document]) -> tuple[list[Chunk], int]:
        """`documents` cut by their splitter (chunk ids ``stack-<name>/<doc>#<i>``) and how
        many chunks were placed approximately; a document cut alone is cut as within the
        corpus, so a mutant's documents are cut as the corpus's."""
        outcome = self._splitter.split(documents, self.stack.chunking_name)
        return list(outcome.chunks), outcome.approximate

    def offsets(self, document: Document) -> list[tuple[int, int]]:
        """How their splitter cuts one document: each chunk's (start, end), in order."""
        return [(c.start, c.end) for c in self.cut([document])[0]]

    def embedder(self, cache: Any, **load: Any) -> Any:
        """Their embedder, loaded through the call cache (`load` goes to load_embedder)."""
        from ragaudit.backends.specs import load_embedder

        return load_model(load_embedder, self.stack.embedder, cache, **load)

    def generator(self, cache: Any, default_spec: str) -> Any:
        """Their generator, else `default_spec` (the run's)."""
        from ragaudit.backends.specs import load_generator

        return load_model(load_generator, self.stack.generator or {"spec": default_spec}, cache)
