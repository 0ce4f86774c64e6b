"""The mutation view's heatmap: operator rows × one column per mutate file, each cell the
operator's score as the file records it (killed / applicable with its Wilson interval), and
beside it, on a line of its own, the robust credits and the mutants outside the score.

As on the planted-fault matrix (ui.charts), the heatmap draws colour only and an invisible
square-marker scatter on top carries the labels, the hover and the click: Streamlit gets no
selection from a Heatmap trace (Streamlit issues 8760, 8933)."""

from __future__ import annotations

import textwrap

from ragaudit.results.mutation import score_row
from ragaudit.results.palette import GOOD_SCALE, NOT_RUN_FILL

ROW_PX, TOP_PX, BOTTOM_PX = 64, 40, 10
"""A row holds three lines of 12 px text: the score, its interval's line, the counts."""
MARKER_PX = 58
"""The clickable square of a cell."""
LINE_CHARS = 40
"""The longest line of counts in a cell, in characters."""
TEXT_COLOUR = "#222"
NO_SCORE = "— no score"
NOT_RUN = "not run"


def cell_text(score: dict | None) -> str:
    """A cell's label: the score as the report writes it, then what stands beside it
    (`46% 6/13 [23–71%]<br>1 robust · 1 not applicable`); `— no score` where no mutant
    was scored, `not run` where the file did not run the operator."""
    if score is None:
        return NOT_RUN
    row = score_row(score)
    first = row.shown if row.score is not None else NO_SCORE
    lines: list[str] = []
    for count in row.counts():  # a count is never split across lines
        if lines and len(lines[-1]) + len(count) + 3 <= LINE_CHARS:
            lines[-1] += f" · {count}"
        else:
            lines.append(count)
    return "<br>".join([first, *lines])


def cell_hover(operator: str, label: str, score: dict | None) -> str:
    """A cell's hover: the score in the report's words and every count beside it."""
    if score is None:
        return f"{operator} × {label}: {NOT_RUN} (this file did not run the operator)"
    row = score_row(score)
    counts = "<br>".join(row.counts()) or "nothing outside the score"
    shown = "<br>".join(textwrap.wrap(row.shown, 60, break_long_words=False))
    return f"{operator} × {label}<br>killed / applicable: {shown}<br>{counts}"


def mutation_figure(
    operators: list[str], labels: list[str], scores: dict[tuple[str, str], dict | None]
):
    """Operator rows × column labels; `scores[(operator, label)]` is the file's
    `mutation.scores` entry, or None where that file did not run the operator."""
    import plotly.graph_objects as go

    z, xs, ys, texts, hovers, custom = [], [], [], [], [], []
    for operator in operators:
        z.append([])
        for label in labels:
            score = scores.get((operator, label))
            z[-1].append(score_row(score).score if score is not None else None)
            xs.append(label)
            ys.append(operator)
            texts.append(cell_text(score))
            hovers.append(cell_hover(operator, label, score))
            custom.append([operator, label])
    heat = go.Heatmap(
        z=z, x=labels, y=operators, zmin=0, zmax=1, colorscale=GOOD_SCALE, showscale=False,
        hoverinfo="skip", xgap=2, ygap=2,
    )  # fmt: skip
    overlay = go.Scatter(
        x=xs, y=ys, mode="markers+text", text=texts, textfont={"size": 12, "color": TEXT_COLOUR},
        marker={"symbol": "square", "size": MARKER_PX, "color": "rgba(0,0,0,0)"},
        customdata=custom, hovertext=hovers, hovertemplate="%{hovertext}<extra></extra>",
        showlegend=False,
        # a click selects its point: the other cells' labels stay as dark, not faded
        selected={"marker": {"opacity": 1}, "textfont": {"color": TEXT_COLOUR}},
        unselected={"marker": {"opacity": 1}, "textfont": {"color": TEXT_COLOUR}},
    )  # fmt: skip
    fig = go.Figure([heat, overlay])
    fig.update_layout(
        clickmode="event+select",
        height=TOP_PX + ROW_PX * len(operators) + BOTTOM_PX,
        margin={"l": 10, "r": 10, "t": TOP_PX, "b": BOTTOM_PX},
        xaxis={"side": "top", "type": "category", "fixedrange": True},
        yaxis={"range": [len(operators) - 0.5, -0.5], "type": "category", "fixedrange": True},
        dragmode=False,
        plot_bgcolor=NOT_RUN_FILL,
    )
    return fig
