"""The report's pictures, one section function each, placed after the tables they draw:
the retrieval heatmap, the answers heatmap, the severity grid and the attribution bars,
one per embedder that has a probe x config table.

Each is a ("figure", caption, svg) block: the HTML report embeds the SVG inline (report.svg
draws it), the Markdown report and the printed tables leave it out (their tables carry the
same figures).
"""

from __future__ import annotations

from ragaudit.report import svg
from ragaudit.report.render import Block
from ragaudit.results import view


def _mark(results: dict, embedder: str) -> str:
    return " (uncertified)" if view.uncertified(results, embedder) else ""


def _generated(results: dict, embedder: str) -> bool:
    shown = {(c.config, c.embedder) for c in view.matrix_columns(results, embedder)}
    return any(
        c.get("generated") and (c["config"], c["embedder"]) in shown
        for c in results.get("cells") or []
    )


def retrieval_pictures(results: dict) -> list[Block]:
    """Gold in context as a heatmap per embedder, every probe (the controls too)."""
    blocks: list[Block] = []
    for embedder in view.table_embedders(results):
        drawn = svg.measure_grid(results, embedder, "gold_in_context")
        if drawn:
            caption = (
                f"Gold in context, {embedder}{_mark(results, embedder)}: green where the gold "
                "reached the model, red where it did not; grey cells did not run or have no "
                "gold to retrieve."
            )
            blocks.append(("figure", caption, drawn))
    return blocks


def answers_pictures(results: dict) -> list[Block]:
    """Correct answers as a heatmap per embedder whose columns generated."""
    blocks: list[Block] = []
    for embedder in view.table_embedders(results):
        drawn = _generated(results, embedder) and svg.measure_grid(results, embedder, "correct")
        if drawn:
            caption = (
                f"Correct answers, {embedder}{_mark(results, embedder)}: grey cells were not "
                "generated."
            )
            blocks.append(("figure", caption, drawn))
    return blocks


def severity_pictures(results: dict) -> list[Block]:
    """The severity class and branch per cell, per embedder."""
    blocks: list[Block] = []
    for embedder in view.table_embedders(results):
        drawn = svg.severity_grid(results, embedder)
        if drawn:
            caption = (
                f"Severity, {embedder}{_mark(results, embedder)}: each cell's class and the "
                "branch of the rules above that assigned it."
            )
            blocks.append(("figure", caption, drawn))
    return blocks


def attribution_pictures(results: dict) -> list[Block]:
    """The attribution of each generated cell as a stacked bar, per embedder."""
    blocks: list[Block] = []
    for embedder in view.table_embedders(results):
        drawn = svg.attribution_bars(results, embedder)
        if drawn:
            caption = (
                f"Failure attribution, {embedder}{_mark(results, embedder)}: each bar is one "
                "generated cell's instances, by where each answer failed or that it was right."
            )
            blocks.append(("figure", caption, drawn))
    return blocks
