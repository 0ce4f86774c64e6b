"""Each intent's mutant of an operator, built alone: its own corpus is the user's corpus
plus its own change only (the documents it edits, adds or removes), so no mutant ever
touches another intent's records. A plan whose edits overlap, or a mutant failing a check
(mutation.validity), is not applicable with the reason, never kept as a weaker one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ragaudit.documents import Document
from ragaudit.mutation.edits import Edit, Edited, apply_edits, overlapping, unified_diff
from ragaudit.mutation.operator import (
    Context,
    NotApplicable,
    Operator,
    Outcome,
    Plan,
    Robust,
    SpanRef,
    Target,
)
from ragaudit.mutation.text import find_whole_value
from ragaudit.mutation.validity import check_mutant
from ragaudit.probes.base import Span

MAX_ANSWER_REPEATS = 50
"""An intent whose answer stands more often than this in its document is not applicable:
a document repeating its answer a thousand times is not a fact to plant around (and made
mutant generation run minutes in silence)."""


def mutant_doc_id(doc_id: str, operator: str, intent: str, variant: str = "") -> str:
    """The id of a document's mutant: never an original's id, and one per intent (and
    variant), since two intents' mutants of one document are two different documents."""
    return f"{doc_id}~{operator}~{intent}" + (f"@{variant}" if variant else "")


@dataclass(frozen=True)
class Mutant:
    """One intent's mutant and the change that makes its corpus, or why there is none."""

    operator: str
    intent: str
    doc_id: str
    applied: bool
    reason: str | None = None
    mutant_doc_id: str | None = None
    rule: str = ""
    expect: str = "answer"
    accept: tuple[str, ...] = ()
    traps: tuple[str, ...] = ()
    gold_spans: tuple[Span, ...] = ()
    trap_spans: tuple[Span, ...] = ()
    extra_spans: tuple[Span, ...] = ()
    planted: tuple[Span, ...] = ()
    """Every stretch of planted text, where it sits in its mutant document."""
    removed: tuple[str, ...] = ()
    """The user's documents its corpus lacks altogether."""
    removed_facts: tuple[dict, ...] = ()
    """Facts deleted (remove_answer), in the original documents' offsets."""
    diff: str = ""
    validity: tuple[dict, ...] = ()
    """Each check: {"check", "passed", "detail"}."""
    robust: bool = False
    """Not a trial: the column was shown unable to fail this way (counted apart)."""
    added: tuple[Document, ...] = ()
    """The documents its corpus holds that the user's does not (mutants, copies)."""
    dropped: tuple[str, ...] = ()
    """The ids of the user's documents its corpus lacks (replaced or removed)."""
    originals: dict[str, Document] = field(default_factory=dict, compare=False)
    """Original document by the id of its mutant (the diff and the inspector)."""
    variant: str = ""
    """Which of an operator's several mutants of this intent (mostly none)."""

    @property
    def mutant_id(self) -> str:
        return f"{self.operator}/{self.intent}" + (f"@{self.variant}" if self.variant else "")

    @property
    def status(self) -> str:
        return "applied" if self.applied else "robust" if self.robust else "not_applicable"

    @property
    def touched(self) -> set[str]:
        """The user's documents this mutant changes or removes, and the ones it copies."""
        return set(self.dropped) | {d.doc_id for d in self.originals.values()}


@dataclass(frozen=True)
class MutantCorpus:
    """The user's corpus with one mutant's change: what its checks read."""

    base: Sequence[Document]
    mutant: Mutant

    @property
    def documents(self) -> list[Document]:
        dropped = set(self.mutant.dropped)
        return [d for d in self.base if d.doc_id not in dropped] + list(self.mutant.added)

    @property
    def originals(self) -> dict[str, Document]:
        return self.mutant.originals


@dataclass
class OperatorMutants:
    """An operator's mutants (applied, robust or not applicable), in intent order."""

    operator: str
    mutants: list[Mutant]


def answer_repeats(text: str, answer: str, limit: int = MAX_ANSWER_REPEATS) -> int:
    """How often `answer` stands as a value of its own in `text`, counted up to limit+1."""
    count, start = 0, find_whole_value(answer, text)
    while start != -1 and count <= limit:
        count += 1
        start = find_whole_value(answer, text, start + len(answer))
    return count


def plan_outcome(
    operator: Operator, target: Target, context: Context
) -> Outcome | tuple[Plan, ...]:
    """The operator's plan, or not applicable when the answer repeats past the cap."""
    repeats = answer_repeats(target.doc.text, target.intent.answer)
    if repeats > MAX_ANSWER_REPEATS:
        return NotApplicable(
            operator.name, target.intent.name,
            f"the answer stands over {MAX_ANSWER_REPEATS} times in {target.doc.doc_id} "
            f"(limit {MAX_ANSWER_REPEATS}): not one fact to plant around",
        )  # fmt: skip
    return operator.plan(target, context)


def build_mutants(
    operator: Operator, context: Context, on_intent: Callable[[int], None] | None = None
) -> OperatorMutants:
    """Every intent's mutant of `operator`, each built and checked on its own corpus
    (`on_intent(1)` after each: progress)."""
    out = []
    for intent in context.intents:
        target = Target(intent, context.document(intent.doc_id))
        outcome = plan_outcome(operator, target, context)
        for one in outcome if isinstance(outcome, tuple) else (outcome,):
            out.append(build_mutant(one, target, context))
        if on_intent is not None:
            on_intent(1)
    return OperatorMutants(operator.name, out)


def build_mutant(outcome: Outcome, target: Target, context: Context) -> Mutant:
    """One outcome as a mutant: applied and checked, robust, or not applicable."""
    intent = target.intent
    if isinstance(outcome, Robust):
        return Mutant(outcome.operator, intent.name, intent.doc_id, False, outcome.reason,
                      robust=True)  # fmt: skip
    if isinstance(outcome, NotApplicable):
        return Mutant(outcome.operator, intent.name, intent.doc_id, False, outcome.reason)
    plan = outcome
    per_doc: dict[str, tuple[Edit, ...]] = {}
    if plan.kind != "removed":
        per_doc[plan.doc_id] = plan.edits
    for doc_id, edits in plan.elsewhere:
        per_doc[doc_id] = per_doc.get(doc_id, ()) + tuple(edits)
    for doc_id, edits in per_doc.items():
        if overlapping(edits) is not None:
            return Mutant(plan.operator, intent.name, intent.doc_id, False,
                          f"its edits of {doc_id} overlap", variant=plan.variant)  # fmt: skip
    entry = _applied(plan, per_doc, context)
    checks = check_mutant(entry, plan, MutantCorpus(context.documents, entry), context)
    entry = replace(entry, validity=tuple(checks))
    failed = [c for c in checks if not c["passed"]]
    if failed:
        reason = "validity check failed: " + "; ".join(
            f"{c['check']} ({c['detail']})" for c in failed
        )
        return replace(entry, applied=False, reason=reason)
    return entry


def _applied(plan: Plan, per_doc: dict[str, tuple[Edit, ...]], context: Context) -> Mutant:
    edited: dict[str, tuple[Edited, Document]] = {}
    added, dropped, originals, planted, diffs = [], list(plan.removed), {}, [], []
    for doc_id, edits in per_doc.items():
        original = context.document(doc_id)
        result = apply_edits(original.text, edits)
        new_id = mutant_doc_id(doc_id, plan.operator, plan.intent, plan.variant)
        mutant = replace(original, doc_id=new_id, text=result.text)
        edited[doc_id] = (result, mutant)
        originals[new_id] = original
        added.append(mutant)
        if not (doc_id == plan.doc_id and plan.kind == "added"):
            dropped.append(doc_id)
        planted += [_span(mutant, start, end, e.role) for e, start, end in result.planted]
        diffs.append(unified_diff(doc_id, original.text, result.text, new_id))
    main = edited.get(plan.doc_id)

    def place(refs: tuple[SpanRef, ...]) -> tuple[Span, ...]:
        original = context.document(plan.doc_id)
        out = []
        for which, start, end, role in refs:
            if which == "original" or main is None:
                out.append(_span(original, start, end, role))
            else:
                out.append(_span(main[1], *main[0].moved_span(start, end), role))
        return tuple(out)

    return Mutant(
        plan.operator, plan.intent, plan.doc_id, True,
        mutant_doc_id=main[1].doc_id if main is not None else None,
        rule=plan.rule, expect=plan.expect, accept=plan.accept, traps=plan.traps,
        gold_spans=place(plan.gold), trap_spans=place(plan.trap), extra_spans=place(plan.extra),
        planted=tuple(planted), removed=tuple(sorted(plan.removed)),
        removed_facts=tuple(plan.checks.get("removed_facts", ())), diff="".join(diffs),
        added=tuple(added), dropped=tuple(dict.fromkeys(dropped)), originals=originals,
        variant=plan.variant,
    )  # fmt: skip


def control_mutants(context: Context) -> OperatorMutants:
    """The unmutated corpus's entry per intent (its answer where it is): the control row."""
    mutants = []
    for intent in context.intents:
        target = Target(intent, context.document(intent.doc_id))
        mutants.append(
            Mutant(
                "control", intent.name, intent.doc_id, True, mutant_doc_id=intent.doc_id,
                rule="unmutated", accept=(intent.answer,),
                gold_spans=(_span(target.doc, *target.sentence, "gold"),),
            )
        )  # fmt: skip
    return OperatorMutants("control", mutants)


def _span(doc: Document, start: int, end: int, role: str) -> Span:
    return Span(doc.doc_id, start, end, doc.text[start:end], role)
