"""Character chunkers: fixed-size and recursive, with every chunk's exact span in its document.

Two splitters, both measured in characters:

* ``fixed``: cut every ``size`` characters; the next chunk starts ``size - overlap`` later.
  Nothing is stripped, so the chunks tile the document exactly. That sliding window already
  carries the previous chunk's last ``overlap`` characters, so it takes no overlap rule
  (``langchain`` is refused for it) and its name has no rule suffix.
* ``recursive``: LangChain ``RecursiveCharacterTextSplitter`` semantics with the
  separators ``"\\n\\n"``, ``"\\n"``, ``". "``, ``" "`` and then single characters. The
  text is split on the first separator it contains; pieces that fit are merged greedily up
  to ``size``; a piece longer than ``size`` flushes what was merged so far and is split
  again with the next separator. Chunks are stripped of surrounding whitespace, and empty
  ones dropped, as LangChain does by default.

Overlap on the recursive splitter follows one of two named rules (``Chunking.overlap_rule``):

* ``carry_tail`` (the default, the originating study's): cut with no overlap, then prefix
  each chunk after the first with the previous chunk's trailing text of at most ``overlap``
  characters, taken just after a separator where one falls in it; a previous chunk no
  longer than ``overlap`` (a 35-41-character header paragraph) travels whole. Chunks get
  longer, their count is the overlap-0 count. Semantics and the study's reasons:
  ``ragaudit.stack.carry_tail``.
* ``langchain`` (LangChain's, kept to compare): after a chunk is emitted, its trailing pieces
  (at most ``overlap`` characters of them, and only as many as still leave room for the next
  piece) start the next chunk. It works within one recursion level's merge only, so across a
  paragraph cut it carries nothing (issue 12: at n=5, 152 of 157 chunk texts were identical
  to overlap 0's).

With overlap 0 the two rules are the same cut, so the rule is recorded as ``carry_tail`` and
left out of the name: ``recursive-1000-0``, ``recursive-1000-200-carry_tail``,
``recursive-512-128-langchain``, ``fixed-1000-200``.

Where a separator goes: it stays at the *end* of the piece it terminates (``". "`` stays
with the sentence it ends, ``"\\n\\n"`` with the paragraph it closes). So every cut the
recursive splitter makes at the sentence level falls right after a ``". "``, and a sentence
that begins fresh (the text before it ends on ``". "``), contains no ``". "`` itself and is
no longer than ``size`` is never cut. The boundary probe is built on exactly that.

Spans are computed by construction (pieces carry their offsets), never with ``str.find``,
which picks the wrong place in text that repeats. ``document.text[start:end] == text``
holds for every chunk. A piece exactly ``size`` long counts as fitting (LangChain recurses
into it; the difference never matters for a separator-terminated corpus).

``CharacterNodeParser`` wraps the same splitters as a llama-index ``NodeParser``; it is
created on first access so that importing this module does not import llama-index.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ragaudit.errors import RagauditError
from ragaudit.stack.carry_tail import carry_tail_spans

if TYPE_CHECKING:
    from ragaudit.documents import Document

Splitter = Literal["fixed", "recursive"]
SPLITTERS: tuple[str, ...] = ("fixed", "recursive")
OverlapRule = Literal["carry_tail", "langchain"]
OVERLAP_RULES: tuple[str, ...] = ("carry_tail", "langchain")
SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ", "")
"""The recursive splitter's separators, coarsest first; "" means single characters."""


def chunking_name(
    splitter: str, size: int, overlap: int, overlap_rule: str | None = "carry_tail"
) -> str:
    """The one spelling of a chunking's id, as in chunk ids and the results file:
    ``<splitter>-<size>-<overlap>``, plus ``-<overlap_rule>`` when the rule changes the cut
    (recursive, overlap > 0): ``recursive-1000-0``, ``recursive-1000-200-carry_tail``.
    ``overlap_rule=None`` gives the name a results file written before overlap rules used
    (``Chunking.from_name`` reads both forms back)."""
    base = f"{splitter}-{size}-{overlap}"
    if overlap_rule is None or overlap == 0 or splitter == "fixed":
        return base
    return f"{base}-{overlap_rule}"


@dataclass(frozen=True)
class Chunking:
    """How a corpus is cut into chunks: splitter, size and overlap (in characters), and the
    rule by which the overlap is carried."""

    splitter: Splitter = "recursive"
    """"fixed" (cut at character offsets) or "recursive" (cut at separators)."""
    size: int = 1000
    """Largest chunk, in characters (before any carried overlap, under ``carry_tail``)."""
    overlap: int = 0
    """Characters of the previous chunk repeated at the start of the next, at most."""
    overlap_rule: OverlapRule = "carry_tail"
    """"carry_tail" (the originating study's: the previous chunk's tail prefixed to the
    overlap-0 chunk) or "langchain" (LangChain's merge re-using trailing pieces); see the
    module docstring."""

    def __post_init__(self) -> None:
        if self.splitter not in SPLITTERS:
            raise RagauditError(
                f"chunking splitter {self.splitter!r} is not one of {', '.join(SPLITTERS)}"
            )
        if not isinstance(self.size, int) or self.size < 1:
            raise RagauditError(f"chunking size must be an integer >= 1, got {self.size!r}")
        if not isinstance(self.overlap, int) or not 0 <= self.overlap < self.size:
            raise RagauditError(
                f"chunking overlap must be an integer with 0 <= overlap < size ({self.size}), "
                f"got {self.overlap!r}"
            )
        check_overlap_rule(self.splitter, self.overlap_rule)
        if self.overlap == 0:
            # Both rules make the same cut at overlap 0: one identity, one name.
            object.__setattr__(self, "overlap_rule", "carry_tail")

    @property
    def name(self) -> str:
        """The chunking's id, e.g. ``fixed-1000-0`` or ``recursive-1000-200-carry_tail``."""
        return chunking_name(self.splitter, self.size, self.overlap, self.overlap_rule)

    @classmethod
    def from_name(cls, name: str) -> Chunking:
        """Parse a name such as ``recursive-512-128-langchain`` or ``recursive-1000-0`` back
        into a Chunking. A 3-part name with a recursive overlap (``recursive-1000-200``) is
        how results files before overlap rules spelt LangChain's rule, so it reads as that."""
        parts = name.split("-")
        if len(parts) not in (3, 4) or not parts[1].isdigit() or not parts[2].isdigit():
            raise RagauditError(
                f"chunking name {name!r} is not <splitter>-<size>-<overlap>[-<overlap rule>], "
                "e.g. recursive-1000-0 or recursive-1000-200-carry_tail"
            )
        legacy = "langchain" if parts[0] == "recursive" else "carry_tail"
        rule = parts[3] if len(parts) == 4 else legacy
        return cls(parts[0], int(parts[1]), int(parts[2]), rule)  # type: ignore[arg-type]


def check_overlap_rule(splitter: str, overlap_rule: str) -> None:
    """Refuse an unknown overlap rule, and ``langchain`` for the fixed splitter (whose
    sliding window is already a character-level tail carry)."""
    if overlap_rule not in OVERLAP_RULES:
        raise RagauditError(
            f"chunking overlap_rule {overlap_rule!r} is not one of {', '.join(OVERLAP_RULES)}"
        )
    if splitter == "fixed" and overlap_rule != "carry_tail":
        raise RagauditError(
            "the 'langchain' rule applies to the recursive splitter only: the fixed "
            "splitter's sliding window already carries the previous chunk's tail"
        )


@dataclass(frozen=True)
class Chunk:
    """One chunk of one document: ``document.text[start:end] == text``."""

    chunk_id: str
    """``<chunking name>/<doc_id>#<index>``, unique across chunkings."""
    doc_id: str
    index: int
    """Position of the chunk within its document, from 0."""
    start: int
    end: int
    text: str
    span_exact: bool = True
    """False when a user's splitter rewrote the chunk so it could not be located exactly:
    then ``start``/``end`` are the best alignment and ``text`` is what the splitter returned
    (ragaudit.targets.splitter). Chunks ragaudit cuts itself are always exact."""


def chunk_spans(text: str, chunking: Chunking) -> list[tuple[int, int]]:
    """The (start, end) character spans of the chunks of ``text``, in order."""
    if chunking.splitter == "fixed":
        return _fixed_spans(len(text), chunking.size, chunking.overlap)
    merged = chunking.overlap if chunking.overlap_rule == "langchain" else 0
    spans = _recursive_spans(text, 0, len(text), SEPARATORS, chunking.size, merged)
    cut = [stripped for span in spans if (stripped := _strip(text, *span)) is not None]
    if chunking.overlap_rule == "langchain":
        return cut
    return carry_tail_spans(text, cut, chunking.overlap, SEPARATORS)


def chunk_document(doc: Document, chunking: Chunking) -> list[Chunk]:
    """Cut one document into chunks whose ids, spans and texts agree with each other."""
    return [
        Chunk(
            chunk_id=f"{chunking.name}/{doc.doc_id}#{index}",
            doc_id=doc.doc_id,
            index=index,
            start=start,
            end=end,
            text=doc.text[start:end],
        )
        for index, (start, end) in enumerate(chunk_spans(doc.text, chunking))
    ]


def chunk_corpus(documents: Iterable[Document], chunking: Chunking) -> list[Chunk]:
    """Chunk every document, keeping document order and chunk order within each."""
    return [chunk for doc in documents for chunk in chunk_document(doc, chunking)]


def chunk_offsets(chunkings: dict[str, list[Chunk]]) -> dict[str, dict[str, list[list[int]]]]:
    """Every chunk's [start, end] per chunking and document, in chunk order (the list
    index is the chunk's index): the results file's `chunk_offsets`, from which the
    inspector draws boundaries and the oracle finds its chunks without re-chunking."""
    offsets: dict[str, dict[str, list[list[int]]]] = {}
    for name, chunks in chunkings.items():
        per_doc = offsets.setdefault(name, {})
        for chunk in chunks:
            per_doc.setdefault(chunk.doc_id, []).append([chunk.start, chunk.end])
    return offsets


def _fixed_spans(length: int, size: int, overlap: int) -> list[tuple[int, int]]:
    step = size - overlap
    spans = []
    start = 0
    while start < length:
        spans.append((start, min(start + size, length)))
        if start + size >= length:
            break
        start += step
    return spans


def _strip(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def _pieces(text: str, start: int, end: int, separator: str) -> list[tuple[int, int]]:
    """Split text[start:end] on separator, the separator kept at the end of each piece."""
    if separator == "":
        return [(i, i + 1) for i in range(start, end)]
    pieces = []
    piece_start = start
    while True:
        found = text.find(separator, piece_start, end)
        if found < 0:
            break
        pieces.append((piece_start, found + len(separator)))
        piece_start = found + len(separator)
    if piece_start < end:
        pieces.append((piece_start, end))
    return pieces


def _recursive_spans(
    text: str, start: int, end: int, separators: Sequence[str], size: int, overlap: int
) -> list[tuple[int, int]]:
    # The first separator present in this stretch decides the split, as in LangChain.
    level = next(
        i for i, sep in enumerate(separators) if sep == "" or text.find(sep, start, end) >= 0
    )
    separator, finer = separators[level], separators[level + 1 :]
    spans: list[tuple[int, int]] = []
    fitting: list[tuple[int, int]] = []
    for piece in _pieces(text, start, end, separator):
        if piece[1] - piece[0] <= size:
            fitting.append(piece)
            continue
        # A piece too long to merge: flush what fits, then split the piece more finely.
        spans.extend(_merge(fitting, size, overlap))
        fitting = []
        if finer:
            spans.extend(_recursive_spans(text, piece[0], piece[1], finer, size, overlap))
        else:
            spans.append(piece)
    spans.extend(_merge(fitting, size, overlap))
    return spans


def _merge(pieces: list[tuple[int, int]], size: int, overlap: int) -> list[tuple[int, int]]:
    """Greedy merge of contiguous pieces into spans of at most ``size`` characters."""
    spans: list[tuple[int, int]] = []
    current: list[tuple[int, int]] = []
    total = 0
    for piece in pieces:
        length = piece[1] - piece[0]
        if current and total + length > size:
            spans.append((current[0][0], current[-1][1]))
            # Keep trailing pieces as overlap, as long as they leave room for this piece.
            while current and (total > overlap or total + length > size):
                total -= current[0][1] - current[0][0]
                current.pop(0)
        current.append(piece)
        total += length
    if current:
        spans.append((current[0][0], current[-1][1]))
    return spans


def llama_documents(documents: Iterable[Document]) -> list[Any]:
    """Convert ragaudit Documents to llama-index Documents (id_ = doc_id, text unchanged)."""
    from llama_index.core.schema import Document as LlamaDocument

    return [
        LlamaDocument(text=doc.text, id_=doc.doc_id, metadata={"doc_id": doc.doc_id})
        for doc in documents
    ]


def _build_node_parser_class() -> type:
    from llama_index.core.bridge.pydantic import Field
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.schema import NodeRelationship, TextNode

    class CharacterNodeParser(NodeParser):
        """A llama-index NodeParser over ragaudit's character chunkers.

        Each TextNode has ``id_ == chunk_id``, metadata ``{doc_id, start, end, chunking}``
        (hidden from the embedder and the LLM, so identifiers never leak into similarity)
        and ``start_char_idx``/``end_char_idx`` set to the chunk's span.
        """

        chunking: Chunking = Field(default_factory=Chunking, description="How to cut.")
        include_metadata: bool = Field(default=False)

        @classmethod
        def class_name(cls) -> str:
            """The name llama-index serialises this parser under."""
            return "CharacterNodeParser"

        def _parse_nodes(self, nodes, show_progress: bool = False, **kwargs: Any) -> list:
            parsed = []
            for node in nodes:
                text = node.get_content()
                doc_id = node.metadata.get("doc_id") or node.node_id
                for index, (start, end) in enumerate(chunk_spans(text, self.chunking)):
                    keys = ["doc_id", "start", "end", "chunking"]
                    parsed.append(
                        TextNode(
                            id_=f"{self.chunking.name}/{doc_id}#{index}",
                            text=text[start:end],
                            metadata={
                                "doc_id": doc_id,
                                "start": start,
                                "end": end,
                                "chunking": self.chunking.name,
                            },
                            excluded_embed_metadata_keys=keys,
                            excluded_llm_metadata_keys=keys,
                            start_char_idx=start,
                            end_char_idx=end,
                            relationships={NodeRelationship.SOURCE: node.as_related_node_info()},
                        )
                    )
            return parsed

        def _postprocess_parsed_nodes(self, nodes, parent_doc_map) -> list:
            # The base class re-derives spans with str.find; ours are exact, so restore them.
            nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
            for node in nodes:
                node.start_char_idx = node.metadata["start"]
                node.end_char_idx = node.metadata["end"]
            return nodes

    return CharacterNodeParser


_LAZY: dict[str, type] = {}


def __getattr__(name: str) -> Any:
    # PEP 562: build the llama-index subclass only when someone asks for it.
    if name == "CharacterNodeParser":
        if name not in _LAZY:
            _LAZY[name] = _build_node_parser_class()
        return _LAZY[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
