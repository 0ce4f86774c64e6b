"""The Matrix page's short section on table_split at 4000 characters (T4000, beside the
matrix): the report section's figures and quoted replies, read through results.table_wide."""

from __future__ import annotations

from ragaudit.results import table_wide as wide


def render_table_wide(results: dict) -> None:
    """Draw the section; nothing when the results file has no T4000 config."""
    import streamlit as st

    check = wide.wide_check(results)
    if check is None:
        return
    st.subheader(wide.TITLE)
    st.markdown("\n".join(f"- {line}" for line in wide.figure_lines(check)))
    quoted = wide.quoted_replies(check)
    if quoted is None:
        return
    with st.expander(f"Quoted replies ({len(quoted)}): {wide.quote_rule(check)}"):
        if not quoted:
            st.write(wide.NONE_QUOTED)
        for heading, reply in quoted:
            st.markdown(heading)
            st.code(reply, language=None, wrap_lines=True)
