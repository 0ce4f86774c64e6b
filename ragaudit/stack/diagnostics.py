"""Model-free diagnostics: what reached the model, and why, from spans and chunk spans only.

A span is *in* a chunk when they share a document and chunk.start ≤ span.start and
span.end ≤ chunk.end. Nothing here reads a model's output; scores come from the ranking.
Every record gets the common fields; a probe's own fields come from its declaration
(`Probe.diagnostics`), each measured by the function it names (built-in ones in
`ragaudit.stack.measures`).
"""

from __future__ import annotations

import functools
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ragaudit.probes.base import Instance, Probe, Span
from ragaudit.probes.catalogue import shipped
from ragaudit.registry import Registry, resolve

# Fields every record carries (null where the probe has none, never omitted): these, then
# each probe's own (declared on its Probe), then anchor_selectivity.
COMMON_FIELDS = (
    "gold_in_context",
    "span_preserved",
    "gold_rank",
    "gold_score",
    "trap_rank",
    "trap_score",
    "margin",
)
LAST_FIELDS = ("anchor_selectivity",)


def diagnostic_fields(probes: Sequence[Probe] | None = None) -> tuple[str, ...]:
    """Every diagnostic field of a record, in record order: COMMON_FIELDS, the fields the
    probes declare (by their `column`, then in probe order), LAST_FIELDS. `probes`
    defaults to the shipped planted probes."""
    return _fields_of(tuple(shipped() if probes is None else probes))


@functools.cache
def _fields_of(probes: tuple[Probe, ...]) -> tuple[str, ...]:
    declared = [
        (d.column is None, d.column or 0, position, d.field)
        for position, probe in enumerate(probes)
        for d in probe.diagnostics
    ]
    own = dict.fromkeys(field for *_, field in sorted(declared))
    return (*COMMON_FIELDS, *own, *LAST_FIELDS)


def span_in(span: Span, chunk: Any) -> bool:
    """The whole span lies inside the chunk (same document)."""
    return chunk.doc_id == span.doc_id and chunk.start <= span.start and span.end <= chunk.end


class ChunkingView:
    """One chunking's chunks, indexed by document, with anchor counts memoised: the one
    place both the run's diagnostics and `ragaudit corpus --stats` ask where spans lie."""

    def __init__(self, name: str, chunks: Sequence[Any]) -> None:
        self.name = name
        self.chunks = list(chunks)
        self.by_doc: dict[str, list[Any]] = defaultdict(list)
        for chunk in self.chunks:
            self.by_doc[chunk.doc_id].append(chunk)
        self._lowered: list[str] | None = None
        self._anchor_counts: dict[str, int] = {}

    def holding(self, span: Span) -> list[Any]:
        """Chunks of this chunking that hold the span whole."""
        return [chunk for chunk in self.by_doc.get(span.doc_id, ()) if span_in(span, chunk)]

    def preserved(self, span: Span) -> bool:
        """Some chunk holds the span whole (the boundary did not cut it)."""
        return bool(self.holding(span))

    def together(self, first: Span, second: Span) -> bool:
        """Some single chunk holds both spans whole."""
        return any(span_in(second, chunk) for chunk in self.holding(first))

    def anchor_selectivity(self, anchor: str) -> int:
        """How many chunks contain the anchor as a whole phrase (case-insensitive; "7800"
        does not count inside "17800"): how far the anchor alone narrows the index."""
        key = anchor.lower()
        if key not in self._anchor_counts:
            if self._lowered is None:
                self._lowered = [chunk.text.lower() for chunk in self.chunks]
            phrase = re.compile(r"(?<![a-z0-9])" + re.escape(key) + r"(?![a-z0-9])")
            self._anchor_counts[key] = sum(
                1 for text in self._lowered if key in text and phrase.search(text)
            )
        return self._anchor_counts[key]


def spans_with_role(instance: Instance, *roles: str) -> list[Span]:
    """The instance's spans (gold, trap, extra) whose role is one of `roles`."""
    every = (*instance.gold_spans, *instance.trap_spans, *instance.extra_spans)
    return [span for span in every if span.role in roles]


def _best(spans: Iterable[Span], ranking: Sequence[Any], chunks: dict[str, Any]) -> Any | None:
    """The best-ranked hit whose chunk holds any of the spans whole."""
    spans = list(spans)
    for hit in ranking:
        chunk = chunks[hit.chunk_id]
        if any(span_in(span, chunk) for span in spans):
            return hit
    return None


def _all_in(spans: Sequence[Span], retrieved: Sequence[Any], chunks: dict[str, Any]) -> bool:
    return all(any(span_in(span, chunks[h.chunk_id]) for h in retrieved) for span in spans)


@dataclass(frozen=True)
class Measurement:
    """What a probe's own diagnostic is measured on: one instance under one config.

    Handed to every `Diagnostic.measure`; its helpers answer the questions measures ask
    (which spans have a role, did they all arrive, which hit holds them first)."""

    instance: Instance
    view: ChunkingView
    """The config's chunking: where spans lie, whole or cut."""
    ranking: Sequence[Any]
    """The config's ranking to the pool depth (hits with chunk_id, rank, score)."""
    k: int
    chunks: dict[str, Any]
    """Chunk id -> chunk, for every chunk a hit may name."""
    common: dict
    """The common fields already measured (gold_score, trap_score, ...)."""

    @property
    def retrieved(self) -> Sequence[Any]:
        """The first k hits: what reached the model."""
        return self.ranking[: self.k]

    def spans(self, *roles: str) -> list[Span]:
        """The instance's spans whose role is one of `roles`."""
        return spans_with_role(self.instance, *roles)

    def all_retrieved(self, spans: Sequence[Span]) -> bool:
        """Every one of `spans` lies whole in some retrieved chunk."""
        return _all_in(spans, self.retrieved, self.chunks)

    def best(self, spans: Iterable[Span], within: Sequence[Any] | None = None) -> Any | None:
        """The best-ranked hit of `within` (default: the whole ranking) whose chunk holds
        any of `spans` whole; None when none does."""
        return _best(spans, self.ranking if within is None else within, self.chunks)


def _declaration(name: str, probes: Registry[Probe] | None) -> Probe | None:
    if probes is None:
        return _by_name(shipped()).get(name)
    return probes.get(name) if name in probes else None


@functools.cache
def _by_name(probes: tuple[Probe, ...]) -> dict[str, Probe]:
    return {probe.name: probe for probe in probes}


def _declared(probes: Registry[Probe]) -> list[Probe]:
    return [probes.get(name) for name in probes]


@functools.cache
def _measure(target: str) -> Any:
    # Imported once per process: measures are looked up per instance and config.
    return resolve(target)


def diagnose(
    instance: Instance,
    view: ChunkingView,
    ranking: Sequence[Any],
    k: int,
    chunks: dict[str, Any],
    probes: Registry[Probe] | None = None,
) -> dict:
    """Every diagnostic field for one instance under one config.

    `ranking` is the config's ranking (dense, or fused for hybrid) to the pool depth;
    the first `k` hits are what reached the model. Ranks and scores are read from the whole
    ranking, so a gold rank above k means ranked but not retrieved; None means not ranked
    within the pool. `chunks` maps chunk ids to chunks (any chunking). The instance's
    probe adds its own fields (`Probe.diagnostics`), looked up in `probes` (default: the
    shipped probes); an instance of a probe no registry holds gets the common fields only.
    """
    retrieved = ranking[:k]
    fields = diagnostic_fields(None if probes is None else _declared(probes))
    out: dict[str, Any] = dict.fromkeys(fields)
    gold = list(instance.gold_spans)
    traps = list(instance.trap_spans)
    if gold:
        out["gold_in_context"] = _all_in(gold, retrieved, chunks)
        out["span_preserved"] = span_preserved(instance, view)
        hit = _best(gold, ranking, chunks)
        if hit is not None:
            out["gold_rank"], out["gold_score"] = hit.rank, hit.score
        else:
            out["gold_rank_reason"] = "no chunk holding a gold span was ranked within the pool"
    if traps and gold:
        trap_hit = _best(traps, ranking, chunks)
        if trap_hit is not None:
            out["trap_rank"], out["trap_score"] = trap_hit.rank, trap_hit.score
        if out["gold_score"] is not None and out["trap_score"] is not None:
            out["margin"] = out["gold_score"] - out["trap_score"]
    probe = _declaration(instance.probe, probes)
    if probe is not None and probe.diagnostics:
        measurement = Measurement(instance, view, ranking, k, chunks, out)
        for diagnostic in probe.diagnostics:
            out[diagnostic.field] = _measure(diagnostic.measure)(measurement)
    if instance.anchor:
        out["anchor_selectivity"] = view.anchor_selectivity(instance.anchor)
    return out


def span_preserved(instance: Instance, view: ChunkingView) -> bool:
    """Every gold span lies whole in some chunk: no chunk boundary cut it."""
    return all(view.preserved(span) for span in instance.gold_spans)


def header_in_answer_chunk(instance: Instance, view: ChunkingView) -> bool:
    """A boundary instance's section header shares one chunk with its answer (both whole)."""
    headers = spans_with_role(instance, "header")
    return bool(headers) and all(
        view.together(span, header) for span in instance.gold_spans for header in headers
    )


def table_together(instance: Instance, view: ChunkingView) -> bool | None:
    """Header and answer row of a table_split instance whole inside one chunk."""
    headers = spans_with_role(instance, "table_header")
    rows = spans_with_role(instance, "table_row") or list(instance.gold_spans)
    if not headers or not rows:
        return None
    return all(view.together(row, header) for row in rows for header in headers)


def affirmative_first(
    gold: Sequence[Span], traps: Sequence[Span], retrieved: Sequence[Any], chunks: dict[str, Any]
) -> bool | None:
    """Negation ordering among retrieved chunks: True when the affirmative twin (the trap)
    arrived above the negated gold; None when neither arrived (nothing was ordered)."""
    gold_hit = _best(gold, retrieved, chunks)
    trap_hit = _best(traps, retrieved, chunks)
    if gold_hit is None and trap_hit is None:
        return None
    if gold_hit is None:
        return True
    if trap_hit is None:
        return False
    return trap_hit.rank < gold_hit.rank


def anchor_summary(instances: Sequence[Instance], view: ChunkingView) -> dict:
    """Anchor selectivity over one chunking: for the questions that carry an anchor, the
    chunks holding it (min / median / max), and the questions and probes whose anchor sits
    in a single chunk (a lookup key, not a search)."""
    counts = {i.instance_id: view.anchor_selectivity(i.anchor) for i in instances if i.anchor}
    summary: dict[str, Any] = {"chunking": view.name, "chunks": len(view.chunks)}
    if not counts:
        return {
            **summary,
            **dict.fromkeys(("min", "median", "max")),
            "single_chunk": 0,
            "single_chunk_probes": [],
            "questions": 0,
            "reason": "no question carries an anchor",
        }
    single = {i.probe for i in instances if counts.get(i.instance_id) == 1}
    return {
        **summary,
        "min": min(counts.values()),
        "median": statistics.median(counts.values()),
        "max": max(counts.values()),
        "single_chunk": sum(count == 1 for count in counts.values()),
        "single_chunk_probes": sorted(single),
        "questions": len(counts),
    }
