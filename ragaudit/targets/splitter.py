"""The user's splitter, run as its library runs it, every chunk given its span in its document.

Two kinds are accepted, told apart by what they can do:

* a llama-index node parser (``get_nodes_from_documents``): each document goes in as a
  llama-index ``Document(text=..., id_=doc_id)`` with no metadata, so a metadata-aware
  splitter (SentenceSplitter) budgets its chunk size exactly as it would for bare text;
  the node's ``start_char_idx`` is the library's offset;
* a LangChain text splitter (``split_text``): ``create_documents`` where it has one (its
  ``start_index`` metadata, with ``add_start_index=True``, is the library's offset), else
  ``split_text`` (``MarkdownHeaderTextSplitter`` returns Documents from it: their text).

Library offsets are hints: both libraries find them with ``str.find`` from a cursor. Spans
come from ``ragaudit.targets.locate``; a chunk whose text the splitter rewrote keeps that
text, gets its best alignment and ``span_exact=False``, and is counted in
``SplitOutcome.approximate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ragaudit.documents import Document
from ragaudit.errors import RagauditError
from ragaudit.stack.chunking import Chunk
from ragaudit.targets.bounded import (
    CallTimedOut,
    TooManyResults,
    UserCodeLimits,
    call_bounded,
    take_bounded,
)
from ragaudit.targets.components import exception_line
from ragaudit.targets.locate import locate_chunks

SplitterKind = Literal["llama_index", "langchain"]


@dataclass(frozen=True)
class SplitOutcome:
    """What a user's splitter made of a corpus."""

    chunks: list[Chunk]
    """Every chunk, in document order and chunk order within each document."""
    approximate: int
    """How many of them could not be located exactly (``span_exact=False``)."""


class UserSplitter:
    """A llama-index node parser or LangChain text splitter, named in errors as ``label``."""

    def __init__(self, component: Any, label: str, limits: UserCodeLimits | None = None) -> None:
        self.component = component
        self.label = label
        self.limits = limits or UserCodeLimits()
        self.kind: SplitterKind = _kind(component, label)

    def describe(self) -> str:
        """The component's class path, e.g. ``langchain_text_splitters.character.
        RecursiveCharacterTextSplitter``."""
        cls = type(self.component)
        return f"{cls.__module__}.{cls.__qualname__}"

    def split(self, documents: Sequence[Document], chunking_name: str) -> SplitOutcome:
        """Cut every document; chunk ids are ``<chunking_name>/<doc_id>#<index>``.

        Refused in one line naming the splitter and the document: a splitter that raises,
        takes longer than limits.split_seconds, returns more than
        limits.max_chunks_per_document chunks or more than limits.max_chunk_text_ratio
        characters of text per character of the document, an empty (whitespace-only)
        chunk, no chunk from a non-empty document."""
        chunks: list[Chunk] = []
        approximate = 0
        for doc in documents:
            texts, offsets = self._run(doc)
            self._check(doc, texts)
            for index, (text, placement) in enumerate(
                zip(texts, locate_chunks(doc.text, texts, offsets), strict=True)
            ):
                approximate += not placement.exact
                chunks.append(
                    Chunk(
                        chunk_id=f"{chunking_name}/{doc.doc_id}#{index}",
                        doc_id=doc.doc_id,
                        index=index,
                        start=placement.start,
                        end=placement.end,
                        text=text,
                        span_exact=placement.exact,
                    )
                )
        return SplitOutcome(chunks=chunks, approximate=approximate)

    def _run(self, doc: Document) -> tuple[list[str], list[int | None]]:
        run = _run_llama_index if self.kind == "llama_index" else _run_langchain
        limits = self.limits
        try:
            return call_bounded(
                lambda: run(self.component, doc, limits.max_chunks_per_document),
                limits.split_seconds,
            )
        except CallTimedOut as error:
            problem = f"gave {error} (limits.split_seconds)"
        except TooManyResults:
            problem = (
                f"returned more than {limits.max_chunks_per_document:,} chunks "
                "(limits.max_chunks_per_document)"
            )
        except (Exception, SystemExit) as error:
            problem = f"raised {type(error).__name__}: {exception_line(error)}"
        raise RagauditError(f"{self.label}: {problem} on document {doc.doc_id!r}")

    def _check(self, doc: Document, texts: list[Any]) -> None:
        characters = sum(len(text) for text in texts if isinstance(text, str))
        allowed = self.limits.max_chunk_text_ratio * max(len(doc.text), 100)
        if characters > allowed:
            raise RagauditError(
                f"{self.label}: returned {characters:,} characters of chunks for the "
                f"{len(doc.text):,} of document {doc.doc_id!r}, more than "
                f"{self.limits.max_chunk_text_ratio:g} times its text "
                "(limits.max_chunk_text_ratio)"
            )
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise RagauditError(
                    f"{self.label}: returned a {type(text).__name__} instead of text as chunk "
                    f"{index} of document {doc.doc_id!r}"
                )
            if not text.strip():
                raise RagauditError(
                    f"{self.label}: returned an empty chunk ({text!r}) as chunk {index} "
                    f"of document {doc.doc_id!r}"
                )
        if not texts and doc.text.strip():
            raise RagauditError(
                f"{self.label}: returned no chunk for document {doc.doc_id!r} "
                f"({len(doc.text)} characters of text)"
            )


def _kind(component: Any, label: str) -> SplitterKind:
    # llama-index's text splitters have split_text too: the node-parser interface decides.
    if callable(getattr(component, "get_nodes_from_documents", None)):
        return "llama_index"
    if callable(getattr(component, "split_text", None)):
        return "langchain"
    kind = type(component)
    raise RagauditError(
        f"{label}: {kind.__module__}.{kind.__qualname__} is neither a llama-index node parser "
        "nor a LangChain text splitter"
    )


def _run_llama_index(parser: Any, doc: Document, limit: int) -> tuple[list[str], list[int | None]]:
    from llama_index.core.schema import Document as LlamaDocument
    from llama_index.core.schema import MetadataMode

    given = parser.get_nodes_from_documents([LlamaDocument(text=doc.text, id_=doc.doc_id)])
    nodes = take_bounded(given, limit)
    texts = [node.get_content(metadata_mode=MetadataMode.NONE) for node in nodes]
    return texts, [getattr(node, "start_char_idx", None) for node in nodes]


def _run_langchain(splitter: Any, doc: Document, limit: int) -> tuple[list[str], list[int | None]]:
    if callable(getattr(splitter, "create_documents", None)):
        pieces = splitter.create_documents([doc.text])
    else:
        pieces = splitter.split_text(doc.text)
    if isinstance(pieces, str | bytes) or pieces is None:  # iterated, a str is its characters
        raise TypeError(f"returned {type(pieces).__name__}, not a list of chunks")
    pieces = take_bounded(pieces, limit)
    texts = [getattr(piece, "page_content", piece) for piece in pieces]
    # LangChain writes start_index -1 where its own find failed: no offset.
    offsets = [_start_index(piece) for piece in pieces]
    return texts, offsets


def _start_index(piece: Any) -> int | None:
    start = getattr(piece, "metadata", {}).get("start_index")
    return start if isinstance(start, int) and start >= 0 else None
