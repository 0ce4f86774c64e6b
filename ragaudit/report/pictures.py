"""The report's pictures, one section function each, placed after the tables they draw:
the retrieval heatmap, the answers heatmap, the severity grid and the attribution bars,
one per embedder that has a probe x config table.

Each is a ("figure", caption, svg) block: the HTML report embeds the SVG inline (report.svg
draws it), the Markdown report and the printed tables leave it out (their tables carry the
same figures).
"""

from __future__ import annotations

from collections.abc import Callable

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


def _per_embedder(results: dict, draw: Callable[[str], str | None], caption: str) -> list[Block]:
    """One figure per embedder with a table whose `draw(embedder)` draws something;
    `caption` names the picture ("{embedder}" is filled in, with its uncertified mark)."""
    blocks: list[Block] = []
    for embedder in view.table_embedders(results):
        drawn = draw(embedder)
        if drawn:
            named = caption.format(embedder=f"{embedder}{_mark(results, embedder)}")
            blocks.append(("figure", named, drawn))
    return blocks


def retrieval_pictures(results: dict) -> list[Block]:
    """Gold in context as a heatmap per embedder, every probe (the controls too)."""
    return _per_embedder(
        results,
        lambda embedder: svg.measure_grid(results, embedder, "gold_in_context"),
        "Gold in context, {embedder}: green where the gold reached the model, red where it "
        "did not; grey cells did not run or have no gold to retrieve.",
    )


def answers_pictures(results: dict) -> list[Block]:
    """Correct answers as a heatmap per embedder whose columns generated."""
    return _per_embedder(
        results,
        lambda embedder: (
            _generated(results, embedder) and svg.measure_grid(results, embedder, "correct")
        ),
        "Correct answers, {embedder}: grey cells were not generated.",
    )


def severity_pictures(results: dict) -> list[Block]:
    """The severity class and branch per cell, per embedder."""
    return _per_embedder(
        results,
        lambda embedder: svg.severity_grid(results, embedder),
        "Severity, {embedder}: each cell's class and the branch of the rules above that "
        "assigned it.",
    )


def attribution_pictures(results: dict) -> list[Block]:
    """The attribution of each generated cell as a stacked bar, per embedder."""
    return _per_embedder(
        results,
        lambda embedder: svg.attribution_bars(results, embedder),
        "Failure attribution, {embedder}: each bar is one generated cell's instances, by "
        "where each answer failed or that it was right.",
    )
