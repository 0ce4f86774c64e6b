"""The Matrix page's attribution at a glance: beside the heatmap, one stacked bar per
generated cell (retrieval failure / generation failure / generator ceiling / correct /
failed call), its rows the heatmap's probes, one panel per column with an attribution; a
click opens the cell's instances, as the heatmap's does.

Every count is the cell's recorded `attribution` (count/n per value, `no_oracle`), read,
never recounted from the records.
"""

from __future__ import annotations

import textwrap
from contextlib import contextmanager

from ragaudit.results.format import NOT_MEASURED, NOT_RUN, fmt_count, fmt_measure
from ragaudit.results.palette import ATTRIBUTION_FILLS, NOT_RUN_FILL
from ragaudit.results.schema import ATTRIBUTIONS
from ragaudit.results.view import Column, cell_attribution, column_cells
from ragaudit.ui.charts import ROWS_BOTTOM_PX, ROWS_TOP_PX, clicked_cell, rows_height, rows_range
from ragaudit.ui.common import PAGES, link_params

CHART_KEY = "matrix_attribution_bars"
SEGMENT_LABELS = {
    "retrieval": "retrieval failure",
    "generation": "generation failure",
    "ceiling": "generator ceiling",
    "correct": "correct",
    "failed_call": "failed call",
}
NO_ORACLE = "no oracle context (no gold span, or retrieval failed), so no ceiling measured"
_LEGEND_PX = 60  # below the rows, so the rows keep the heatmap's geometry (charts.ROW_PX)


def attributed_columns(
    probes: list[str], columns: list[Column], cells: dict[tuple[str, str], dict | None]
) -> list[Column]:
    """The columns with at least one cell among `probes` recording an attribution: the
    bars' panels (none in a file that predates oracle contexts, or ran no generation)."""
    return [c for c in columns if any(cell_attribution(cells[(p, c.label)]) for p in probes)]


def absent_reason(cell: dict | None) -> str | None:
    """Why a cell has no bar (`not run`, `not measured in this file`), or None if it has one."""
    if cell is None or not cell.get("generated"):
        return NOT_RUN
    return None if cell_attribution(cell) else NOT_MEASURED


def cell_hover(probe: str, label: str, attribution: dict) -> str:
    """Every value's count over the cell's n, and the records without an oracle."""
    lines = [f"{probe} × {label}"]
    lines += [
        f"{SEGMENT_LABELS[name]}: {fmt_measure(attribution.get(name))}" for name in ATTRIBUTIONS
    ]
    if attribution.get("no_oracle") is not None:
        lines.append(f"{NO_ORACLE}: {fmt_measure(attribution['no_oracle'])}")
    return "<br>".join(lines)


def _segments(probes, column: Column, cells) -> dict[str, dict[str, list]]:
    """Per attribution value, the bar of each probe's cell: its share, label, hover, click."""
    out = {name: {"x": [], "y": [], "text": [], "hover": [], "custom": []} for name in ATTRIBUTIONS}
    for probe in probes:
        attribution = cell_attribution(cells[(probe, column.label)]) or {}
        if absent_reason(cells[(probe, column.label)]):
            continue
        hover = cell_hover(probe, column.label, attribution)
        for name in ATTRIBUTIONS:
            recorded = attribution.get(name)
            if not recorded or not recorded.get("count") or not recorded.get("n"):
                continue  # a zero-width segment draws nothing
            bar = out[name]
            bar["x"].append(recorded["count"] / recorded["n"])
            bar["y"].append(probe)
            bar["text"].append(fmt_count(recorded))
            bar["hover"].append(hover)
            bar["custom"].append([probe, column.config, name])
    return out


def _row_marks(go, probes, column: Column, cells, panel: int):
    """Each row's words where its cell has no bar, on a transparent square marker as large
    as the heatmap's, so the rows are padded as the heatmap's are and line up beside it.
    Not clickable: hover is skipped, so plotly never picks them."""
    reasons = [absent_reason(cells[(p, column.label)]) or "" for p in probes]
    return go.Scatter(
        x=[0.5] * len(probes),
        y=probes,
        mode="markers+text",
        text=["<br>".join(textwrap.wrap(why, 14)) for why in reasons],
        textfont={"size": 10, "color": "#777"},
        marker={"symbol": "square", "size": 44, "color": "rgba(0,0,0,0)"},
        hoverinfo="skip",
        showlegend=False,
        xaxis=f"x{panel}" if panel > 1 else "x",
    )


def attribution_figure(
    probes: list[str], columns: list[Column], cells: dict[tuple[str, str], dict | None]
):
    """One panel per column in `columns`, a 100% stacked horizontal bar per probe's cell,
    segments in ATTRIBUTIONS order labelled count/n. Bars carry customdata [probe, config,
    value], so a click names the cell."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(
        rows=1,
        cols=len(columns),
        shared_yaxes=True,
        horizontal_spacing=0.03,
        subplot_titles=[c.label for c in columns],
    )
    in_legend: set[str] = set()  # each value once, from the first panel that draws it
    for panel, column in enumerate(columns, start=1):
        for name, bar in _segments(probes, column, cells).items():
            shown = bool(bar["x"]) and name not in in_legend
            in_legend |= {name} if shown else set()
            fig.add_trace(
                go.Bar(
                    orientation="h",
                    x=bar["x"],
                    y=bar["y"],
                    name=SEGMENT_LABELS[name],
                    legendgroup=name,
                    legendrank=ATTRIBUTIONS.index(name),
                    showlegend=shown,
                    marker={"color": ATTRIBUTION_FILLS[name]},
                    text=bar["text"],
                    textposition="inside",
                    insidetextanchor="middle",
                    customdata=bar["custom"],
                    hovertext=bar["hover"],
                    hovertemplate="%{hovertext}<extra></extra>",
                ),
                row=1,
                col=panel,
            )
        fig.add_trace(_row_marks(go, probes, column, cells, panel), row=1, col=panel)
    _lay_out(fig, probes)
    return fig


def _lay_out(fig, probes: list[str]) -> None:
    fig.update_layout(
        barmode="stack",
        bargap=0.35,
        clickmode="event+select",
        dragmode=False,
        height=rows_height(len(probes)) + _LEGEND_PX,  # the heatmap's, plus the legend
        margin={"l": 10, "r": 10, "t": ROWS_TOP_PX, "b": ROWS_BOTTOM_PX + _LEGEND_PX},
        legend={"orientation": "h", "y": 0, "yanchor": "top", "x": 0, "font": {"size": 11}},
        plot_bgcolor=NOT_RUN_FILL,
        uniformtext={"minsize": 9, "mode": "hide"},
    )
    fig.update_xaxes(range=[0, 1], showticklabels=False, showgrid=False, fixedrange=True)
    fig.update_yaxes(
        range=rows_range(len(probes)),
        type="category",
        categoryorder="array",
        categoryarray=probes,
    )
    fig.update_yaxes(fixedrange=True)
    fig.update_annotations(font={"size": 12})


def _no_oracle_note(probes, columns: list[Column], cells) -> str | None:
    """The cells some of whose records had no oracle, each with its count/n."""
    noted = []
    for column in columns:
        for probe in probes:
            recorded = (cell_attribution(cells[(probe, column.label)]) or {}).get("no_oracle")
            if recorded and recorded.get("count"):
                noted.append(f"{probe} × {column.label} {fmt_count(recorded)}")
    return f"Records with {NO_ORACLE}: {', '.join(noted)}." if noted else None


BARS_CAPTION = "Failure attribution (count/n). Click a bar to open the cell."


def render_attribution_bars(
    results: dict, probes: list[str], columns: list[Column], embedder: str, *, titled: bool = True
):
    """Draw the bars of `embedder`'s columns with an attribution (a stack's under its own
    embedder); a clicked bar opens that cell on the Instance page. Nothing when no cell
    records one (the page's attribution line says why). `titled`: the caption above them
    (beside the heatmap the page draws it above both charts instead, so the two start
    level)."""
    import streamlit as st

    cells = column_cells(results, probes, columns)
    panels = attributed_columns(probes, columns, cells)
    if not panels:
        return
    if titled:
        st.caption(BARS_CAPTION)
    event = st.plotly_chart(
        attribution_figure(probes, panels, cells),
        key=CHART_KEY,
        on_select="rerun",
        selection_mode="points",
        config={"displayModeBar": False},
    )
    note = _no_oracle_note(probes, panels, cells)
    if note:
        st.caption(note)
    target = clicked_cell(event)
    if target and target[1] in {c.config for c in panels}:
        st.switch_page(
            PAGES["instance"],
            query_params=link_params(probe=target[0], config=target[1], embedder=embedder),
        )


# Beyond this many bar panels, side by side would squeeze the heatmap's columns (the
# reference preset's 8 configs and 5 generated panels left ~35 px a cell), so the bars go below it.
MAX_PANELS_BESIDE = 3


@contextmanager
def beside_attribution_bars(
    results: dict, probes: list[str], columns: list[Column], embedder, caption: str
):
    """Run the body (the heatmap's chart) in a left column with the attribution bars to its
    right, when any cell records an attribution; with more than MAX_PANELS_BESIDE panels,
    or none, the body takes the full width (and the bars follow it below). `caption` is
    the heatmap's: side by side, both captions go above both charts, so the charts start
    at the same height whatever each caption's wrapping."""
    import streamlit as st

    panels = attributed_columns(probes, columns, column_cells(results, probes, columns))
    if not panels or len(panels) > MAX_PANELS_BESIDE:
        st.caption(caption)
        yield
        if panels:
            render_attribution_bars(results, probes, columns, embedder)
        return
    st.caption(f"{caption} Right: {BARS_CAPTION[0].lower()}{BARS_CAPTION[1:]}")
    # The heatmap's share grows with its columns, the bars' with their panels.
    left, right = st.columns([len(columns) + 1, 2 * len(panels) + 2], gap="small")
    with left:
        yield
    with right:
        render_attribution_bars(results, probes, columns, embedder, titled=False)
