"""What a probe builds: documents, and instances that say where the truth and the trap sit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Layer = Literal["control", "architectural", "embedding"]


@dataclass(frozen=True)
class Span:
    """A stretch of one document's text: `doc.text[start:end] == text`."""

    doc_id: str
    start: int
    end: int
    text: str
    role: str = "gold"
    """What the span is to the probe: gold, trap, header, table_header, table_row,
    mapping, answer, item, copy, related (diagnostics look spans up by role; the table
    per probe is in docs/grading-spec.md)."""


@dataclass(frozen=True)
class Document:
    """One corpus document: its id, exact text and metadata."""

    doc_id: str
    text: str
    metadata: dict = field(default_factory=dict)
    """Free-form: title, date, supersedes, probe, instance_id, source_type."""


@dataclass(frozen=True)
class Instance:
    """One planted fault and the question that exercises it."""

    probe: str
    layer: Layer
    instance_id: str
    question: str
    gold_answer: str | list[str] | None
    """A value, a list of required items, or None when the corpus cannot answer."""
    gold_spans: tuple[Span, ...]
    """The gold sentence(s), each inside its document at its recorded span."""
    trap_spans: tuple[Span, ...] = ()
    """Competing text (distractor, superseded policy, wrong polarity, copies)."""
    extra_spans: tuple[Span, ...] = ()
    """Other spans diagnostics need: header line, table header/row, hop sentences."""
    answer_doc_ids: tuple[str, ...] = ()
    anchor: str | None = None
    """The distinctive key the question carries (a site code, a team name)."""
    grading: dict = field(default_factory=dict)
    """What this probe's grader needs: kind ('value'|'list'|'abstain'|'polarity'),
    accepted values, trap values, required items and their labels, ..."""
    meta: dict = field(default_factory=dict)
    """Probe-specific facts worth keeping (span length class, team number, ...)."""


@dataclass(frozen=True)
class BuiltInstance:
    """What a probe builder returns for one instance: its documents and the instance."""

    documents: tuple[Document, ...]
    instance: Instance


@dataclass(frozen=True)
class ProbeBuilder:
    """A registered probe: its name, layer and how to build instance number `index`.

    `build(rng, index, seed)` must draw all randomness from `rng` (seeded per instance
    from (seed, probe, index)) so that instance i is the same whatever n is. `seed` is
    passed for the collision-free identifiers in `ragaudit.probes.codes`.
    """

    name: str
    layer: Layer
    description: str
    build: object
    """Callable[[random.Random, int, int], BuiltInstance]."""
