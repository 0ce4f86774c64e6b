"""The Instance page's flips: one planted-matrix instance under every column of the chosen
embedder's matrix, the rows that differ from the shown one marked."""

from __future__ import annotations

from ragaudit.results.format import NOT_RUN, fmt_diagnostic
from ragaudit.results.view import instance_records, matrix_columns, verdict_of


def render_flips(results: dict, record: dict, table_embedder: str) -> None:
    """The instance under every column of the chosen embedder's matrix (the user's stack
    under its own embedder among them)."""
    import streamlit as st

    st.markdown(
        "**The same instance under every config** (rows that differ from this one are flips)"
    )
    rows = []
    for column in matrix_columns(results, table_embedder):
        per_config = instance_records(
            results, record["probe"], record["instance_id"], column.embedder
        )
        other, name = per_config.get(column.config), column.label
        this = (column.config, column.embedder) == (record["config"], record["embedder"])
        if other is None:
            rows.append(
                {
                    "config": name,
                    "gold in context": NOT_RUN,
                    "span preserved": NOT_RUN,
                    "verdict": NOT_RUN,
                    "flip": "",
                }
            )
            continue
        flip = (other.get("gold_in_context") != record.get("gold_in_context")) or (
            verdict_of(other) != verdict_of(record)
            and "not generated" not in (verdict_of(other), verdict_of(record))
        )
        rows.append(
            {
                "config": name + (" (this)" if this else ""),
                "gold in context": fmt_diagnostic("gold_in_context", other.get("gold_in_context")),
                "span preserved": fmt_diagnostic("span_preserved", other.get("span_preserved")),
                "verdict": verdict_of(other),
                "flip": "flip" if flip and not this else "",
            }
        )
    st.dataframe(rows, hide_index=True)
