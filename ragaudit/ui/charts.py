"""Plotly figures: the probe × config heatmap and the scores behind a detectability cell.

Every number drawn is read from the results file; these functions only lay it out.
"""

from __future__ import annotations

from ragaudit.ui.data import fmt_interval, fmt_measure

# High is good for these measures; for the others (abstained, trap taken, empty) high is bad.
GOOD_MEASURES = {"gold_in_context", "span_preserved", "correct"}
_GOOD_SCALE = [[0.0, "#f4c7c3"], [0.5, "#fce8b2"], [1.0, "#b7e1cd"]]
_BAD_SCALE = [[0.0, "#b7e1cd"], [0.5, "#fce8b2"], [1.0, "#f4c7c3"]]


def heatmap_figure(
    probes: list[str],
    configs: list[str],
    cells: dict[tuple[str, str], dict | None],
    measure: str,
    layers: dict[str, str],
    reasons: dict[tuple[str, str], str | None] | None = None,
):
    """Probe rows × config columns; `cells[(probe, config)]` is the measure dict or None.

    The heatmap draws colour only; an invisible square-marker scatter on top carries the
    labels, the hover and the click, because Streamlit gets no selection from a Heatmap
    trace (Streamlit issues 8760, 8933).
    """
    import plotly.graph_objects as go

    z, xs, ys, labels, hovers, custom = [], [], [], [], [], []
    for probe in probes:
        row = []
        for config in configs:
            m = cells.get((probe, config))
            row.append(m["rate"] if m else None)
            xs.append(config)
            ys.append(probe)
            text = fmt_measure(m)
            labels.append(text.replace(" ", "<br>", 1) if m else "not run")
            hovers.append(
                f"{probe} ({layers.get(probe, '')}) × {config}<br>{text}<br>{fmt_interval(m)}"
                if m
                else f"{probe} × {config}: not run"
                + (
                    f" ({reasons[(probe, config)]})"
                    if reasons and reasons.get((probe, config))
                    else ""
                )
            )
            custom.append([probe, config, "run" if m else "not run"])
        z.append(row)
    heat = go.Heatmap(
        z=z,
        x=configs,
        y=probes,
        zmin=0,
        zmax=1,
        colorscale=_GOOD_SCALE if measure in GOOD_MEASURES else _BAD_SCALE,
        showscale=False,
        hoverinfo="skip",
        xgap=2,
        ygap=2,
    )
    overlay = go.Scatter(
        x=xs,
        y=ys,
        mode="markers+text",
        text=labels,
        textfont={"size": 12, "color": "#222"},
        marker={"symbol": "square", "size": 44, "color": "rgba(0,0,0,0)"},
        customdata=custom,
        hovertext=hovers,
        hovertemplate="%{hovertext}<extra></extra>",
        showlegend=False,
    )
    fig = go.Figure([heat, overlay])
    fig.update_layout(
        clickmode="event+select",
        height=80 + 52 * len(probes),
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"side": "top", "type": "category", "fixedrange": True},
        yaxis={"autorange": "reversed", "type": "category", "fixedrange": True},
        dragmode=False,
        plot_bgcolor="#f3f3f3",
    )
    return fig


def detectability_figure(
    passing: list[float], failing: list[float], cut: float | None, score_label: str
):
    """Recorded retrieval scores of passing vs failing instances, with the recorded cut."""
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=passing,
            y=["passing"] * len(passing),
            mode="markers",
            name=f"passing ({len(passing)})",
            marker={"color": "#2e7d32", "size": 10, "opacity": 0.7},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=failing,
            y=["failing"] * len(failing),
            mode="markers",
            name=f"failing ({len(failing)})",
            marker={"color": "#c62828", "size": 10, "opacity": 0.7},
        )
    )
    if cut is not None:
        fig.add_vline(x=cut, line_dash="dash", annotation_text=f"recorded cut {cut}")
    fig.update_layout(
        height=220, margin={"l": 10, "r": 10, "t": 30, "b": 30}, xaxis_title=score_label
    )
    return fig


def sweep_figure(sweep: list[dict]):
    """A recorded threshold sweep: failures caught and false positives at each cut."""
    import plotly.graph_objects as go

    cuts = [point["cut"] for point in sweep]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=cuts,
            y=[p.get("catches") for p in sweep],
            name="failures caught",
            mode="lines+markers",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=cuts,
            y=[p.get("false_positives") for p in sweep],
            name="false positives",
            mode="lines+markers",
        )
    )
    fig.update_layout(
        height=260, margin={"l": 10, "r": 10, "t": 30, "b": 30}, xaxis_title="threshold"
    )
    return fig
