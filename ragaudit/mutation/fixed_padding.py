"""Padding of fixed sizes, for a column whose splitter ragaudit cannot run (a `pipeline:`:
its chunks are its own). With no splitter to search, `boundary` and `table_split` cannot
find the least padding that cuts; they plant one mutant per size instead, and the mutant is
scored on what reached the model and on the answer, not on a cut."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import cycle

PIPELINE_PADDINGS = (1000, 3000)
"""Characters of padding, one mutant (variant) each: a pipeline's chunk size is unknown, so
one size past a small chunk and one past a large one."""


def fixed_padding(
    supply: Sequence[str], size: int, joiner: str = " ", ending: str = " "
) -> tuple[int, str] | None:
    """(sentences used, padding): the fewest of `supply`'s sentences, from its first (the
    supply repeated when it holds fewer), joined by `joiner` and followed by `ending`,
    that reach `size` characters; so the padding is short of `size + ` one sentence.
    None when the supply is empty."""
    if not any(supply):
        return None
    chosen: list[str] = []
    length = len(ending) - len(joiner)
    for sentence in cycle(supply):
        chosen.append(sentence)
        length += len(sentence) + len(joiner)
        if length >= size:
            break
    return len(chosen), joiner.join(chosen) + ending
