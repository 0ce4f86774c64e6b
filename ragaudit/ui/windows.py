"""Embedder input windows on the Matrix and Instance pages: which indexes, and which of an
instance's retrieved chunks, run past the embedder's window (read from `run.indexes`)."""

from __future__ import annotations

from ragaudit.results.format import NOT_MEASURED, fmt_chunk_window, fmt_window
from ragaudit.results.view import index_windows


def matrix_window_lines(results: dict, embedder: str) -> list[str]:
    """One sentence per chunking of `embedder` with chunks past its window, or whose
    window could not be measured; `not measured in this file` for an older file."""
    entries = [e for (spec, _), e in index_windows(results).items() if spec == embedder]
    if not entries or any("window_basis" not in e for e in entries):
        return [f"Input windows of {embedder}: {NOT_MEASURED}."]
    return [fmt_window(e) + "." for e in entries if e["over_window"] != 0]


def retrieved_window_tags(results: dict, record: dict, hit: dict) -> list[str]:
    """`310 tokens, over the 256-token window: …` when the retrieved chunk `hit` runs past
    the record's embedder's window; nothing when it fits or the file does not say."""
    entry = index_windows(results).get((record["embedder"], record.get("chunking")))
    tokens = ((entry or {}).get("over_window_chunks") or {}).get(hit["chunk_id"])
    return [] if tokens is None else [fmt_chunk_window(tokens, entry)]


def retrieved_window_note(results: dict, record: dict) -> str:
    """The record's index against its embedder's window, as one sentence."""
    return fmt_window(index_windows(results).get((record["embedder"], record.get("chunking"))))


def render_matrix_windows(results: dict, embedder: str) -> None:
    """The Matrix page's lines under the heatmap."""
    import streamlit as st

    for line in matrix_window_lines(results, embedder):
        st.caption(line)
