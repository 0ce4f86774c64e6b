"""The Matrix page's short section on table_split at 4000 characters (T4000, beside the
matrix): the report section's figures and quoted replies, read through results.table_wide."""

from __future__ import annotations

from ragaudit.results.table_wide import (
    TITLE,
    figure_lines,
    quote_heading,
    quote_rule,
    quoted_records,
    reply_text,
    wide_check,
)


def render_table_wide(results: dict) -> None:
    """Draw the section; nothing when the results file has no T4000 config."""
    import streamlit as st

    check = wide_check(results)
    if check is None:
        return
    st.subheader(TITLE)
    st.markdown("\n".join(f"- {line}" for line in figure_lines(check)))
    if not check.cell or not check.cell.get("generated"):
        return
    quoted = quoted_records(check)
    with st.expander(f"Quoted replies ({len(quoted)}): {quote_rule(check)}"):
        if not quoted:
            st.write("No reply on this config was graded other than correct.")
        for record in quoted:
            st.markdown(quote_heading(record))
            st.code(reply_text(record), language=None, wrap_lines=True)
