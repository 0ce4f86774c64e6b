"""The Matrix page's opening: what failed, worst first (report.failures_first), each entry
with its count over n, attribution and why, and a link that opens the cell on the Instance
page. Drawn above the heatmap; every word is the report's, read from the results file."""

from __future__ import annotations

from ragaudit.report.failures_first import HEADING, FailedCell, failed_cells
from ragaudit.ui.common import PAGES, link_params

SHOWN = 5
"""Entries drawn open; the rest wait in an expander, so the heatmap stays in view."""

KEY = "matrix_failed"


def _entry(entry: FailedCell) -> None:
    import streamlit as st

    text, link = st.columns([6, 1], vertical_alignment="center")
    with text:
        st.markdown(
            f"**{entry.severity}** · {entry.cell}: {entry.failed}  \n"
            f"attribution: {entry.attribution}  \nwhy: {entry.why}"
        )
    with link:
        st.page_link(
            PAGES["instance"],
            label="Open cell",
            query_params=link_params(
                probe=entry.probe, config=entry.config, embedder=entry.embedder
            ),
            help=f"{entry.cell} on the Instance page",
        )


def render_failures_first(results: dict) -> None:
    """The ranked summary, the worst SHOWN entries open and the rest in an expander."""
    import streamlit as st

    entries = failed_cells(results)
    with st.container(border=True, key=KEY):
        st.subheader(HEADING)
        if not entries:
            st.write("No cell has failures outside severity class none.")
            return
        st.caption(
            f"{len(entries)} of {len(results.get('cells') or [])} cells have failures and a "
            "severity class other than none: worst class first, then the highest lower "
            "bound of the failure rate's interval."
        )
        for entry in entries[:SHOWN]:
            _entry(entry)
        if len(entries) > SHOWN:
            with st.expander(f"{len(entries) - SHOWN} more"):
                for entry in entries[SHOWN:]:
                    _entry(entry)
