"""The report's section on table_split at 4000 characters (T4000, beside the matrix): its
retrieval, header and row together, answers by verdict, denials of record and the quoted
replies, all read from the results file through results.table_wide. A file without T4000
gets no section."""

from __future__ import annotations

from ragaudit.report.render import Block
from ragaudit.results import table_wide as wide


def table_wide_section(results: dict) -> list[Block]:
    """The section's blocks; none when the results file has no T4000 config."""
    check = wide.wide_check(results)
    if check is None:
        return []
    blocks: list[Block] = [
        ("h", 2, wide.TITLE),
        (
            "p",
            "The originating study widened the chunk to 4000 characters outside its matrix, "
            "so that each table's header and answer row share one chunk, and then asked for "
            "the answer. "
            "Reuniting them is a retrieval fix; whether the answer follows is what this "
            "section measures.",
        ),
        ("ul", wide.figure_lines(check)),
    ]
    quoted = wide.quoted_replies(check)
    if quoted is None:
        return blocks
    blocks.append(("p", f"Replies quoted: {wide.quote_rule(check)}."))
    if not quoted:
        return blocks + [("p", wide.NONE_QUOTED)]
    for heading, reply in quoted:
        blocks += [("p", heading), ("quote", reply)]
    return blocks
