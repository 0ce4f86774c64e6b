"""The user's own retriever: a factory from their code, asked each question, its answer read
back as ragaudit's ranking (``Hit``s over chunks with exact spans).

A stack file names ``package.module:function``. The function receives the corpus once, as
``chunks=`` (llama-index TextNodes of the stack splitter's chunks: id_ = chunk id, metadata
doc_id/start/end) when it has a ``chunks`` parameter, else as ``documents=`` (llama-index
Documents, id_ = doc id, for a retriever that chunks by itself), plus the stack file's
``args``. It returns a llama-index ``BaseRetriever`` or a plain callable
``question -> [(chunk text or id, score)]`` (a bare string stands for a hit without a score).
That is how the user's vector store, hybrid weights, reranker and filters become what is
measured.

What comes back is named as a chunk, in this order: an id that is a chunk's id; a text equal
to a chunk's text (the first such chunk not already ranked, so two equal texts name two
chunks); and, only when the factory got documents, a passage found in a document, which
becomes an extra chunk ``<chunking>/<doc_id>#r<n>`` located as the splitter locates its
chunks (exact, else approximate and counted in ``approximate``; so is a passage that occurs
more than once with no document or offset to choose between its places). Anything else is
refused in one line. Questions are asked one at a time (extra chunks are numbered in order).

Building the retriever (import, the factory's call) is bounded by limits.build_seconds and
a failure there is bad input (RagauditError: one line, exit 2). Asking it one question is
bounded by limits.call_seconds and limits.max_results (stack.bounded); a question it
raises on, times out on or answers with junk (a value naming no chunk, a score that is not
a finite number, not a list) is one failed call (ModelCallFailed), counted with its reason,
and the next question is asked. While a call abandoned past its limit still runs, the next
questions are not asked (they fail, saying so): the user's code need not be thread-safe.

The documents reach the retriever without ragaudit's metadata: in the planted corpus that
metadata is the answer key (probe, instance id), and ragaudit's own retrieval reads text only.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

from ragaudit.documents import Document
from ragaudit.errors import ModelCallFailed, RagauditError
from ragaudit.stack.chunking import Chunk
from ragaudit.stack.index import chunk_nodes
from ragaudit.stack.retrieval import Hit
from ragaudit.targets.bounded import (
    Abandoned,
    CallTimedOut,
    TooManyResults,
    UserCodeLimits,
    call_bounded,
    take_bounded,
)
from ragaudit.targets.components import build_component, exception_line, import_component
from ragaudit.targets.locate import locate_chunks

SHAPE = "a llama-index BaseRetriever or a callable question -> [(chunk text or id, score)]"


@dataclass(frozen=True)
class Returned:
    """One item of what the user's retriever returned, before it is named as a chunk."""

    value: str
    """What the error quotes: the id or text the retriever gave."""
    node_id: str | None
    text: str | None
    doc_id: str | None
    """The document the retriever says the passage came from (llama-index ref_doc_id)."""
    start: int | None
    """Where the retriever says the passage starts in that document (start_char_idx)."""
    score: float | None


class UserRetriever:
    """The retriever a user's factory builds over the stack's chunks or the documents."""

    def __init__(
        self,
        factory: str,
        args: dict,
        chunks: list[Chunk],
        documents: list[Document],
        label: str,
        *,
        chunking_name: str | None = None,
        limits: UserCodeLimits | None = None,
    ) -> None:
        self.factory, self.label = factory, label
        self.limits = limits = limits or UserCodeLimits()
        self.chunks = {chunk.chunk_id: chunk for chunk in chunks}
        self.documents = {doc.doc_id: doc for doc in documents}
        self.chunking_name = chunking_name or _chunking_of(chunks, label)
        self.extra_chunks: list[Chunk] = []
        """Passages the retriever found in documents that are none of the stack's chunks."""
        self._by_text: dict[str, list[str]] = {}
        for chunk in chunks:
            self._by_text.setdefault(chunk.text, []).append(chunk.chunk_id)
        self._extra: dict[tuple[str, int, int, str], Chunk] = {}
        function = import_component(factory, label, limits.build_seconds)
        self.given = _corpus_parameter(function, factory, label)
        """"chunks" or "documents": what the factory was handed."""
        corpus = chunk_nodes(chunks) if self.given == "chunks" else _llama_documents(documents)
        clash = sorted({"chunks", "documents"} & set(args))
        if clash:
            raise RagauditError(f"{label}: args may not set {clash[0]!r} (ragaudit passes it)")
        self.retriever = build_component(
            factory, {self.given: corpus, **args}, label, limits.build_seconds
        )
        self._ask = _asker(self.retriever, factory, label, limits)

    def ranking(self, question: str, depth: int) -> list[Hit]:
        """At most `depth` hits, best first as the user's retriever ordered them; score and
        dense_score are the score it gave (None when it gave none), bm25_score is None.
        ModelCallFailed when this question's call failed (its reason in the message)."""
        hits: list[Hit] = []
        taken: set[str] = set()
        for item in self._ask(question):
            if len(hits) == depth:
                break
            chunk = self._name(item, taken)
            if chunk.chunk_id in taken:  # the same chunk returned twice counts once
                continue
            taken.add(chunk.chunk_id)
            rank = len(hits) + 1
            score = item.score  # the user's score is both what it sorted on and the "dense" one
            hits.append(
                Hit(chunk.chunk_id, chunk.doc_id, rank, score, score, None, chunk.start, chunk.end)
            )
        return hits

    def _name(self, item: Returned, taken: set[str]) -> Chunk:
        """The chunk `item` names, or a one-line refusal."""
        if item.node_id in self.chunks:
            return self.chunks[item.node_id]
        if item.text is not None and item.text in self._by_text:
            same = self._by_text[item.text]
            return self.chunks[next((cid for cid in same if cid not in taken), same[0])]
        if self.given == "documents" and item.text:
            found = self._found_in_documents(item)
            if found is not None:
                return found
        raise ModelCallFailed(f"{self.label}: returned {item.value!r:.60} which names no chunk")

    def _found_in_documents(self, item: Returned) -> Chunk | None:
        """The extra chunk for a passage found in a document: in the document the retriever
        names, located as the splitter's chunks are (its offset where it verifies, exact,
        else the best alignment); with no document named, in the one document holding it
        verbatim. A passage with several verbatim places and no offset to choose between
        them is placed at the first but not exact: it could not be located exactly."""
        if item.doc_id in self.documents:
            doc = self.documents[item.doc_id]
            placed = locate_chunks(doc.text, [item.text], [item.start])[0]
            ambiguous = placed.start != item.start and doc.text.count(item.text) > 1
            exact = placed.exact and not ambiguous
            return self._extra_chunk(doc, placed.start, placed.end, item.text, exact)
        holding = [doc for doc in self.documents.values() if item.text in doc.text]
        if not holding:
            return None
        doc = holding[0]
        start = doc.text.index(item.text)
        exact = len(holding) == 1 and doc.text.count(item.text) == 1
        return self._extra_chunk(doc, start, start + len(item.text), item.text, exact)

    def _extra_chunk(self, doc: Document, start: int, end: int, text: str, exact: bool) -> Chunk:
        key = (doc.doc_id, start, end, text)
        if key not in self._extra:
            n = sum(1 for chunk in self.extra_chunks if chunk.doc_id == doc.doc_id)
            chunk_id = f"{self.chunking_name}/{doc.doc_id}#r{n}"
            chunk = Chunk(chunk_id, doc.doc_id, n, start, end, text, span_exact=exact)
            self._extra[key] = chunk
            self.extra_chunks.append(chunk)
        return self._extra[key]

    @property
    def approximate(self) -> int:
        """Extra chunks whose span is only the best alignment (the text was rewritten)."""
        return sum(1 for chunk in self.extra_chunks if not chunk.span_exact)


def _chunking_of(chunks: Sequence[Chunk], label: str) -> str:
    # a chunk id is "<chunking name>/<doc_id>#<index>"
    if not chunks:
        raise RagauditError(f"{label}: no chunks to retrieve from")
    return chunks[0].chunk_id.split("/", 1)[0]


def _corpus_parameter(function: Any, factory: str, label: str) -> str:
    """ "chunks" when the factory takes a `chunks` parameter, else "documents"."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # a builtin or C callable: no signature to read
        return "documents"
    if "chunks" in parameters:
        return "chunks"
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    if "documents" in parameters or takes_any:
        return "documents"
    raise RagauditError(f"{label}: {factory} takes neither a chunks nor a documents parameter")


def _llama_documents(documents: Sequence[Document]) -> list[Any]:
    from llama_index.core.schema import Document as LlamaDocument

    return [LlamaDocument(text=doc.text, id_=doc.doc_id) for doc in documents]


def _asker(
    retriever: Any, factory: str, label: str, limits: UserCodeLimits
) -> Callable[[str], list[Returned]]:
    """question -> what the user's retriever returned, read into `Returned` items, within
    the limits; a failure on the question is ModelCallFailed."""
    from llama_index.core.base.base_retriever import BaseRetriever

    if isinstance(retriever, BaseRetriever):
        call = retriever.retrieve
    elif hasattr(retriever, "invoke") and "BaseRetriever" in _class_names(retriever):
        call = retriever.invoke  # a LangChain retriever: a Runnable returning Documents
    elif callable(retriever):
        call = retriever
    else:
        raise RagauditError(f"{label}: {factory} returned {type(retriever).__name__}, not {SHAPE}")

    abandoned = Abandoned()

    def answer(question: str) -> list[Any]:
        result = call(question)
        if isinstance(result, str | bytes | Mapping) or not isinstance(result, Iterable):
            raise ModelCallFailed(
                f"{label}: returned {result!r:.60}, not a list of (chunk text or id, score)"
            )
        return take_bounded(result, limits.max_results)  # an endless generator ends here

    def ask(question: str) -> list[Returned]:
        if abandoned.still_running():
            raise ModelCallFailed(
                f"{label}: not asked: its call on an earlier question is still running past "
                f"{limits.call_seconds:g} s (limits.call_seconds)"
            )
        try:
            result = call_bounded(lambda: answer(question), limits.call_seconds, abandoned)
        except ModelCallFailed:
            raise  # junk it returned, or a model call inside it that failed
        except CallTimedOut as error:
            raise ModelCallFailed(
                f"{label}: retriever gave {error} (limits.call_seconds)"
            ) from None
        except TooManyResults as error:
            raise ModelCallFailed(f"{label}: retriever returned {error}") from None
        except (Exception, SystemExit) as error:  # the user's code: any failure, one line
            what = f"{type(error).__name__}: {exception_line(error)}"
            raise ModelCallFailed(f"{label}: retriever raised {what}") from None
        return [_returned(entry, label) for entry in result]

    return ask


def _class_names(value: Any) -> set[str]:
    return {cls.__name__ for cls in type(value).__mro__}


def _returned(entry: Any, label: str) -> Returned:
    """One returned entry: (value, score), a bare value, or a llama-index NodeWithScore;
    the value is a chunk id or text, or a llama-index node."""
    if hasattr(entry, "node") and hasattr(entry, "score"):  # NodeWithScore
        value, score = entry.node, entry.score
    elif isinstance(entry, (tuple, list)) and len(entry) == 2:
        value, score = entry
    elif hasattr(entry, "page_content"):  # a LangChain Document (its score, if kept, in metadata)
        value, score = entry.page_content, (getattr(entry, "metadata", None) or {}).get("score")
    else:
        value, score = entry, None
    score = _score(score, value, label)
    if isinstance(value, str):
        return Returned(value, value, value, None, None, score)
    if hasattr(value, "node_id") and hasattr(value, "get_content"):  # a llama-index node
        text = value.get_content()
        doc_id = value.ref_doc_id or (value.metadata or {}).get("doc_id")
        return Returned(text, value.node_id, text, doc_id, value.start_char_idx, score)
    raise ModelCallFailed(f"{label}: returned {value!r:.60} which names no chunk")


def _score(score: Any, value: Any, label: str) -> float | None:
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, Real) or not math.isfinite(score):
        raise ModelCallFailed(
            f"{label}: returned score {score!r:.60} for {value!r:.60}, not a finite number"
        )
    return float(score)
