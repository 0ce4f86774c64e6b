"""The Severity page's grid: each cell's class as a colour, classes ordered from none to
critical with `undetermined` apart, the branch that assigned it on hover, the rules list
beside it; a click selects the cell for the page's detectability section and its link to
the cell's instances.

Every class and branch is the cell's recorded `severity`; the rule texts are the file's
`severity_rules`.
"""

from __future__ import annotations

import textwrap

from ragaudit.results.format import NOT_MEASURED, NOT_RUN
from ragaudit.results.palette import NOT_RUN_FILL, SEVERITY_FILLS
from ragaudit.results.view import Column, column_cells
from ragaudit.ui.charts import clicked_cell
from ragaudit.ui.common import PAGES, link_params

GRID_KEY = "severity_grid"
SEVERITY_CLASSES = tuple(SEVERITY_FILLS)
"""none, low, medium, high, critical (best to worst), then undetermined (no order)."""
# The grid's selection, kept so a click is applied once, not again on every later rerun
# (a plotly selection persists) over a cell chosen since in the selectboxes.
_APPLIED = "_severity_grid_applied"


def _rule_of(rules: list[dict], severity: dict) -> tuple[int, dict] | None:
    """The recorded rule (its number from 1, the rule) that assigned `severity`."""
    for number, rule in enumerate(rules, start=1):
        if (rule.get("class"), rule.get("branch")) == (severity["class"], severity["branch"]):
            return number, rule
    return None


def cell_hover(probe: str, label: str, cell: dict | None, rules: list[dict]) -> str:
    """The cell's class and the branch that assigned it, with that rule's text."""
    severity = (cell or {}).get("severity")
    if not severity:
        return f"{probe} × {label}: {NOT_RUN if cell is None else NOT_MEASURED}"
    lines = [f"{probe} × {label}: {severity['class']}", f"branch {severity['branch']}"]
    found = _rule_of(rules, severity)
    if found:
        number, rule = found
        lines[-1] += f" (rule {number} of {len(rules)})"
        lines += textwrap.wrap(rule["text"], 60)
    return "<br>".join(lines)


def _grid(probes, columns: list[Column], cells, rules) -> tuple[list[list], list[dict]]:
    """The colour grid (a class's place in SEVERITY_CLASSES, None where no class) and the
    overlay's points (label, hover, click payload)."""
    z, points = [], []
    for probe in probes:
        z.append([])
        for column in columns:
            cell = cells[(probe, column.label)]
            severity = (cell or {}).get("severity")
            known = bool(severity) and severity["class"] in SEVERITY_CLASSES
            z[-1].append(SEVERITY_CLASSES.index(severity["class"]) + 0.5 if known else None)
            absent = NOT_RUN if cell is None else NOT_MEASURED
            text = severity["class"] if severity else "<br>".join(textwrap.wrap(absent, 14))
            points.append(
                {
                    "x": column.label,
                    "y": probe,
                    "text": text,
                    "hover": cell_hover(probe, column.label, cell, rules),
                    "custom": [probe, column.config, severity["branch"] if severity else ""],
                }
            )
    return z, points


def _stepped_scale() -> list[list]:
    """One flat band of colour per class, in SEVERITY_CLASSES order."""
    count = len(SEVERITY_CLASSES)
    scale = []
    for place, name in enumerate(SEVERITY_CLASSES):
        scale += [
            [place / count, SEVERITY_FILLS[name]],
            [(place + 1) / count, SEVERITY_FILLS[name]],
        ]
    return scale


def severity_grid_figure(
    probes: list[str], columns: list[Column], cells: dict[tuple[str, str], dict | None], rules
):
    """Probe rows × column cells coloured by class; an invisible square-marker scatter on
    top carries the labels, hover and click (a Heatmap trace gives Streamlit no selection),
    and one legend entry per class, in order."""
    import plotly.graph_objects as go

    z, points = _grid(probes, columns, cells, rules)
    labels = [c.label for c in columns]
    heat = go.Heatmap(
        z=z,
        x=labels,
        y=probes,
        zmin=0,
        zmax=len(SEVERITY_CLASSES),
        colorscale=_stepped_scale(),
        showscale=False,
        hoverinfo="skip",
        xgap=2,
        ygap=2,
    )
    overlay = go.Scatter(
        x=[p["x"] for p in points],
        y=[p["y"] for p in points],
        mode="markers+text",
        text=[p["text"] for p in points],
        textfont={"size": 10, "color": "#222"},
        marker={"symbol": "square", "size": 44, "color": "rgba(0,0,0,0)"},
        # After a click the chosen cell is tinted; the others stay readable (plotly's
        # default fades them to near white).
        selected={"marker": {"color": "rgba(0,0,0,0.15)"}, "textfont": {"color": "#000"}},
        unselected={"marker": {"opacity": 1}, "textfont": {"color": "#555"}},
        customdata=[p["custom"] for p in points],
        hovertext=[p["hover"] for p in points],
        hovertemplate="%{hovertext}<extra></extra>",
        showlegend=False,
    )
    fig = go.Figure([heat, overlay, *_legend(go)])
    fig.update_layout(
        clickmode="event+select",
        height=150 + 52 * len(probes),
        margin={"l": 10, "r": 10, "t": 50, "b": 60},
        xaxis={"side": "top", "type": "category", "fixedrange": True, "title": {"text": "config"}},
        yaxis={"autorange": "reversed", "type": "category", "fixedrange": True},
        dragmode=False,
        plot_bgcolor=NOT_RUN_FILL,
        legend={"orientation": "h", "y": -0.02, "yanchor": "top", "title": {"text": "class"}},
    )
    return fig


def _legend(go) -> list:
    """A legend entry per class (a marker never drawn), so the order is read off the chart."""
    return [
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            name=name,
            marker={"symbol": "square", "size": 12, "color": SEVERITY_FILLS[name]},
            hoverinfo="skip",
        )
        for name in SEVERITY_CLASSES
    ]


def _apply_click(event, columns: list[Column]) -> None:
    """Select the clicked cell in the page's probe and config selectboxes (keys
    severity_probe, severity_config), once per click."""
    import streamlit as st

    target = clicked_cell(event)
    if target is None or target == st.session_state.get(_APPLIED):
        return
    st.session_state[_APPLIED] = target
    if target[1] in {c.config for c in columns}:
        st.session_state["severity_probe"], st.session_state["severity_config"] = target


def _render_rules(rules: list[dict]) -> None:
    import streamlit as st

    if not rules:
        st.caption("This results file carries no severity_rules.")
        return
    st.markdown(f"**The {len(rules)} rules, in the order they are tested** (first match wins)")
    for number, rule in enumerate(rules, start=1):
        st.markdown(f"{number}. **{rule['class']}** (`{rule['branch']}`) {rule['text']}")


BESIDE_RULES = 5
"""The most columns the grid has while the rules stand beside it."""


def render_severity_grid(results: dict, probes: list[str], columns: list[Column]) -> None:
    """The grid of `columns` (a stack's under its own embedder) with the rules beside it
    (the rules alone when no cell is recorded); must run before the page's probe and
    config selectboxes, which a click sets."""
    import streamlit as st

    rules = results.get("severity_rules") or []
    cells = column_cells(results, probes, columns)
    if not any(cells.values()):
        _render_rules(rules)
        return
    # Beside the rules, more than BESIDE_RULES columns leave each cell narrower than
    # "undetermined": the grid then takes the full width and the rules go below it.
    if len(columns) > BESIDE_RULES:
        grid, beside = st.container(), st.container()
    else:
        grid, beside = st.columns([5, 3], gap="medium")
    with grid:
        st.caption(
            "Class per cell, ordered none → low → medium → high → critical; undetermined "
            "says what could not be established. Hover for the branch; click a cell for its "
            "detectability and instances below."
        )
        event = st.plotly_chart(
            severity_grid_figure(probes, columns, cells, rules),
            key=GRID_KEY,
            on_select="rerun",
            selection_mode="points",
            config={"displayModeBar": False},
        )
        _apply_click(event, columns)
    with beside:
        _render_rules(rules)


def render_cell_instances_link(probe: str, config: str, embedder: str) -> None:
    """A link to the cell's instances on the Instance page."""
    import streamlit as st

    st.page_link(
        PAGES["instance"],
        label=f"Open the instances of {probe} × {config}",
        icon=":material/open_in_new:",
        query_params=link_params(probe=probe, config=config, embedder=embedder),
    )
