"""The Lab's chunk timeline: the Instance page's drawing over the Lab's live chunking.

Where the Instance page draws the boundaries a run recorded, the Lab draws the ones its
current setting cuts (size, overlap, overlap rule, splitter), with the chunks the current
ranking retrieves at k marked by rank, so a span cut by a boundary or a header carried
forward by an overlap is seen as the setting changes. One instance: each of its documents
with a table of its boundaries. "All instances": one small timeline per instance.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ragaudit.results.format import fmt_ratio
from ragaudit.ui.docview import (
    ChunkBox,
    highlighted_html,
    spans_of,
    timeline_figure,
    timeline_parts,
)
from ragaudit.ui.lab_engine import corpus_documents

MAX_DOCUMENTS = 3
"""Documents drawn for one instance (a summarisation question names five)."""
GRID_COLUMNS = 3
"""Small multiples per row when all instances of a probe are drawn."""
ROW_PX = 170
"""Height of one row of small multiples, its title included."""
LANE_LABELS = 0.085
"""Share of the width left of each small multiple for its lane names."""


def instance_doc_ids(instance: Any) -> list[str]:
    """The instance's answer-bearing documents, then any other document a span lies in."""
    doc_ids = list(instance.answer_doc_ids)
    for span in (*instance.gold_spans, *instance.trap_spans, *instance.extra_spans):
        if span.doc_id not in doc_ids:
            doc_ids.append(span.doc_id)
    return doc_ids


def instance_spans(instance: Any, doc_id: str) -> list[dict]:
    """The instance's gold, trap and header spans in `doc_id`, as the drawing takes them."""
    record = {
        field: [asdict(span) for span in getattr(instance, field)]
        for field in ("gold_spans", "trap_spans", "extra_spans")
    }
    return spans_of(record, doc_id)


def lab_boxes(chunks: list[Any], hits: list[Any]) -> list[ChunkBox]:
    """One document's chunks under the Lab's chunking, each with its rank when `hits` (the
    top k of the current ranking) retrieved it."""
    ranks = {hit.chunk_id: hit.rank for hit in hits}
    return [
        ChunkBox(
            chunk.chunk_id if chunk.chunk_id in ranks else None,
            chunk.index,
            chunk.start,
            chunk.end,
            ranks.get(chunk.chunk_id),
            not getattr(chunk, "span_exact", True),
        )
        for chunk in chunks
    ]


def boundary_rows(boxes: list[ChunkBox], spans: list[dict]) -> list[dict]:
    """One row per chunk: its characters, its rank, the spans it holds whole and the spans
    one of its two boundaries cuts through (what the timeline shows, as text)."""
    rows = []
    for box in boxes:
        held = [s["role"] for s in spans if box.start <= s["start"] and s["end"] <= box.end]
        cut = [
            s["role"]
            for s in spans
            if s["start"] < box.start < s["end"] or s["start"] < box.end < s["end"]
        ]
        rows.append(
            {
                "chunk": f"#{box.index}",
                "chars": f"{box.start}–{box.end}",
                "length": box.end - box.start,
                "retrieved": "—" if box.rank is None else f"rank {box.rank}",
                "holds whole": ", ".join(held) or "—",
                "cuts through": ", ".join(cut) or "—",
            }
        )
    return rows


def render_instance_timeline(lab: Any, instance: Any, hits: list[Any]) -> None:
    """Each document of the instance drawn under the Lab's chunking, retrieved chunks by
    rank, with its boundaries as a table and its text with the chunk edges inline."""
    import streamlit as st

    doc_ids = instance_doc_ids(instance)
    if not doc_ids:
        st.caption("No answer-bearing document: this question has no answer in the corpus.")
        return
    texts = corpus_documents()
    for doc_id in doc_ids[:MAX_DOCUMENTS]:
        spans = instance_spans(instance, doc_id)
        boxes = lab_boxes(lab.view.by_doc.get(doc_id, []), hits)
        text = texts.get(doc_id, "")
        st.plotly_chart(
            timeline_figure(boxes, spans, len(text), f"{doc_id} · {lab.chunking}"),
            key=f"lab_timeline_{doc_id}",
            config={"displayModeBar": False},
        )
        with st.expander(f"Chunk boundaries of {doc_id} ({len(boxes)} chunks)"):
            st.table(boundary_rows(boxes, spans))
            st.markdown(highlighted_html(text, boxes, spans), unsafe_allow_html=True)
    if len(doc_ids) > MAX_DOCUMENTS:
        st.caption(f"Documents of this instance drawn: {fmt_ratio(MAX_DOCUMENTS, len(doc_ids))}.")


def render_small_multiples(
    lab: Any, instances: list[Any], rankings: dict[str, list[Any]], k: int
) -> None:
    """One small timeline per instance of the probe: its first answer-bearing document
    under the Lab's chunking, with the chunks its top `k` retrieves marked by rank."""
    import streamlit as st

    texts = corpus_documents()
    panels = []
    for instance in instances:
        doc_ids = instance_doc_ids(instance)
        if not doc_ids:
            continue
        hits = rankings[instance.instance_id][:k]
        title = instance.instance_id + (
            "" if doc_ids[0] == instance.instance_id else f" · {doc_ids[0]}"
        )
        boxes = lab_boxes(lab.view.by_doc.get(doc_ids[0], []), hits)
        panels.append(
            (title, boxes, instance_spans(instance, doc_ids[0]), len(texts.get(doc_ids[0], "")))
        )
    more = sum(1 for i in instances if len(instance_doc_ids(i)) > 1)
    st.markdown(f"**Every instance's first document under `{lab.chunking}`**, k={k}")
    if more:
        st.caption(
            f"Instances with more documents than the one drawn: {fmt_ratio(more, len(instances))}"
            "; choose one to see them all."
        )
    if panels:  # one chart: one validation and one browser render, not one per instance
        st.plotly_chart(
            small_multiples_figure(panels), key="lab_multiples", config={"displayModeBar": False}
        )


def small_multiples_figure(panels: list[tuple[str, list[ChunkBox], list[dict], int]]) -> dict:
    """One figure, a grid of the Instance page's timelines: each (title, boxes, spans,
    document length) in its own subplot, GRID_COLUMNS a row, its title above it. A plain
    dict: st.plotly_chart validates it once (a go.Figure here would be validated twice)."""
    rows = -(-len(panels) // GRID_COLUMNS)
    height = rows * ROW_PX
    data, shapes, titles, layout = [], [], [], {}
    for place, (title, boxes, spans, length) in enumerate(panels):
        axis = "" if place == 0 else str(place + 1)
        row, column = divmod(place, GRID_COLUMNS)
        traces, edges, lanes = timeline_parts(boxes, spans)
        data += [dict(t, xaxis=f"x{axis}", yaxis=f"y{axis}") for t in traces]
        shapes += [dict(e, xref=f"x{axis}", yref=f"y{axis} domain") for e in edges]
        left = column / GRID_COLUMNS
        top = 1 - row / rows
        layout[f"xaxis{axis}"] = {
            "domain": [left + LANE_LABELS, left + 1 / GRID_COLUMNS - 0.01],
            "range": [0, max(length, 1)],
            "anchor": f"y{axis}",
            "tickfont": {"size": 9},
        }
        layout[f"yaxis{axis}"] = {
            "domain": [top - (ROW_PX - 22) / height, top - 24 / height],  # ticks below, title above
            "anchor": f"x{axis}",
            "type": "category",
            "categoryorder": "array",
            "categoryarray": lanes,
            "tickfont": {"size": 9},
        }
        titles.append(
            {
                "text": f"<b>{title}</b>",
                "x": left + LANE_LABELS,
                "y": top,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "left",
                "yanchor": "top",
                "showarrow": False,
            }
        )
    layout.update(
        barmode="overlay",
        height=height + 20,
        shapes=shapes,
        annotations=titles,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        showlegend=False,
    )
    return {"data": data, "layout": layout}
