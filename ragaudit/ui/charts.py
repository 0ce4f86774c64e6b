"""Plotly figures: the probe × config heatmap and the scores behind a detectability cell.

Every number drawn is read from the results file; these functions only lay it out.
"""

from __future__ import annotations

import textwrap

from ragaudit.results.format import NO_GOLD, fmt_cell, fmt_interval, fmt_measure
from ragaudit.results.palette import measure_scale
from ragaudit.results.view import cell_measure, measure_ran


def _hover(
    probe: str, layer: str, config: str, cell: dict | None, measure: str, scope: list | None
) -> str:
    recorded = cell_measure(cell, measure)
    if recorded:
        return (
            f"{probe} ({layer}) × {config}<br>{fmt_measure(recorded)}<br>"
            f"Wilson interval {fmt_interval(recorded.get('wilson'))}"
        )
    reason = ((cell or {}).get("measures") or {}).get(f"{measure}_reason")
    if fmt_cell(cell, measure) == NO_GOLD:
        reason = None  # the label already says why
    if cell is None and scope is not None and probe not in scope:
        reason = f"{config} runs only {', '.join(scope)}"
    return f"{probe} × {config}: {fmt_cell(cell, measure)}" + (f" ({reason})" if reason else "")


def _wrapped(label: str, width: int = 11) -> str:
    """A word label in lines of at most `width` characters: "n/a: no gold to retrieve" fits
    a ~90 px column as three lines instead of running into its neighbours."""
    return "<br>".join(textwrap.wrap(label, width, break_long_words=False))


def _cells_drawn(
    probes: list[str],
    configs: list[str],
    cells: dict[tuple[str, str], dict | None],
    measure: str,
    layers: dict[str, str],
    scopes: dict[str, list[str]],
) -> tuple[list[list], list[dict]]:
    """The heatmap's colour grid and the overlay's points (label, hover, click payload)."""
    z, points = [], []
    for probe in probes:
        z.append([])
        for config in configs:
            cell = cells.get((probe, config))
            recorded = cell_measure(cell, measure)
            z[-1].append(recorded["rate"] if recorded else None)
            text = fmt_cell(cell, measure)
            ran = cell is not None and measure_ran(cell, measure)
            lines = text.replace(" ", "<br>", 1) if recorded else _wrapped(text)
            points.append(
                {
                    "x": config,
                    "y": probe,
                    "text": lines,
                    "hover": _hover(
                        probe,
                        layers.get(probe, ""),
                        config,
                        cell,
                        measure,
                        scopes.get(config),
                    ),
                    # retrieval ran on an unanswerable cell, though it has no rate to draw
                    "custom": [probe, config, "run" if ran else "not run"],
                }
            )
    return z, points


def clicked_cell(event) -> tuple[str, str] | None:
    """(probe, config) of the clicked cell from a plotly selection event, if any: the first
    point's customdata[0:2], else its y and x. Shared by every clickable grid."""
    if not event:
        return None
    selection = (
        event.get("selection") if isinstance(event, dict) else getattr(event, "selection", None)
    )
    if not selection:
        return None
    points = (
        selection.get("points")
        if isinstance(selection, dict)
        else getattr(selection, "points", None)
    )
    for point in points or []:
        custom = point.get("customdata")
        if custom and len(custom) >= 2:
            return str(custom[0]), str(custom[1])
        if point.get("x") is not None and point.get("y") is not None:
            return str(point["y"]), str(point["x"])
    return None


def heatmap_figure(
    probes: list[str],
    configs: list[str],
    cells: dict[tuple[str, str], dict | None],
    measure: str,
    layers: dict[str, str],
    scopes: dict[str, list[str]] | None = None,
):
    """Probe rows × config columns of one measure; `cells[(probe, config)]` is the cell
    record, or None where the cell was not run. `scopes` names the probes of a config that
    runs only some (T4000), so its empty cells say why.

    The heatmap draws colour only; an invisible square-marker scatter on top carries the
    labels, the hover and the click, because Streamlit gets no selection from a Heatmap
    trace (Streamlit issues 8760, 8933).
    """
    import plotly.graph_objects as go

    z, points = _cells_drawn(probes, configs, cells, measure, layers, scopes or {})
    heat = go.Heatmap(
        z=z,
        x=configs,
        y=probes,
        zmin=0,
        zmax=1,
        colorscale=measure_scale(measure),
        showscale=False,
        hoverinfo="skip",
        xgap=2,
        ygap=2,
    )
    fig = go.Figure([heat, _overlay(points)])
    fig.update_layout(
        clickmode="event+select",
        height=rows_height(len(probes)),
        margin={"l": 10, "r": 10, "t": ROWS_TOP_PX, "b": ROWS_BOTTOM_PX},
        xaxis={"side": "top", "type": "category", "fixedrange": True},
        yaxis={"range": rows_range(len(probes)), "type": "category", "fixedrange": True},
        dragmode=False,
        plot_bgcolor="#f3f3f3",
    )
    return fig


# The probe rows' geometry, shared by the heatmap and the attribution bars drawn beside
# it, so that each bar sits level with its row: the same top margin, the same row height,
# and the category range fixed (autorange pads it by the overlay markers' size, and the
# two charts' markers and bars padded differently: their rows drifted 23-33 px apart).
ROW_PX, ROWS_TOP_PX, ROWS_BOTTOM_PX = 52, 40, 10


def rows_height(n_rows: int) -> int:
    """A chart's height in px for `n_rows` probe rows, margins included."""
    return ROWS_TOP_PX + ROW_PX * n_rows + ROWS_BOTTOM_PX


def rows_range(n_rows: int) -> list[float]:
    """The y range drawing `n_rows` categories top to bottom, each one row high."""
    return [n_rows - 0.5, -0.5]


def _overlay(points: list[dict]):
    """The invisible scatter that carries each cell's label, hover and click."""
    import plotly.graph_objects as go

    return go.Scatter(
        x=[p["x"] for p in points],
        y=[p["y"] for p in points],
        mode="markers+text",
        text=[p["text"] for p in points],
        textfont={"size": 12, "color": "#222"},
        marker={"symbol": "square", "size": 44, "color": "rgba(0,0,0,0)"},
        customdata=[p["custom"] for p in points],
        hovertext=[p["hover"] for p in points],
        hovertemplate="%{hovertext}<extra></extra>",
        showlegend=False,
    )


def detectability_figure(
    passing: list[float], failing: list[float], cut: float | None, score_label: str
):
    """Recorded retrieval scores of passing vs failing instances, with the recorded cut."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for name, scores, colour in (("passing", passing, "#2e7d32"), ("failing", failing, "#c62828")):
        fig.add_trace(
            go.Scatter(
                x=scores,
                y=[name] * len(scores),
                mode="markers",
                name=f"{name} ({len(scores)})",
                marker={"color": colour, "size": 10, "opacity": 0.7},
            )
        )
    if cut is not None:
        fig.add_vline(x=cut, line_dash="dash", annotation_text=f"recorded cut {cut}")
    fig.update_layout(
        height=220, margin={"l": 10, "r": 10, "t": 30, "b": 30}, xaxis_title=score_label
    )
    return fig


def sweep_figure(sweep: list[dict], score_label: str = "recorded score"):
    """A recorded threshold sweep: failures caught and false positives at each cut of the
    score `score_label` names."""
    import plotly.graph_objects as go

    cuts = [point["cut"] for point in sweep]
    fig = go.Figure()
    for field, name in (("catches", "failures caught"), ("false_positives", "false positives")):
        fig.add_trace(
            go.Scatter(x=cuts, y=[p.get(field) for p in sweep], name=name, mode="lines+markers")
        )
    fig.update_layout(
        height=260,
        margin={"l": 10, "r": 10, "t": 30, "b": 30},
        xaxis_title=f"threshold on the {score_label}",
    )
    return fig
