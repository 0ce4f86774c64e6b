"""One instance under one run, drawn for the Compare page's side-by-side view: its values,
its document's recorded chunk boundaries over the gold, trap and header spans (the
Instance page's drawing, ui.docview), and what it retrieved, in rank order."""

from __future__ import annotations

from ragaudit.results.format import NOT_RUN
from ragaudit.results.view import Column, chunking_of, config_by_name
from ragaudit.ui.docview import chunk_boxes, document_text, spans_of, timeline_figure
from ragaudit.ui.instance_page import held_roles, verdict_of


def _value(record: dict, name: str) -> str:
    value = record.get(name)
    return "null" if value is None else str(value)


def _doc_ids(record: dict) -> list[str]:
    """Answer-bearing documents first, then any other document a gold or trap span is in."""
    ids = list(record.get("answer_doc_ids") or [])
    for span in (record.get("gold_spans") or []) + (record.get("trap_spans") or []):
        if span["doc_id"] not in ids:
            ids.append(span["doc_id"])
    return ids


def render_side(side: str, name: str, results: dict, column: Column, record: dict | None) -> None:
    """Draw `record` (or why there is none) as run `side` (`A`, `B`) holds it."""
    import streamlit as st

    st.markdown(f"**Run {side}** · `{name}` · {column.label}")
    if record is None:
        st.write(f"{NOT_RUN}: run {side} has no record of this instance under {column.label}.")
        return
    st.markdown(
        f"gold in context **{_value(record, 'gold_in_context')}** · span preserved "
        f"**{_value(record, 'span_preserved')}** · gold rank {_value(record, 'gold_rank')} · "
        f"verdict {verdict_of(record)}"
    )
    config = config_by_name(results).get(column.config) or {}
    chunking = record.get("chunking") or chunking_of(config)
    for doc_id in _doc_ids(record)[:2]:
        _render_document(side, results, record, doc_id, chunking)
    _render_retrieved(record)


def _render_document(side: str, results: dict, record: dict, doc_id: str, chunking: str) -> None:
    import streamlit as st

    spans = spans_of(record, doc_id)
    boxes = chunk_boxes(results, doc_id, chunking, record.get("retrieved") or [])
    if boxes is None:
        st.caption(f"Run {side} records no chunk offsets for {doc_id} under {chunking}.")
        boxes = []
    doc = document_text(results, doc_id, spans)
    length = len(doc.text) if doc.text else max((b.end for b in boxes), default=1)
    st.plotly_chart(
        timeline_figure(boxes, spans, length, f"{side}: {doc_id} · {chunking}"),
        key=f"compare_doc_{side}_{doc_id}",
        config={"displayModeBar": False},
    )


def _render_retrieved(record: dict) -> None:
    import streamlit as st

    hits = sorted(record.get("retrieved") or [], key=lambda h: h["rank"])
    gold, trap = record.get("gold_spans") or [], record.get("trap_spans") or []
    rows = [
        {
            "rank": hit["rank"],
            "chunk": hit["chunk_id"],
            "score": hit.get("score"),
            "holds": ", ".join(held_roles(hit, gold, "gold") + held_roles(hit, trap, "trap")),
        }
        for hit in hits
    ]
    st.markdown(f"**Retrieved chunks** ({len(hits)}, in rank order)")
    st.dataframe(rows, hide_index=True, width="stretch")
