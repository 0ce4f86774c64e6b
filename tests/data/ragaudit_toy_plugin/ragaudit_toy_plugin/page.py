"""Pallet checks: how many records the plugin's probe has in the results file."""

from __future__ import annotations

from ragaudit.ui.pages import Page

PAGE = Page("toy_plugin", "Pallet checks", "ragaudit_toy_plugin.page:render")


def render() -> None:
    """Draw the page."""
    import streamlit as st

    from ragaudit.ui.common import results_or_stop

    st.title("Pallet checks")
    results = results_or_stop("toy_plugin")
    records = [r for r in results["instances"] if r["probe"] == "pallet_check"]
    st.markdown(f"pallet_check records: {len(records)}")
