"""The inspector's frame around every page: the browser tab's title names the page and the
results file it reads, and a page that takes a while says so instead of staying blank.

The toolbar is the other half of the frame: `.streamlit/config.toml` beside app.py (read by
Streamlit as the script's own config, in a checkout and in an installed wheel) sets
`client.toolbarMode = "minimal"`, so there is no Deploy button and no developer menu.
"""

from __future__ import annotations

from collections.abc import Callable

from ragaudit.ui.allowed import Refused
from ragaudit.ui.data import results_path
from ragaudit.ui.links import chosen_file

TOOL = "ragaudit"


def results_file_name(query_value: str | None) -> str | None:
    """The file name of the results file a session reads (`?results=`, else
    $RAGAUDIT_RESULTS, else the default); None when the link names one it may not open."""
    try:
        return results_path(query_value).name
    except Refused:
        return None


def page_title(page: str, query_value: str | None) -> str:
    """The browser tab's title: `Matrix · latest.json · ragaudit`, or `Matrix · ragaudit`
    when the link names a file the inspector refuses."""
    name = results_file_name(query_value)
    return " · ".join(part for part in (page, name, TOOL) if part)


def set_frame(page: str) -> None:
    """Set the page's title (naming the results file) and the wide layout."""
    import streamlit as st

    # the session's chosen file, which a sidebar link drops from the URL (ui.links)
    st.set_page_config(page_title=page_title(page, chosen_file("results")), layout="wide")


def draw_with_progress(render: Callable[[], None]) -> None:
    """Run a page's render function under a spinner, which Streamlit shows only once the
    page has taken half a second, naming what it reads."""
    import streamlit as st

    name = results_file_name(st.query_params.get("results")) or "the results file"
    with st.spinner(f"Reading {name} and drawing the page…"):
        render()
