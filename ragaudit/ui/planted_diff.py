"""The planted diff of a mutation audit's record (`ragaudit mutate`): the mutant document as
the operator left it, every stretch of planted text highlighted over the chunk boundaries
the run recorded for it, beside the unified diff against the original. Read from the
results file's `mutation` section and `chunk_offsets` only; nothing is re-chunked."""

from __future__ import annotations

from dataclasses import dataclass, field

from ragaudit.ui.docview import ChunkBox, chunk_boxes, highlighted_html

PLANTED = "planted"
"""The role planted text is drawn with (before the record's own spans, so it colours)."""


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


def planted_view(results: dict, record: dict) -> PlantedView | None:
    """The planted diff of `record` (None for a control record or a file of another run)."""
    section = results.get("mutation") or {}
    name = (record.get("meta") or {}).get("mutant")
    mutant = next((m for m in section.get("mutants") or [] if m.get("mutant") == name), None)
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
        drawn = highlighted_html(text, _within(boxes or [], len(text)), _inside(spans, text))
    return PlantedView(
        mutant=name, operator=mutant.get("operator", ""), rule=mutant.get("rule", ""),
        doc_id=doc_id if text is not None else None, text=text, boxes=boxes, spans=spans,
        diff=mutant.get("diff") or "", removed=list(mutant.get("removed") or []),
        validity=list(mutant.get("validity") or []), html=drawn,
    )  # fmt: skip


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
    if view.html is not None:
        chunks = "chunks not recorded" if view.boxes is None else f"{len(view.boxes)} chunks"
        st.caption(
            f"`{view.doc_id}` as planted ({chunks}): planted text in purple, the gold "
            "sentence yellow, a trap red; ⟨n⟩ marks chunk n's edges."
        )
        st.markdown(view.html, unsafe_allow_html=True)
    if view.diff:
        with st.expander("Diff against the original"):
            st.code(view.diff, language="diff")
    failed = [c for c in view.validity if not c.get("passed")]
    checks = f"{len(view.validity) - len(failed)} of {len(view.validity)} validity checks pass"
    st.caption(checks + "".join(f"; {c['check']}: {c.get('detail')}" for c in failed))
