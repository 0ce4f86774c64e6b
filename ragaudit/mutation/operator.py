"""What an operator is: it takes one intent's answer in its document and returns a plan of
the mutant (the edits to plant, what the right answer then is, what the trap is), or says
why it cannot apply to that intent. Operators are LLM-free; all randomness comes from a
generator seeded by (seed, operator, document), so a run is the same for the same seed, and
two intents in one document get one consistent mutant of it."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ragaudit.documents import Document
from ragaudit.mutation.cases import MutationIntent
from ragaudit.mutation.edits import Edit
from ragaudit.mutation.text import sentence_around
from ragaudit.probes.base import Probe

Splitter = Callable[[Document], list[tuple[int, int]]]
"""The user's splitter on one document: its chunks' [start, end) offsets, in order."""

PIPELINE_CHUNKS = "not applicable: a pipeline's chunks are its own"


@dataclass(frozen=True)
class Context:
    """What every operator may read: the corpus, every intent, the seed and the splitter."""

    documents: tuple[Document, ...]
    intents: tuple[MutationIntent, ...]
    seed: int
    splitter: Splitter | None
    """None when ragaudit cannot cut the corpus as the stack does (a pipeline)."""
    splitter_reason: str = PIPELINE_CHUNKS
    in_window: Callable[[str, int], bool | None] | None = None
    """Whether text[:offset] of a chunk fits the embedder's input window (None: unknown,
    or ragaudit does not embed for this column)."""

    def rng(self, operator: str, key: str) -> random.Random:
        """The generator of one operator on one document (or intent)."""
        return random.Random(f"{self.seed}/{operator}/{key}")

    def document(self, doc_id: str) -> Document:
        return next(d for d in self.documents if d.doc_id == doc_id)

    def others(self, intent: MutationIntent) -> list[MutationIntent]:
        return [i for i in self.intents if i.name != intent.name]

    def memo(self, key: tuple, compute: Callable[[], object]) -> Any:
        """`compute()` once per context and key: what every intent's plan reads of the
        whole corpus (its filler sentences, its sections) is found once, not per intent."""
        cache = self.__dict__.setdefault("_memo", {})
        if key not in cache:
            cache[key] = compute()
        return cache[key]


@dataclass(frozen=True)
class Target:
    """One intent's answer where it sits: the document, the answer and its sentence."""

    intent: MutationIntent
    doc: Document

    @property
    def answer_span(self) -> tuple[int, int]:
        return self.intent.answer_start, self.intent.answer_end

    @property
    def sentence(self) -> tuple[int, int]:
        return sentence_around(self.doc.text, *self.answer_span)


SpanRef = tuple[Literal["original", "mutant"], int, int, str]
"""(which document, start, end, role) in ORIGINAL offsets of the changed document; the
corpus grouping moves mutant spans to where the edits put them."""


@dataclass(frozen=True)
class Plan:
    """One intent's mutant, before it is grouped with the operator's other mutants."""

    operator: str
    intent: str
    kind: Literal["in_place", "added", "removed"]
    """Replace the document by its mutant, add the mutant beside it, or remove documents."""
    doc_id: str
    rule: str
    """What was changed, in words (the value rule, the padding length, ...)."""
    expect: Literal["answer", "abstain"]
    accept: tuple[str, ...] = ()
    traps: tuple[str, ...] = ()
    edits: tuple[Edit, ...] = ()
    removed: tuple[str, ...] = ()
    elsewhere: tuple[tuple[str, tuple[Edit, ...]], ...] = ()
    """In-place edits of other documents than `doc_id`, as (doc_id, edits): a fact removed
    from every document that states it. Their mutants replace those documents too."""
    gold: tuple[SpanRef, ...] = ()
    trap: tuple[SpanRef, ...] = ()
    extra: tuple[SpanRef, ...] = ()
    checks: dict = field(default_factory=dict)
    """What the validity checks need beyond the spans (old value, new value, ...)."""
    variant: str = ""
    """Names one of several mutants an operator makes of one intent (a pipeline's two
    padding sizes); empty for the usual one."""


@dataclass(frozen=True)
class NotApplicable:
    """The operator cannot make this intent's mutant; no weaker mutant is made instead."""

    operator: str
    intent: str
    reason: str


@dataclass(frozen=True)
class Robust:
    """The column cannot be faulted this way, shown deterministically (not by a trial):
    e.g. a splitter that keeps the answer's sentence whole under every padding tried. A
    robust credit is counted beside the score, never inside its interval."""

    operator: str
    intent: str
    reason: str


Outcome = Plan | NotApplicable | Robust
"""What an operator's plan returns for one intent (or a tuple of Plans: its variants)."""


@dataclass(frozen=True)
class Operator:
    """A registered mutation operator: its name (a probe of the `mutation` family), how it
    plans one intent's mutant, and the retrieval-side measure that says it was handled."""

    name: str
    plan: Callable[[Target, Context], Outcome | tuple[Plan, ...]]
    handled_without_generation: str
    """The retrieval-side measure (mutation.score) that kills a mutant under --no-generate."""
    probe: Probe


def not_planted(*_: object) -> None:
    """A mutation probe builds no planted instance: `ragaudit mutate` builds its mutants."""
    raise RuntimeError("a mutation operator builds its mutants from a user's corpus")


def declare(name: str, description: str, layer: str = "architectural") -> Probe:
    """The probe declaration of an operator (family `mutation`, skipped by the corpus)."""
    return Probe(name, layer, description, not_planted, family="mutation")  # type: ignore[arg-type]


def filler_sentences(context: Context, avoid: Sequence[str], rng: random.Random) -> list[str]:
    """Sentences of the user's own documents that hold none of `avoid` (answers, anchors),
    shuffled by `rng`: the padding and sections operators insert."""
    found = list(context.memo(("filler", tuple(avoid)), lambda: _filler(context, avoid)))
    rng.shuffle(found)
    return found


def _filler(context: Context, avoid: Sequence[str]) -> list[str]:
    """The sorted, unshuffled filler sentences (computed once per context and `avoid`)."""
    holds_avoided = avoided(avoid)
    found = set()
    for doc in context.documents:
        for line in doc.text.splitlines():
            for sentence in line.replace("? ", "?\n").replace(". ", ".\n").split("\n"):
                sentence = sentence.strip()
                if len(sentence.split()) >= 5 and not sentence.startswith(("|", "#")):
                    if not holds_avoided(sentence):
                        found.add(sentence)
    return sorted(found)


def avoided(avoid: Sequence[str]) -> Callable[[str], bool]:
    """Whether a text holds any of `avoid`, case-insensitively (one regex, not a loop: a
    corpus of thousands of sentences against hundreds of answers and anchors)."""
    if not avoid:
        return lambda _text: False
    pattern = re.compile("|".join(re.escape(a.lower()) for a in sorted(set(avoid), key=len)))
    return lambda text: pattern.search(text.lower()) is not None


def every_answer_and_anchor(context: Context) -> list[str]:
    """What padding must never carry: any intent's answer or anchor."""
    return [v for i in context.intents for v in (i.answer, i.anchor) if v]
