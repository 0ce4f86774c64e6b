"""Two runs compared as report blocks (report.render's), so `ragaudit compare` writes
Markdown and HTML the way `ragaudit report` does and the page draws the same table."""

from __future__ import annotations

from pathlib import Path

from ragaudit.comparison.pairing import MEASURES, CellComparison, ColumnPair, compare_cells
from ragaudit.comparison.provenance import Provenance, provenance
from ragaudit.report.render import Block, blocks_to_html, blocks_to_markdown
from ragaudit.results.format import NOT_RUN, fmt_cell, fmt_p, fmt_ratio
from ragaudit.results.view import measure_ran

UNPAIRED = "unpaired"
"""A flip count the comparison does not give: the files may not be paired (see the notes)."""

HEADERS = [
    "Probe",
    "Column (A → B)",
    "A",
    "B",
    "gained (A no → B yes)",
    "lost (A yes → B no)",
    "McNemar p (exact)",
]

READING = (
    "A and B are each cell as its own file records it, with its 95% Wilson interval. "
    "Gained and lost count the instances (paired by id) whose value flipped, over the "
    "instances with a value in both runs; McNemar's exact test asks whether that many "
    "gains against that many losses could be a fair coin's."
)


def ran_somewhere(comparison: CellComparison) -> bool:
    """Whether either side's cell ran the stage that fills the compared measure."""
    return any(
        cell is not None and measure_ran(cell, comparison.measure)
        for cell in (comparison.cell_a, comparison.cell_b)
    )


def flip_cells(comparison: CellComparison) -> list[str]:
    """The gained, lost and McNemar columns of one compared cell."""
    if comparison.cell_a is None or comparison.cell_b is None:
        return [NOT_RUN] * 3
    if not comparison.paired:
        return [UNPAIRED, UNPAIRED, UNPAIRED]
    n = comparison.paired_n
    return [
        fmt_ratio(len(comparison.gains), n),
        fmt_ratio(len(comparison.losses), n),
        fmt_p(comparison.mcnemar_p),
    ]


def table_row(comparison: CellComparison) -> list[str]:
    """One row of the comparison table."""
    measure = comparison.measure
    return [
        comparison.probe,
        comparison.pair.label,
        fmt_cell(comparison.cell_a, measure, interval=True),
        fmt_cell(comparison.cell_b, measure, interval=True),
        *flip_cells(comparison),
    ]


def _flip_items(comparisons: list[CellComparison]) -> list[str]:
    items = []
    for c in comparisons:
        if c.gains or c.losses:
            gained = ", ".join(f"`{i}`" for i in c.gains) or "none"
            lost = ", ".join(f"`{i}`" for i in c.losses) or "none"
            items.append(f"{c.probe} · {c.pair.label}: gained {gained}; lost {lost}")
    return items


def _run_line(side: str, path: str | Path, results: dict) -> str:
    corpus = results.get("corpus") or {}
    return (
        f"{side}: `{path}` (written {results.get('created_at') or 'at an unrecorded time'}, "
        f"n={corpus.get('n')} per probe, {len(results.get('instances') or [])} instance records)"
    )


def provenance_blocks(checked: Provenance) -> list[Block]:
    """The corpus and model section: what allows or forbids pairing."""
    blocks: list[Block] = [("h", 2, "Corpus and models"), ("p", checked.lead)]
    if checked.notes:
        blocks.append(("ul", list(checked.notes)))
    return blocks


def compare_blocks(
    a: dict, b: dict, paths: tuple[str | Path, str | Path], pairs: list[ColumnPair]
) -> list[Block]:
    """The whole comparison: the two runs, the corpus and model check, then one table per
    measure that ran (gold in context; answer correct where generation ran), each with
    the instances that flipped."""
    checked = provenance(a, b)
    blocks: list[Block] = [
        ("h", 1, "ragaudit compare: run A against run B"),
        ("ul", [_run_line("A", paths[0], a), _run_line("B", paths[1], b)]),
        *provenance_blocks(checked),
    ]
    for measure, words in MEASURES.items():
        compared = compare_cells(a, b, pairs, measure, paired=checked.paired)
        comparisons = [c for c in compared if ran_somewhere(c)]
        if not comparisons:
            continue
        rows = [table_row(c) for c in comparisons]
        blocks += [("h", 2, f"{words[0].upper()}{words[1:]}"), ("p", READING)]
        blocks.append(("table", HEADERS, rows))
        flips = _flip_items(comparisons)
        blocks += [("h", 3, "Flipped instances"), ("ul", flips) if flips else ("p", "None.")]
    return blocks


def render_markdown(blocks: list[Block]) -> str:
    """The comparison as Markdown."""
    return blocks_to_markdown(blocks)


def render_html(blocks: list[Block]) -> str:
    """The comparison as one self-contained HTML page."""
    return blocks_to_html(blocks, title="ragaudit compare")
