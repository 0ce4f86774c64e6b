"""Whether a stretch of a chunk sits inside the embedder's input window: what `boundary`
asks before crediting a splitter as robust (a sentence kept whole but past the window is
never embedded, a different fault that `dilute` plants). The window and the counting are
the embedder's own, as the window survey reads them (ragaudit.stack.windows)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

TokenCounter = Callable[[list[str]], Sequence[int] | None]
"""The embedder's token counts of texts, special tokens included (None: it cannot count)."""


@dataclass(frozen=True)
class InWindow:
    """`in_window(text, offset)`: does `text[:offset]` fit in the embedder's window (its
    tokens, special tokens included, at most `tokens`)? A text past the window is read as
    not fitting even when the embedder averages further windows in: its first window, the
    one a truncating embedder keeps, does not hold it."""

    count_tokens: TokenCounter
    tokens: int
    """The window, in tokens."""

    def __call__(self, text: str, offset: int) -> bool | None:
        """None when the embedder could not count this text."""
        counts = self.count_tokens([text[:offset]])
        return None if counts is None else counts[0] <= self.tokens


def embedder_in_window(embedder: Any) -> InWindow | None:
    """The window test of an embedder (`input_window()` and `count_tokens`, as the window
    survey reads them); None when its window is unknown or it cannot count tokens."""
    tokens = embedder.input_window().tokens
    counter = getattr(embedder, "count_tokens", None)
    if tokens is None or counter is None or counter([""]) is None:
        return None
    return InWindow(counter, tokens)
