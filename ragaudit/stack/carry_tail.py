"""The ``carry_tail`` overlap rule: the originating study's overlap, which carries the
previous chunk's tail forward into the next chunk.

The document is first cut with no overlap at all (the recursive cut at overlap 0, each
chunk stripped), so the chunk count is the overlap-0 count. Then every chunk after the
first in a document is extended backwards to start inside the chunk before it: the carried
text is the previous chunk's trailing text of at most ``overlap`` characters. When the
previous (overlap-0) chunk is no longer than ``overlap`` it travels whole; otherwise the
window (its last ``overlap`` characters) starts just after the first occurrence of the
coarsest separator found in it (``"\\n\\n"``, then ``"\\n"``, ``". "``, ``" "``), so the
carried text begins cleanly; a window holding no separator is carried from its first
non-space character. The chunk's span becomes (carry start, its own end): contiguous in the
document, so ``text[start:end] == chunk`` still holds and the chunk includes the whitespace
between the carried tail and its own text.

Why this rule and not LangChain's: the study's overlap makes a chunk longer rather than
re-merging pieces ("there is one chunk either way and overlap makes it longer"; "an overlap
carries that chunk's tail forward and nothing else"), and its header finding depends on it:
"the head paragraph fits in a chunk of its own, 35 to 41 characters, narrower than the
overlap, so the whole header travels", while a long chunk before the answer carries only
filler. LangChain's merge re-uses trailing pieces at one recursion level only, so across a
paragraph cut it usually carries nothing (the matrix's B read exactly like A_prime).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise


def carry_tail_spans(
    text: str, spans: Sequence[tuple[int, int]], overlap: int, separators: Sequence[str]
) -> list[tuple[int, int]]:
    """The overlap-0 ``spans`` of one document, each after the first extended backwards by
    the previous span's tail of at most ``overlap`` characters, cut at the coarsest of
    ``separators`` inside that tail."""
    if overlap <= 0:
        return list(spans)  # nothing to carry: the overlap-0 cut itself
    carried = list(spans[:1])
    for previous, (_, end) in pairwise(spans):
        carried.append((carry_start(text, *previous, overlap, separators), end))
    return carried


def carry_start(text: str, start: int, end: int, overlap: int, separators: Sequence[str]) -> int:
    """Where the tail of the chunk ``text[start:end]`` carried forward begins: ``start``
    when the chunk fits in ``overlap``; else just after the coarsest separator in its last
    ``overlap`` characters; else the first non-space character of those characters."""
    window = max(start, end - overlap)
    if window == start:
        return start  # a chunk no longer than the overlap travels whole
    for separator in separators:
        found = text.find(separator, window, end) if separator else -1
        if found >= 0:
            window = found + len(separator)
            break
    while window < end and text[window].isspace():
        window += 1
    return window
