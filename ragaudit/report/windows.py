"""The report's lines on embedder input windows: per (embedder, chunking) index, how many
chunks run past the embedder's window, so a tail its vector never saw is not silent."""

from __future__ import annotations

from ragaudit.report.render import Block
from ragaudit.results.format import NOT_MEASURED, fmt_window
from ragaudit.results.view import index_windows

HEADING = "Embedder input windows"


def windows_section(results: dict) -> list[Block]:
    """A heading and one line per index; `not measured in this file` when the file records
    no index or predates the window fields."""
    entries = list(index_windows(results).values())
    if not entries:
        return [("h", 2, HEADING), ("p", f"Input windows: {NOT_MEASURED}.")]
    return [
        ("h", 2, HEADING),
        (
            "p",
            "Chunks longer than the embedder's input window, per index (tokens counted with "
            "the embedder's own tokenizer unless marked estimated; no model call):",
        ),
        ("ul", [fmt_window(entry) for entry in entries]),
    ]
