"""What the mutation view lists under its heatmap: the mutants of one cell (an operator in
one file) grouped by status, each with what its status rests on and a link to its
phrasing on the Instance page; and, per file, the control row's phrasings under both
measures, the closed-book row and the score table. Every sentence and row is
results.mutation's, the words the report prints."""

from __future__ import annotations

import re

from ragaudit.results.mutation import (
    SCORE_HEADER,
    closed_book_line,
    closed_book_phrasings,
    control_paragraph,
    control_phrasings,
    drop_summary,
    drops_text,
    mutant_text,
    operator_mutants,
    phrasing_of,
    score_row,
    score_rows,
    status_words,
    survivors_by_mutant,
    variant,
)
from ragaudit.ui.common import PAGES, link_params
from ragaudit.ui.mutation_files import AuditColumn

SHOWN = 20
"""Mutants of one status drawn open; the rest wait in an expander."""
LIST_KEY = "mutation_list"
"""The container of the selected cell's list (`.st-key-mutation_list` in a browser);
each status's group is `mutation_status_<status>`, each mutant `mutation_mutant_<id>`
with every character but letters, digits, `-` and `_` made `_`."""


def element_key(prefix: str, name: str) -> str:
    """A widget or container key for `name` that a CSS class selector can name."""
    return f"{prefix}_{re.sub(r'[^A-Za-z0-9_-]', '_', name)}"


def plain(text: str) -> str:
    """`text` shown as written in Markdown: its emphasis, code, link, HTML, maths and
    table characters escaped (`table_split` is not emphasis)."""
    return _MARKDOWN.sub(r"\\\1", text)


_MARKDOWN = re.compile(r"([\\`*_\[\]<>$~|])")


def _records(results: dict) -> dict[tuple[str, str], dict]:
    """(mutant id, phrasing) -> its record."""
    return {
        ((r.get("meta") or {}).get("mutant"), r["instance_id"]): r
        for r in results.get("instances") or []
    }


def instance_link(
    column: AuditColumn, mutant: dict, survivor: dict | None, records: dict
) -> dict | None:
    """The Instance page's query params for the mutant's phrasing (a survivor's first
    losing one): operator, column, embedder and phrasing, with the file when it is not the
    open one; None for a mutant no phrasing was asked against."""
    case = phrasing_of(mutant, survivor)
    record = records.get((mutant["mutant"], case))
    if record is None:
        return None
    suffix = variant(mutant["mutant"])
    params = {
        "probe": record["probe"],
        "config": record["config"],
        "embedder": record["embedder"],
        "instance": f"{case}@{suffix}" if suffix else case,
    }
    if column.opened:
        return link_params(**params)  # the session's own file, as its URL names it
    return {**params, "results": str(column.path)}


def _peers(column: AuditColumn, columns: list[AuditColumn]) -> list[AuditColumn]:
    """The other files whose mutants pair with this one's by mutant id."""
    return [c for c in columns if c is not column and column.paired and c.paired]


def _mutant_row(column: AuditColumn, mutant: dict, survivor, records, peers) -> None:
    import streamlit as st

    lines = [f"`{mutant['mutant']}` · {plain(mutant_text(mutant, survivor))}"]
    rule = mutant.get("rule")
    if rule:  # as written: `'128*1024' -> …` is not emphasis, nor an arrow
        lines.append(f"rule: `{rule}`" if "`" not in rule else f"rule: {plain(rule)}")
    drops = drops_text(mutant)
    if drops:
        lines.append(f"top score drop: {drops}")
    for peer in peers:
        other = next((m for m in peer.results["mutation"]["mutants"]
                      if m["mutant"] == mutant["mutant"]), None)  # fmt: skip
        shown = status_words(other["status"]) if other else "no such mutant"
        lines.append(f"in {plain(peer.label)}: **{shown}**")
    params = instance_link(column, mutant, survivor, records)
    with st.container(key=element_key("mutation_mutant", mutant["mutant"])):
        text, link = st.columns([6, 1], vertical_alignment="center")
        text.markdown("  \n".join(lines))
        if params is not None:
            link.page_link(PAGES["instance"], label="Open", query_params=params,
                           help=f"{mutant['mutant']}, phrasing {params['instance']}, "
                                "on the Instance page")  # fmt: skip


def render_mutant_list(column: AuditColumn, operator: str, columns: list[AuditColumn]) -> None:
    """The cell's score in words, then its mutants grouped by status (survivors first)."""
    import streamlit as st

    section = column.results["mutation"]
    score = next((s for s in section.get("scores") or [] if s["operator"] == operator), None)
    with st.container(key=LIST_KEY, border=True):
        if score is None:
            st.write(f"{column.label} did not run {operator}.")
            return
        row = score_row(score)
        beside = f" · {', '.join(row.counts())}" if row.counts() else ""
        head = f"killed / applicable {row.shown}{beside}"
        st.markdown(f"**{plain(operator)} × {plain(column.label)}**: {plain(head)}")
        groups = operator_mutants(section, operator)
        if not groups:
            st.write(f"{operator} made no mutant in this file.")
        survivors, records = survivors_by_mutant(section), _records(column.results)
        peers = _peers(column, columns)
        for status, mutants in groups.items():
            with st.container(key=element_key("mutation_status", status)):
                st.markdown(f"**{status_words(status)}** ({len(mutants)})")
                for mutant in mutants[:SHOWN]:
                    _mutant_row(column, mutant, survivors.get(mutant["mutant"]), records, peers)
                if len(mutants) > SHOWN:
                    with st.expander(f"{len(mutants) - SHOWN} more {status_words(status)}"):
                        for mutant in mutants[SHOWN:]:
                            survivor = survivors.get(mutant["mutant"])
                            _mutant_row(column, mutant, survivor, records, peers)


def render_file_rows(column: AuditColumn, index: int) -> None:
    """One file's control row (its phrasings under both measures), its closed-book row,
    remove_answer's top score drop and the report's score table."""
    import streamlit as st

    results = column.results
    section = results["mutation"]
    st.markdown(plain(control_paragraph(section)))
    st.dataframe(control_phrasings(results), hide_index=True, width="stretch",
                 key=f"mutation_control_{index}")  # fmt: skip
    closed = closed_book_line(section)
    st.markdown(plain(closed or "Closed-book row: not recorded in this file."))
    asked = closed_book_phrasings(results)
    if asked:
        st.dataframe(asked, hide_index=True, width="stretch", key=f"mutation_closed_{index}")
    drop = drop_summary(section)
    if drop:
        st.markdown(plain(drop))
    st.table([dict(zip(SCORE_HEADER, row.cells(), strict=True)) for row in score_rows(section)])
