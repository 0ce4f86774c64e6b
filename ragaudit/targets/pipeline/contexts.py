"""Where each context a pipeline returned sits in the corpus, so its record gets the same
diagnostics as a stack's: gold in context, span preserved, rank.

A context is looked for, in this order:
- verbatim in the document the pipeline names (its node's ref_doc_id, a metadata doc_id),
  placed by the stack's alignment (targets.locate.locate_chunks, the pipeline's own
  offset used where it verifies): exact;
- verbatim in any document: exact when one place in one document holds it, else the first
  place, not exact (it could not be told apart);
- once normalised as real pipelines normalise (HTML tags and markdown marks stripped, case,
  punctuation and whitespace ignored, as llama-index node text and HTML readers do): the
  span it maps back to, not exact (approximate);
- nowhere: the pipeline rewrote it (a summary, a translation, a query-rewritten note). It
  matches no document, is counted and shown, and holds no gold.

A located context becomes a chunk ``<chunking>/<doc_id>#p<n>`` whose text is the context's
text (what reached the model, which the citation check reads) and whose span is where it
was found; the same passage returned for two questions is one chunk.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from ragaudit.stack.chunking import Chunk
from ragaudit.targets.locate import locate_chunks
from ragaudit.targets.pipeline.answer import Context

_TAG = re.compile(r"<[^<>\n]{0,200}>")
_CLOSING = set(".,;:!?)]\"'\u2019\u201d")
_BETWEEN = "\x00"
"""What separates the documents in the locator's joined text (no document holds it)."""
MIN_NORMALISED = 12
"""Word characters a context must keep once normalised to be matched that way: a shorter
one ("Yes.") would match anywhere."""


class NormalisedText:
    """A text keeping only its word characters, lower-cased, with HTML tags dropped, and for
    each kept character its offset in the original text."""

    def __init__(self, text: str) -> None:
        dropped = bytearray(len(text))
        for tag in _TAG.finditer(text):
            dropped[tag.start() : tag.end()] = b"\x01" * (tag.end() - tag.start())
        chars, origin = [], []
        for index, char in enumerate(text):
            if dropped[index] or not (char.isalnum()):
                continue
            for lowered in char.lower():
                chars.append(lowered)
                origin.append(index)
        self.text, self.origin = "".join(chars), origin

    def span_of(self, needle: str, original: str) -> tuple[int, int] | None:
        """The original span of the first place `needle` (normalised) occurs, with the
        closing punctuation after its last word (a sentence's full stop)."""
        found = self.text.find(needle) if needle else -1
        if found < 0:
            return None
        end = self.origin[found + len(needle) - 1] + 1
        while end < len(original) and original[end] in _CLOSING:
            end += 1
        return self.origin[found], end


def normalised(text: str) -> str:
    """`text` as NormalisedText keeps it."""
    return NormalisedText(text).text


class ContextLocator:
    """Locates contexts in `documents`; the chunks it made, in order, are `chunks`."""

    def __init__(self, documents: Sequence[Any], chunking_name: str) -> None:
        self.documents = {doc.doc_id: doc for doc in documents}
        self.chunking_name = chunking_name
        self.chunks: list[Chunk] = []
        self._by_place: dict[tuple[str, int, int, str], Chunk] = {}
        self._normal: dict[str, NormalisedText] | None = None  # built when first needed
        # Every document in one string, each followed by a NUL: one search of it finds the
        # documents holding a text ten times faster than asking each document in turn.
        self._joined = "".join(f"{doc.text}{_BETWEEN}" for doc in self.documents.values())
        self._starts: list[int] = []
        offset = 0
        for doc in self.documents.values():
            self._starts.append(offset)
            offset += len(doc.text) + len(_BETWEEN)
        self._order = list(self.documents.values())

    def locate_all(self, contexts: Sequence[Context]) -> list[Chunk | None]:
        """Each of one answer's contexts located; two equal texts from no named document
        are two places (the first not already taken), as a retriever returning a passage
        that repeats across documents returned two of its copies."""
        taken: set[str] = set()
        placed = []
        for context in contexts:
            chunk = self.locate(context, taken)
            if chunk is not None:
                taken.add(chunk.chunk_id)
            placed.append(chunk)
        return placed

    def locate(self, context: Context, taken: set[str] | frozenset = frozenset()) -> Chunk | None:
        """The chunk `context` is, or None when it matches no document."""
        text = context.text
        if not text.strip():
            return None
        named = self.documents.get(context.doc_id) if context.doc_id else None
        if named is not None and text in named.text:
            placed = locate_chunks(named.text, [text], [context.start])[0]
            once = named.text.count(text) == 1 or placed.start == context.start
            return self._chunk(named.doc_id, placed.start, placed.end, text, placed.exact and once)
        holding = self._holding(text)
        if holding:
            exact = len(holding) == 1 and holding[0].text.count(text) == 1
            first = None
            for doc in holding:
                start = doc.text.find(text)
                while start >= 0:
                    known = self._by_place.get((doc.doc_id, start, start + len(text), text))
                    if known is None or known.chunk_id not in taken:
                        return self._chunk(doc.doc_id, start, start + len(text), text, exact)
                    first = first or known
                    start = doc.text.find(text, start + 1)
            return first
        return self._normalised(text, named)

    def _holding(self, text: str) -> list[Any]:
        """The documents whose text holds `text`, in the documents' order."""
        if _BETWEEN in text:  # could span two documents in the joined text: ask each
            return [doc for doc in self.documents.values() if text in doc.text]
        holding: list[Any] = []
        found = self._joined.find(text)
        while found >= 0:
            index = bisect_right(self._starts, found) - 1
            holding.append(self._order[index])
            next_doc = self._starts[index + 1] if index + 1 < len(self._starts) else None
            if next_doc is None:
                break
            found = self._joined.find(text, next_doc)
        return holding

    def _normalised(self, text: str, named: Any) -> Chunk | None:
        needle = normalised(text)
        if len(needle) < MIN_NORMALISED:
            return None
        if self._normal is None:
            self._normal = {d: NormalisedText(doc.text) for d, doc in self.documents.items()}
        order = [named.doc_id] if named is not None else []
        for doc_id in [*order, *self.documents]:
            span = self._normal[doc_id].span_of(needle, self.documents[doc_id].text)
            if span is not None:
                return self._chunk(doc_id, span[0], span[1], text, False)
        return None

    def passage(self, doc_id: str, start: int, end: int, text: str) -> Chunk:
        """The chunk of an exact passage of a document (an oracle context's paragraph)."""
        return self._chunk(doc_id, start, end, text, True)

    def _chunk(self, doc_id: str, start: int, end: int, text: str, exact: bool) -> Chunk:
        key = (doc_id, start, end, text)
        if key not in self._by_place:
            n = sum(1 for chunk in self.chunks if chunk.doc_id == doc_id)
            chunk = Chunk(f"{self.chunking_name}/{doc_id}#p{n}", doc_id, n, start, end, text, exact)
            self._by_place[key] = chunk
            self.chunks.append(chunk)
        return self._by_place[key]


def unmatched_line(unmatched: int, total: int) -> str:
    """The line a run shows for contexts that match no document (its count and why)."""
    return f"{unmatched} of {total} contexts match no document (rewritten by the pipeline)"
