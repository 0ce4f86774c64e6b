"""Static SVG pictures of a results file for the HTML report: a measure's probe x config
heatmap (gold in context, correct answers), the severity grid and the attribution bars.

Written by hand as text: no JavaScript, no plotting library, nothing fetched, so the report
opens offline and prints. Every label is a figure read from the results file and written by
results.format; colours come from results.palette (the inspector's). Each cell or bar is a
`<g>` carrying `data-` attributes (probe, column, attribution) and a `<title>` that a
browser shows on hover; what a printout needs is in the visible text.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from ragaudit.results import view
from ragaudit.results.format import NOT_RUN, fmt_cell, fmt_measure
from ragaudit.results.palette import ATTRIBUTION_FILLS, NOT_RUN_FILL, SEVERITY_FILLS, rate_fill
from ragaudit.results.schema import ATTRIBUTIONS

FONT = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"
CHAR = 0.62
"""A character's width as a share of the font size (an over-estimate, so labels fit)."""
PAD = 8
CELL_W, CELL_H = 116, 42
HEADER_H = 26
BAR_W, BAR_H, ROW_H = 360, 18, 26
INK, FAINT = "#1d1d1f", "#5f6368"


@dataclass(frozen=True)
class GridCell:
    """One drawn cell: its fill, its visible lines (first one larger), its hover text."""

    fill: str
    lines: tuple[str, ...]
    hover: str
    recorded: bool = True
    """False for a cell with no figure to show (not run, nothing to count)."""


def _width(text: str, size: float) -> float:
    return len(text) * size * CHAR


def _attrs(data: dict[str, str]) -> str:
    return "".join(f' data-{key}="{escape(value)}"' for key, value in data.items())


def _text(x: float, y: float, text: str, *, size: float = 12, **style: str) -> str:
    extra = "".join(f' {key.replace("_", "-")}="{value}"' for key, value in style.items())
    return f'<text x="{x:g}" y="{y:g}" font-size="{size:g}"{extra}>{escape(text)}</text>'


def _document(width: float, height: float, label: str, body: list[str]) -> str:
    """The <svg> element: sized in pixels, scaled down to fit the page (viewBox)."""
    width, height = round(width), round(height)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" font-family="{escape(FONT)}" '
        f'fill="{INK}" style="max-width:100%;height:auto"><title>{escape(label)}</title>'
        + "".join(body)
        + "</svg>"
    )


def _grid_lines(cell: GridCell, x: float, y: float, width: float) -> list[str]:
    """A cell's visible lines, centred; the first larger (a rate, a class)."""
    centre = x + width / 2
    if len(cell.lines) == 1:
        offsets = [(CELL_H / 2 + 4, 12 if cell.recorded else 11)]
    else:
        offsets = [(CELL_H / 2 - 3, 13 if cell.recorded else 11), (CELL_H / 2 + 12, 10.5)]
    out = []
    for index, (line, (dy, size)) in enumerate(zip(cell.lines, offsets, strict=False)):
        weight = {"font_weight": "600"} if index == 0 and cell.recorded else {}
        fill = INK if cell.recorded else FAINT
        out.append(
            _text(centre, y + dy, line, size=size, text_anchor="middle", fill=fill, **weight)
        )
    return out


def _cell_width(cell: GridCell) -> float:
    """What a cell's lines need: the first at 13 px, the rest at 10.5 px, and a margin."""
    sizes = [13, *([10.5] * (len(cell.lines) - 1))]
    return max(_width(line, size) for line, size in zip(cell.lines, sizes, strict=True)) + 12


def draw_grid(
    probes: list[str], columns: list[str], cells: dict[tuple[str, str], GridCell], label: str
) -> str:
    """Probe rows x column headings, one `<g class="cell">` per (probe, column)."""
    left = PAD + max((_width(p, 12) for p in probes), default=0) + 10
    widths = [
        max(CELL_W, _width(c, 12) + 12, *(_cell_width(cells[(p, c)]) for p in probes))
        for c in columns
    ]
    body = [
        _text(left - 10, PAD + HEADER_H + i * CELL_H + CELL_H / 2 + 4, probe, text_anchor="end")
        for i, probe in enumerate(probes)
    ]
    x = left
    for column, width in zip(columns, widths, strict=True):
        body.append(
            _text(
                x + width / 2, PAD + HEADER_H - 9, column, text_anchor="middle", font_weight="600"
            )
        )
        for row, probe in enumerate(probes):
            cell = cells[(probe, column)]
            y = PAD + HEADER_H + row * CELL_H
            body.append(
                f'<g class="cell"{_attrs({"probe": probe, "column": column})}>'
                f"<title>{escape(cell.hover)}</title>"
                f'<rect x="{x:g}" y="{y:g}" width="{width - 2:g}" height="{CELL_H - 2}" '
                f'fill="{cell.fill}" stroke="#ffffff"/>'
                + "".join(_grid_lines(cell, x, y, width - 2))
                + "</g>"
            )
        x += width
    return _document(x + PAD, PAD * 2 + HEADER_H + CELL_H * len(probes), label, body)


def _measure_cell(probe: str, column: view.Column, cell: dict | None, measure: str) -> GridCell:
    text = fmt_cell(cell, measure)
    recorded = view.cell_measure(cell, measure)
    where = f"{probe} × {column.label}"
    if recorded is None:
        reason = ((cell or {}).get("measures") or {}).get(f"{measure}_reason")
        if cell is None and column.probes is not None and probe not in column.probes:
            reason = f"{column.config} runs only {', '.join(column.probes)}"
        hover = f"{where}: {text}" + (f" ({reason})" if reason and text == NOT_RUN else "")
        return GridCell(NOT_RUN_FILL, tuple(text.replace(": ", ":\n").split("\n")), hover, False)
    rate, ratio = text.split(" ", 1)
    hover = f"{where}: {fmt_cell(cell, measure, interval=True)}"
    return GridCell(rate_fill(recorded["rate"], measure), (rate, ratio), hover)


def measure_grid(results: dict, embedder: str, measure: str) -> str | None:
    """`measure` per probe x column of `embedder`'s tables (the user's stack beside the
    configs), as the Matrix page draws it; None when no column has a record."""
    columns = view.matrix_columns(results, embedder)
    probes = view.column_probes(results, columns)
    if not probes:
        return None
    found = view.column_cells(results, probes, columns)
    cells = {
        (probe, column.label): _measure_cell(probe, column, found[(probe, column.label)], measure)
        for probe in probes
        for column in columns
    }
    label = f"{measure} per probe and config, {embedder}"
    return draw_grid(probes, [c.label for c in columns], cells, label)


def _severity_cell(probe: str, column: str, cell: dict | None, rules: dict) -> GridCell:
    severity = (cell or {}).get("severity")
    if not severity:
        return GridCell(NOT_RUN_FILL, (NOT_RUN,), f"{probe} × {column}: {NOT_RUN}", False)
    klass, branch = severity["class"], severity.get("branch") or ""
    rule = rules.get(branch)
    hover = f"{probe} × {column}: {klass} ({branch})" + (f": {rule}" if rule else "")
    return GridCell(SEVERITY_FILLS.get(klass, NOT_RUN_FILL), (klass, branch), hover)


def severity_grid(results: dict, embedder: str) -> str | None:
    """Each cell's severity class and branch per probe x column of `embedder`'s tables; the
    hover adds the rule's text. None when no column has a record."""
    columns = view.matrix_columns(results, embedder)
    probes = view.column_probes(results, columns)
    if not probes:
        return None
    found = view.column_cells(results, probes, columns)
    rules = {r["branch"]: r["text"] for r in results.get("severity_rules") or []}
    cells = {
        (p, c.label): _severity_cell(p, c.label, found[(p, c.label)], rules)
        for p in probes
        for c in columns
    }
    return draw_grid(probes, [c.label for c in columns], cells, f"severity, {embedder}")


def attributed_rows(results: dict, embedder: str) -> list[tuple[str, str, dict]]:
    """(probe, column label, attribution) of every cell of `embedder`'s tables whose
    attribution the file records, in table order."""
    columns = view.matrix_columns(results, embedder)
    probes = view.column_probes(results, columns)
    found = view.column_cells(results, probes, columns)
    rows = []
    for probe in probes:
        for column in columns:
            attribution = view.cell_attribution(found[(probe, column.label)])
            if attribution is not None:
                rows.append((probe, column.label, attribution))
    return rows


def _bar(x: float, y: float, attribution: dict) -> tuple[list[str], list[str]]:
    """One stacked bar's segments (each attribution's share of the cell's n) and the
    visible parts naming every non-zero attribution."""
    segments, parts = [], []
    for name in ATTRIBUTIONS:
        recorded = attribution.get(name)
        if not recorded or not recorded.get("count"):
            continue
        width = BAR_W * recorded["count"] / recorded["n"]
        segments.append(
            f'<g class="segment"{_attrs({"attribution": name})}>'
            f"<title>{escape(f'{name} {fmt_measure(recorded)}')}</title>"
            f'<rect x="{x:g}" y="{y:g}" width="{width:g}" height="{BAR_H}" '
            f'fill="{ATTRIBUTION_FILLS[name]}" stroke="#ffffff"/></g>'
        )
        parts.append(f"{name} {fmt_measure(recorded)}")
        x += width
    return segments, parts


def attribution_bars(results: dict, embedder: str) -> str | None:
    """A stacked bar per attributed cell of `embedder`'s tables: retrieval, generation,
    ceiling, correct and failed calls as shares of the cell's n, each named with its count
    beside the bar. None when no cell records an attribution."""
    rows = attributed_rows(results, embedder)
    if not rows:
        return None
    names = [f"{probe} × {column}" for probe, column, _ in rows]
    left = PAD + max(_width(n, 12) for n in names) + 10
    body = _legend(left, PAD)
    widest = 0.0
    for index, ((probe, column, attribution), name) in enumerate(zip(rows, names, strict=True)):
        y = PAD + HEADER_H + index * ROW_H
        segments, parts = _bar(left, y, attribution)
        line = " · ".join(parts)
        widest = max(widest, _width(line, 11))
        body.append(
            f'<g class="bar"{_attrs({"probe": probe, "column": column})}>'
            + _text(left - 10, y + BAR_H - 4, name, text_anchor="end")
            + f'<rect x="{left:g}" y="{y:g}" width="{BAR_W}" height="{BAR_H}" '
            f'fill="none" stroke="#9aa0a6"/>'
            + "".join(segments)
            + _text(left + BAR_W + 10, y + BAR_H - 5, line, size=11, fill=FAINT)
            + "</g>"
        )
    width = max(left + BAR_W + 10 + widest, _legend_width(left)) + PAD
    return _document(
        width, PAD * 2 + HEADER_H + ROW_H * len(rows), f"attribution, {embedder}", body
    )


def _legend(x: float, y: float) -> list[str]:
    """A swatch and name per attribution, in bar order."""
    out = []
    for name in ATTRIBUTIONS:
        out.append(
            f'<rect x="{x:g}" y="{y + 2:g}" width="12" height="12" '
            f'fill="{ATTRIBUTION_FILLS[name]}" stroke="#9aa0a6"/>'
            + _text(x + 16, y + 12, name, size=11)
        )
        x += 16 + _width(name, 11) + 14
    return out


def _legend_width(x: float) -> float:
    return x + sum(16 + _width(name, 11) + 14 for name in ATTRIBUTIONS)
