"""One document drawn with a chunking's boundaries over its gold, trap and header spans.

The boundaries are the ones the run recorded (the results file's `chunk_offsets`); the
inspector never re-chunks a document. Two views of the same offsets: a plotly timeline
(chunks as bars in alternating lanes so overlaps show, spans as bands across them) and the
text itself with the spans marked and each chunk's start and end inline. A span cut by a
boundary is visible in both.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from ragaudit.results.format import APPROXIMATE_SPAN
from ragaudit.results.view import is_mutation_audit, span_exact
from ragaudit.ui.lab_engine import corpus_documents
from ragaudit.ui.user_corpus import mutant_texts, user_corpus

SPAN_COLOURS = {
    "gold": "#f9d648",
    "answer": "#f9d648",
    "item": "#f9d648",
    "table_row": "#f9d648",
    "mapping": "#fdb863",
    "trap": "#f28b82",
    "copy": "#f28b82",
    "header": "#8ab4f8",
    "table_header": "#8ab4f8",
}
"""Gold-like roles yellow/orange, traps red, headers blue; any other role purple."""


@dataclass(frozen=True)
class ChunkBox:
    """A chunk of the drawn document: offsets, and its id and rank if it was retrieved."""

    chunk_id: str | None
    """The chunk id of a retrieved chunk (as the record names it); None otherwise."""
    index: int
    start: int
    end: int
    rank: int | None
    approximate: bool = False
    """A stack chunk whose text its splitter rewrote: start/end are its best alignment."""


@dataclass(frozen=True)
class DocText:
    """A document's text and where it came from: "corpus" (the whole document, matching
    the record's spans), "mutant" (a mutation audit's mutant document, as the results file
    holds it), "results" (pieced from the chunks the file holds, possibly only the
    retrieved ones) or None (unavailable, `missing` saying why)."""

    text: str | None
    source: str | None
    missing: str | None = None


def document_text(results: dict, doc_id: str, spans: list[dict]) -> DocText:
    """The document's text: a mutant's own from the file; else the corpus copy (the user's
    corpus the run recorded for a mutation audit, the planted corpus for the matrix) if it
    agrees with the record's spans and the chunks the file holds; else pieced from those
    chunks (None if they leave gaps)."""
    if is_mutation_audit(results):
        mutant = mutant_texts(results).get(doc_id)
        if mutant is not None:
            return DocText(mutant, "mutant")
        corpus = user_corpus(results)
        text, where = corpus.documents.get(doc_id), corpus.problem
        if where is None and text is None:
            where = f"{corpus.path} holds no document {doc_id}"
    else:
        text, where = corpus_documents_or_none().get(doc_id), "no corpus was found"
    held = [c for c in results.get("chunks", {}).values() if c["doc_id"] == doc_id]
    if text is not None:
        pieces = [*spans, *(c for c in held if "text" in c)]
        if all(text[s["start"] : s["end"]] == s["text"] for s in pieces):
            return DocText(text, "corpus")
        where = f"{doc_id} on disk is not the text the run read"
    rebuilt = ""
    for start, piece in sorted((c["start"], c["text"]) for c in held if "text" in c):
        if start > len(rebuilt):
            return DocText(None, None, where)  # a gap: the file does not hold the document
        if start + len(piece) > len(rebuilt):
            rebuilt = rebuilt[:start] + piece
    return DocText(rebuilt, "results") if rebuilt else DocText(None, None, where)


def corpus_documents_or_none() -> dict[str, str]:
    """The corpus on disk by doc_id, or {} when there is none to read."""
    try:
        return corpus_documents()
    except Exception:  # noqa: BLE001 - no corpus on disk: the results file's chunks remain
        return {}


def chunk_boxes(
    results: dict, doc_id: str, chunking: str, retrieved: list[dict]
) -> list[ChunkBox] | None:
    """This document's chunks under `chunking` as the run recorded them (the results
    file's `chunk_offsets`), in chunk order, with retrieved ranks; None when the file
    records no offsets for it. Nothing is re-chunked here."""
    offsets = (results.get("chunk_offsets") or {}).get(chunking, {}).get(doc_id)
    if offsets is None:
        return None
    # A retrieved chunk is matched by its offsets (unique within one document).
    hits = {(h["start"], h["end"]): h for h in retrieved if h.get("doc_id") == doc_id}
    approximate = {
        (c["start"], c["end"])
        for c in (results.get("chunks") or {}).values()
        if c.get("doc_id") == doc_id and c.get("chunking") == chunking and not span_exact(c)
    }
    boxes = []
    for index, (start, end) in enumerate(offsets):
        hit = hits.get((start, end)) or {}
        inexact = (start, end) in approximate
        boxes.append(ChunkBox(hit.get("chunk_id"), index, start, end, hit.get("rank"), inexact))
    return boxes


def spans_of(record: dict, doc_id: str) -> list[dict]:
    """Gold, trap and header spans of a record that lie in `doc_id`."""
    spans = []
    for field in ("gold_spans", "trap_spans", "extra_spans"):
        for span in record.get(field) or []:
            if span["doc_id"] == doc_id:
                spans.append(span)
    return spans


def timeline_figure(boxes: list[ChunkBox], spans: list[dict], length: int, title: str):
    """Chunks as bars in two alternating lanes over the document, spans as coloured bands."""
    import plotly.graph_objects as go

    traces, shapes, lanes = timeline_parts(boxes, spans)
    layout = {
        "title": title,
        "shapes": shapes,
        "barmode": "overlay",
        "height": 120 + 34 * len(lanes),
        "margin": {"l": 10, "r": 10, "t": 40, "b": 30},
        "xaxis": {"range": [0, max(length, 1)], "title": "character offset"},
        "yaxis": {"type": "category", "categoryorder": "array", "categoryarray": lanes},
    }
    return go.Figure(data=traces, layout=layout)


def timeline_parts(
    boxes: list[ChunkBox], spans: list[dict]
) -> tuple[list[dict], list[dict], list[str]]:
    """The timeline's bar traces, its shapes (span bands, chunk edges) and its lanes (the
    y categories, bottom up), as plain dicts: one figure can hold several documents' parts.

    Dicts validated once by go.Figure: add_trace per bar and add_vline/add_vrect per line
    re-validate what is there (0.3 s for 8 chunks), too slow for the Lab's every toggle."""
    traces = [_chunk_bar(box) for box in boxes]
    shapes = []
    for span in spans:
        colour = SPAN_COLOURS.get(span.get("role", "gold"), "#c58af9")
        traces.append(_span_bar(span, colour))
        band = {"fillcolor": colour, "opacity": 0.25, "line": {"width": 0}, "layer": "below"}
        shapes.append(_across("rect", span["start"], span["end"], **band))
    for box in boxes:  # boundaries as thin lines so a cut through a band is obvious
        shapes.append(_across("line", box.start, box.start, line={"width": 1, "color": "#444"}))
        edge = {"width": 1, "dash": "dot", "color": "#444"}
        shapes.append(_across("line", box.end, box.end, line=edge))
    roles = sorted({s.get("role", "gold") for s in spans})
    return traces, shapes, ["chunks (even)", "chunks (odd)", *roles]


def _across(kind: str, x0: int, x1: int, **style) -> dict:
    """A shape spanning the plot's full height between two character offsets."""
    where = {"x0": x0, "x1": x1, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"}
    return {"type": kind, **where, **style}


def _span_bar(span: dict, colour: str) -> dict:
    """One span's bar, in its role's lane."""
    role = span.get("role", "gold")
    return {
        "type": "bar",
        "x": [span["end"] - span["start"]],
        "base": [span["start"]],
        "y": [role],
        "orientation": "h",
        "marker": {"color": colour},
        "hovertemplate": f"{role} span chars {span['start']}–{span['end']}<extra></extra>",
        "showlegend": False,
    }


def _chunk_bar(box: ChunkBox) -> dict:
    """One chunk's bar, in the lane of its index's parity so overlapping chunks show."""
    retrieved = box.rank is not None
    name = box.chunk_id or f"chunk #{box.index}"
    return {
        "type": "bar",
        "x": [box.end - box.start],
        "base": [box.start],
        "y": ["chunks (even)" if box.index % 2 == 0 else "chunks (odd)"],
        "orientation": "h",
        "marker": {
            "color": "#1a73e8" if retrieved else "#bdc1c6",
            "line": {"color": "#444", "width": 1},
            "pattern": {"shape": "/" if box.approximate else ""},  # hatched: not exact
        },
        "text": [
            f"#{box.index}"
            + (f" · rank {box.rank}" if retrieved else "")
            + (f" · {APPROXIMATE_SPAN}" if box.approximate else "")
        ],
        "textposition": "inside",
        "insidetextanchor": "middle",
        "hovertemplate": f"{name}<br>chars {box.start}–{box.end}"
        + (f" ({APPROXIMATE_SPAN})" if box.approximate else "")
        + (f"<br>retrieved at rank {box.rank}" if retrieved else "<br>not retrieved")
        + "<extra></extra>",
        "showlegend": False,
    }


def highlighted_html(
    text: str,
    boxes: list[ChunkBox],
    spans: list[dict],
    removals: dict[int, list[str]] | None = None,
) -> str:
    """The document with spans highlighted, overlaps shaded and chunk edges marked inline;
    `removals` (offset -> texts) drawn struck through where a mutant removed them."""
    removals = removals or {}
    cuts = {0, len(text), *removals}
    for box in boxes:
        cuts.update((box.start, box.end))
    for span in spans:
        cuts.update((span["start"], span["end"]))
    points = sorted(c for c in cuts if 0 <= c <= len(text))
    starts = {}
    ends = {}
    for box in boxes:
        starts.setdefault(box.start, []).append(box)
        ends.setdefault(box.end, []).append(box)
    out = []
    for a, b in zip(points, points[1:], strict=False):
        for box in ends.get(a, []):
            out.append(f'<span class="ra-edge">⟩{box.index}</span>')
        for box in starts.get(a, []):
            label = f"{box.index}" + (f" r{box.rank}" if box.rank else "")
            label += " ≈" if box.approximate else ""
            out.append(f'<span class="ra-edge ra-start">⟨{label}</span>')
        out += [f'<del class="ra-removed">{_escaped(t)}</del>' for t in removals.get(a, [])]
        covering = sum(1 for box in boxes if box.start <= a and box.end >= b)
        roles = [s.get("role", "gold") for s in spans if s["start"] <= a and s["end"] >= b]
        style = []
        if roles:
            style.append(f"background:{SPAN_COLOURS.get(roles[0], '#c58af9')}")
        elif covering >= 2:
            style.append("background:#e8eaed")
        if covering >= 2:
            style.append("text-decoration:underline dotted #1a73e8")
        segment = _escaped(text[a:b])
        out.append(f'<span style="{";".join(style)}">{segment}</span>' if style else segment)
    for box in ends.get(len(text), []):
        out.append(f'<span class="ra-edge">⟩{box.index}</span>')
    out += [f'<del class="ra-removed">{_escaped(t)}</del>' for t in removals.get(len(text), [])]
    css = (
        "<style>.ra-doc{white-space:pre-wrap;font-family:monospace;font-size:13px;line-height:1.6;"
        "border:1px solid #ddd;padding:8px;border-radius:4px}"
        ".ra-edge{color:#fff;background:#444;font-size:10px;padding:0 2px;"
        "border-radius:2px;margin:0 1px}"
        ".ra-start{background:#1a73e8}.ra-removed{color:#a50e0e;background:#fce8e6}</style>"
    )
    return css + '<div class="ra-doc">' + "".join(out) + "</div>"


def _escaped(text: str) -> str:
    """Text for the drawing's HTML, its line breaks as character references: st.markdown
    ends an HTML block at a blank line and reads what follows as Markdown (a document's
    `## heading` drawn as a heading), so the drawing is one line that renders as many."""
    return html.escape(text).replace("\n", "&#10;")
