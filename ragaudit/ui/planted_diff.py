"""The planted diff of a mutation audit's record (`ragaudit mutate`): the mutant document as
the operator left it, every stretch of planted text highlighted over the chunk boundaries
the run recorded for it (its chunks under the user's column), the answer's sentence and any
trap in it marked, a removed fact struck through where it stood, beside the unified diff
against the original. Read from the results file's `mutation` section and `chunk_offsets`
only; nothing is re-chunked."""

from __future__ import annotations

from dataclasses import dataclass, field

from ragaudit.results.view import mutant_of
from ragaudit.ui.docview import ChunkBox, chunk_boxes, highlighted_html, timeline_figure

PLANTED = "planted"
"""The role planted text is drawn with (before the record's own spans, so it colours)."""
REMOVED_FACT = "removed_fact"
"""A planted span's role where remove_answer took a fact out (an empty span: a point)."""


@dataclass(frozen=True)
class PlantedView:
    """What the Instance page draws for one mutant record."""

    mutant: str
    operator: str
    rule: str
    doc_id: str | None
    """The mutant document (None: the operator removed documents and added none)."""
    text: str | None
    boxes: list[ChunkBox] | None
    """Its chunks as the run recorded them (None: no offsets recorded for it)."""
    spans: list[dict] = field(default_factory=list)
    """Planted spans (role PLANTED, their edit's role in `what`), then the record's own."""
    diff: str = ""
    removed: list[str] = field(default_factory=list)
    validity: list[dict] = field(default_factory=list)
    html: str | None = None
    chunking: str = ""
    removed_facts: list[dict] = field(default_factory=list)
    """The facts remove_answer took out, in their original documents (`removed_facts`)."""


def planted_view(results: dict, record: dict) -> PlantedView | None:
    """The planted diff of `record` (None for a control record or a file of another run)."""
    mutant = mutant_of(results, record)
    if mutant is None or mutant.get("status") in ("control", "not_applicable"):
        return None
    doc_id, text = mutant.get("mutant_doc_id"), mutant.get("mutant_text")
    planted = [
        {**s, "role": PLANTED, "what": s.get("role")}
        for s in mutant.get("planted") or []
        if s.get("doc_id") == doc_id
    ]
    own = [
        s
        for key in ("gold_spans", "trap_spans", "extra_spans")
        for s in record.get(key) or []
        if s.get("doc_id") == doc_id
    ]
    chunking, hits = record.get("chunking") or "", record.get("retrieved") or []
    boxes = chunk_boxes(results, doc_id, chunking, hits) if doc_id else None
    spans = planted + own
    drawn = None
    if text is not None:
        removals = removal_points(mutant)
        drawn = highlighted_html(
            text, _within(boxes or [], len(text)), _inside(spans, text), removals
        )
    return PlantedView(
        mutant=mutant["mutant"], operator=mutant.get("operator", ""), rule=mutant.get("rule", ""),
        doc_id=doc_id if text is not None else None, text=text, boxes=boxes, spans=spans,
        diff=mutant.get("diff") or "", removed=list(mutant.get("removed") or []),
        validity=list(mutant.get("validity") or []), html=drawn, chunking=chunking,
        removed_facts=list(mutant.get("removed_facts") or []),
    )  # fmt: skip


def removal_points(mutant: dict) -> dict[int, list[str]]:
    """offset in the mutant document -> the fact text removed there. The removal points
    (empty planted spans) follow the original document's removed facts in order; when the
    counts differ, each point says only that something was removed."""
    points = sorted(
        s["start"]
        for s in mutant.get("planted") or []
        if s.get("role") == REMOVED_FACT and s.get("doc_id") == mutant.get("mutant_doc_id")
    )
    facts = sorted(
        (f for f in mutant.get("removed_facts") or [] if f.get("doc_id") == mutant.get("doc_id")),
        key=lambda f: f["start"],
    )
    texts = [f["text"] for f in facts] if len(facts) == len(points) else ["(removed)"] * len(points)
    out: dict[int, list[str]] = {}
    for point, text in zip(points, texts, strict=True):
        out.setdefault(point, []).append(text)
    return out


LISTED_CHUNKS = 12
"""Past this many chunks, the boundary line lists those around the planted text only."""


def boundary_line(view: PlantedView) -> str:
    """The mutant document's chunk boundaries in characters, as the run recorded them (of a
    long document, the chunks touching a planted or marked span or retrieved, and their
    neighbours)."""
    if view.boxes is None:
        return (
            f"`{view.doc_id}`: the results file records no chunk offsets for it under "
            f"`{view.chunking}` (chunk_offsets), so its chunk boundaries are not drawn."
        )
    listed = view.boxes
    if len(listed) > LISTED_CHUNKS:
        near = {
            b.index + step
            for b in listed
            if b.rank or any(b.start <= s["end"] and s["start"] <= b.end for s in view.spans)
            for step in (-1, 0, 1)
        }
        listed = [b for b in listed if b.index in near]
    shown = " · ".join(
        f"#{b.index} {b.start}–{b.end}" + (f" (rank {b.rank})" if b.rank else "") for b in listed
    )
    some = (
        ""
        if len(listed) == len(view.boxes)
        else (f" ({len(listed)} of {len(view.boxes)} chunks: those around the planted text)")
    )
    return f"Chunks of `{view.doc_id}` under `{view.chunking}` (characters){some}: {shown}"


def _inside(spans: list[dict], text: str) -> list[dict]:
    """The spans that lie in the text (a hand-edited file may hold others)."""
    return [s for s in spans if 0 <= s["start"] <= s["end"] <= len(text)]


def _within(boxes: list[ChunkBox], length: int) -> list[ChunkBox]:
    return [b for b in boxes if 0 <= b.start <= b.end <= length]


def render_planted(results: dict, record: dict) -> None:
    """The Instance page's planted-diff section (nothing for a record of another run)."""
    view = planted_view(results, record)
    if view is None:
        return
    import streamlit as st

    st.markdown(f"**Planted by `{view.operator}`** ({view.mutant}): {view.rule}")
    if view.removed:
        st.markdown("Removed documents: " + ", ".join(f"`{d}`" for d in view.removed))
    _render_removed_facts(view.removed_facts)
    if view.html is not None:
        st.markdown(boundary_line(view))
        drawn = [s for s in _inside(view.spans, view.text or "") if s["end"] > s["start"]]
        st.plotly_chart(
            timeline_figure(
                _within(view.boxes or [], len(view.text or "")),
                drawn,
                len(view.text or ""),
                f"{view.doc_id} · {view.chunking}",
            ),
            key="instance_planted_timeline",
            config={"displayModeBar": False},
        )
        st.caption(
            f"`{view.doc_id}` as planted: planted text in purple, the answer's sentence "
            "yellow, a trap red, a removed fact struck through; ⟨n⟩ marks chunk n's edges "
            "(rN: retrieved at rank N for this phrasing)."
        )
        st.markdown(view.html, unsafe_allow_html=True)
    if view.diff:
        with st.expander("Diff against the original"):
            st.code(view.diff, language="diff")
    failed = [c for c in view.validity if not c.get("passed")]
    checks = f"{len(view.validity) - len(failed)} of {len(view.validity)} validity checks pass"
    st.caption(checks + "".join(f"; {c['check']}: {c.get('detail')}" for c in failed))


def _render_removed_facts(facts: list[dict]) -> None:
    import streamlit as st

    if not facts:
        return
    st.markdown(
        f"**Removed facts** ({len(facts)}):\n"
        + "\n".join(
            f"- `{f['doc_id']}` chars {f['start']}–{f['end']} ({f.get('kind')}): {f['text']}"
            for f in facts
        )
    )
