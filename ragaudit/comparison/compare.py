"""Two results files compared as a library function (`ragaudit compare A.json B.json`):
both read and their instance keys checked, their columns paired, then every paired cell
as report blocks (`document`), rendered as Markdown or HTML on request."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ragaudit.comparison.document import compare_blocks, render_html, render_markdown
from ragaudit.comparison.pairing import (
    ColumnPair,
    check_instance_keys,
    default_pairs,
    parse_pair,
)
from ragaudit.errors import RagauditError
from ragaudit.report.render import Block
from ragaudit.results.io import load_results


@dataclass(frozen=True)
class PairedRuns:
    """Two runs read and checked, with the columns to compare."""

    a: Path
    """The run before (A)."""
    b: Path
    """The run after (B)."""
    document_a: dict
    document_b: dict
    pairs: tuple[ColumnPair, ...]


@dataclass(frozen=True)
class Comparison:
    """Two runs' cells side by side, as report blocks."""

    runs: PairedRuns
    blocks: tuple[Block, ...]

    def markdown(self) -> str:
        """The comparison as Markdown (what `ragaudit compare` prints and writes)."""
        return render_markdown(list(self.blocks))

    def html(self) -> str:
        """The comparison as one self-contained HTML page."""
        return render_html(list(self.blocks))


def read_runs(a: Path, b: Path, pairs: Sequence[str] = ()) -> PairedRuns:
    """Read both files, refuse an instance recorded twice under one column, and pair the
    columns: each `A_CONFIG[@EMBEDDER]=B_CONFIG[@EMBEDDER]` of `pairs`, or by default every
    (config, embedder) column both files hold, each with itself. One line when none pairs."""
    document_a, document_b = load_results(a), load_results(b)
    check_instance_keys(a, document_a)
    check_instance_keys(b, document_b)
    paired = [parse_pair(text, document_a, document_b) for text in pairs]
    paired = paired or default_pairs(document_a, document_b)
    if not paired:
        raise RagauditError(
            f"{a} and {b} hold no (config, embedder) column in common: name the "
            "columns to compare with --pair A_CONFIG=B_CONFIG"
        )
    return PairedRuns(a, b, document_a, document_b, tuple(paired))


def compare_runs(runs: PairedRuns) -> Comparison:
    """Every paired cell of the two runs: both rates, the paired flips each way and exact
    McNemar, after the corpus and model check."""
    blocks = compare_blocks(runs.document_a, runs.document_b, (runs.a, runs.b), list(runs.pairs))
    return Comparison(runs, tuple(blocks))


def compare(a: Path, b: Path, pairs: Sequence[str] = ()) -> Comparison:
    """Compare the run in `b` with the run in `a` (read_runs, then compare_runs); nothing
    is written."""
    return compare_runs(read_runs(a, b, pairs))
