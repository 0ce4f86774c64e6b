"""What a probe builds: documents, and instances that say where the truth and the trap sit."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ragaudit.documents import Document

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
class Diagnostic:
    """A model-free measure one probe's records carry beside the fields every record has."""

    field: str
    """The record field it fills (null on every other probe's records)."""
    measure: str
    """``"module:function"``, imported when first measured: `function(measurement)` gets a
    `ragaudit.stack.diagnostics.Measurement` (the instance, its chunking, its ranking) and
    returns the field's value. A string, so a probe module imports nothing from stack/."""
    column: int | None = None
    """Where the field sits among the probe-specific fields of a record and an export:
    the six fields results files have always had keep 0 to 5; None puts a new field after
    them, in probe order."""


PLANTED_CHUNKS_PER_INSTANCE = 795 / 275
"""Chunks the planted corpus holds per instance at its reference chunking, filler
included: 795 at n=25 over the eleven probes. A probe whose documents are much longer than
a page may declare its own share."""


@dataclass(frozen=True)
class Probe:
    """A registered probe: what it plants, and everything the run derives from it.

    `build(rng, index, seed)` must draw all randomness from `rng` (seeded per instance
    from (seed, probe, index)) so that instance i is the same whatever n is. `seed` is
    passed for the collision-free identifiers in `ragaudit.probes.codes`.
    """

    name: str
    layer: Layer
    """control, architectural or embedding: which part of a stack the fault tests."""
    description: str
    """One line: what the probe plants."""
    build: Callable[[random.Random, int, int], BuiltInstance]
    slot: int | None = None
    """Its block of section codes (`codes.section_code`); unique across probes, and never
    reused, since the codes of every instance follow from it. None: it draws no codes."""
    answer_position: int | None = None
    """Set for an answer probe (its question has a value, a list or an abstention to
    grade, so the reference preset generates for it): its place in that preset's list,
    which plans and results files record in order. None: not an answer probe."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """Its own measures, beside the fields every record carries."""
    family: str = "planted"
    """Where its instances come from: `planted` probes build the generated corpus; any
    other family (mutations of a user's corpus, say) builds its own and is skipped there."""
    chunks_per_instance: float = PLANTED_CHUNKS_PER_INSTANCE
    """Its share of the planted corpus's chunk target, which filler tops up to."""

    @property
    def answers(self) -> bool:
        """An answer probe (see `answer_position`)."""
        return self.answer_position is not None
