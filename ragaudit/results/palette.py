"""The colours a picture of a results file uses: a measure's rate, a severity class, an
attribution. The inspector's plotly charts and the report's static SVG read them here, so a
cell is the same colour on the page and on paper.

Every colour is light enough for black text on it and distinct in lightness too, so a
picture printed in grey still reads (the labels carry the figures either way).
"""

from __future__ import annotations

GOOD_MEASURES = frozenset({"gold_in_context", "span_preserved", "correct"})
"""Measures for which a high rate is good; for the others (abstained, trap taken, empty)
a high rate is bad."""

GOOD_SCALE = [[0.0, "#f4c7c3"], [0.5, "#fce8b2"], [1.0, "#b7e1cd"]]
"""Red at 0, yellow at a half, green at 1 (plotly colourscale form)."""
BAD_SCALE = [[0.0, "#b7e1cd"], [0.5, "#fce8b2"], [1.0, "#f4c7c3"]]

NOT_RUN_FILL = "#f3f3f3"
"""A cell that did not run, or whose measure has nothing to count."""

SEVERITY_FILLS = {
    "none": "#b7e1cd",
    "low": "#d9ead3",
    "medium": "#fce8b2",
    "high": "#f9cb9c",
    "critical": "#e6a09a",
    "undetermined": "#dadce0",
}
"""Severity classes from best to worst, then `undetermined` (no order: it says what could
not be established), in the order a legend lists them."""

ATTRIBUTION_FILLS = {
    "retrieval": "#f6b26b",
    "generation": "#e06666",
    "ceiling": "#8e7cc3",
    "correct": "#93c47d",
    "failed_call": "#999999",
}
"""One colour per value of analysis.attribution.ATTRIBUTIONS, as the Matrix page's
attribution bars draw them (ui/attribution_bars.py)."""


def measure_scale(measure: str) -> list[list]:
    """The colourscale of `measure`: green where its rate is good."""
    return GOOD_SCALE if measure in GOOD_MEASURES else BAD_SCALE


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def rate_fill(rate: float, measure: str) -> str:
    """The colour of `rate` on `measure`'s scale, interpolated in RGB between its stops as
    plotly draws a heatmap: `rate_fill(1.0, "correct")` is the scale's green."""
    scale = measure_scale(measure)
    rate = min(max(float(rate), 0.0), 1.0)
    for (low, low_colour), (high, high_colour) in zip(scale, scale[1:], strict=False):
        if rate <= high:
            share = (rate - low) / (high - low)
            mixed = (
                round(a + (b - a) * share)
                for a, b in zip(_rgb(low_colour), _rgb(high_colour), strict=True)
            )
            return "#" + "".join(f"{channel:02x}" for channel in mixed)
    return scale[-1][1]
