"""One corpus per operator: every intent's mutant of that operator planted in one copy of the
user's corpus, so a run builds at most (operators + 1) indexes. Two intents whose answers
share a document get one mutant of it carrying both plans (an edit proposed twice is made
once); a plan whose edit would overlap another's is not applicable rather than weakened.
Each mutant is then checked (mutate.validity); one that fails is withdrawn, with the reason,
and the corpus is grouped again without it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ragaudit.documents import Document
from ragaudit.mutate.edits import Edit, Edited, apply_edits, overlapping, unified_diff
from ragaudit.mutate.operator import Context, NotApplicable, Operator, Plan, SpanRef, Target
from ragaudit.mutate.validity import check_mutant
from ragaudit.probes.base import Span


def mutant_doc_id(doc_id: str, operator: str) -> str:
    """The id of a document's mutant in an operator's corpus (never an original's id)."""
    return f"{doc_id}~{operator}"


@dataclass(frozen=True)
class Mutant:
    """One intent's mutant in its operator's corpus, or why there is none."""

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
    """Every stretch of planted text, where it sits in the mutant document."""
    removed: tuple[str, ...] = ()
    diff: str = ""
    validity: tuple[dict, ...] = ()
    """Each check: {"check", "passed", "detail"}."""

    @property
    def mutant_id(self) -> str:
        return f"{self.operator}/{self.intent}"


@dataclass
class OperatorCorpus:
    """An operator's corpus and its mutants (applied or not), in intent order."""

    operator: str
    documents: list[Document]
    mutants: list[Mutant]
    originals: dict[str, Document] = field(default_factory=dict)
    """Original document by the id of its mutant (for the diff and the inspector)."""

    @property
    def changed(self) -> set[str]:
        """The ids of the documents this corpus holds that the user's corpus does not."""
        return set(self.originals)


def build_operator_corpus(operator: Operator, context: Context) -> OperatorCorpus:
    """Plan every intent's mutant, group them into one corpus, check them, and withdraw the
    ones that fail (grouping again) until every remaining mutant passes."""
    outcomes: dict[str, Plan | NotApplicable] = {}
    for intent in context.intents:
        target = Target(intent, context.document(intent.doc_id))
        outcomes[intent.name] = operator.plan(target, context)
    while True:
        corpus = _group(operator.name, context, outcomes)
        withdrawn = False
        for mutant in corpus.mutants:
            failed = [c for c in mutant.validity if not c["passed"]]
            if mutant.applied and failed:
                reason = "validity check failed: " + "; ".join(
                    f"{c['check']} ({c['detail']})" for c in failed
                )
                outcomes[mutant.intent] = NotApplicable(operator.name, mutant.intent, reason)
                withdrawn = True
        if not withdrawn:
            return corpus


def control_corpus(context: Context) -> OperatorCorpus:
    """The unmutated corpus and each intent's control entry (its answer where it is)."""
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
    return OperatorCorpus("control", list(context.documents), mutants)


def _span(doc: Document, start: int, end: int, role: str) -> Span:
    return Span(doc.doc_id, start, end, doc.text[start:end], role)


def _accepted_edits(
    name: str, outcomes: dict[str, Plan | NotApplicable]
) -> dict[str, list[tuple[Edit, set[str]]]]:
    """Per document, its edits and the intents proposing each; a plan overlapping an
    earlier one's edit becomes not applicable (in `outcomes`)."""
    per_doc: dict[str, list[tuple[Edit, set[str]]]] = {}
    for intent, plan in list(outcomes.items()):
        if not isinstance(plan, Plan) or plan.kind == "removed":
            continue
        accepted = per_doc.setdefault(plan.doc_id, [])
        fresh = [e for e in plan.edits if not _same_as_any(e, accepted)]
        clash = overlapping([e for e, _ in accepted] + fresh)
        if clash is not None:
            other = next(iter(next(p for e, p in accepted if e in clash)))
            outcomes[intent] = NotApplicable(
                name, intent, f"its document already carries intent {other!r}'s mutant there"
            )
            continue
        for edit in plan.edits:
            found = next((pair for pair in accepted if _same(pair[0], edit)), None)
            if found is None:
                accepted.append((edit, {intent}))
            else:
                found[1].add(intent)
    return per_doc


def _same(a: Edit, b: Edit) -> bool:
    return (a.start, a.end, a.new, a.role) == (b.start, b.end, b.new, b.role)


def _same_as_any(edit: Edit, accepted: list[tuple[Edit, set[str]]]) -> bool:
    return any(_same(edit, other) for other, _ in accepted)


def _group(
    name: str, context: Context, outcomes: dict[str, Plan | NotApplicable]
) -> OperatorCorpus:
    per_doc = _accepted_edits(name, outcomes)
    plans = {i: p for i, p in outcomes.items() if isinstance(p, Plan)}
    removed = {d for p in plans.values() for d in p.removed}
    kinds = {p.doc_id: p.kind for p in plans.values() if p.kind != "removed"}
    documents, edited, originals = [], {}, {}
    for doc in context.documents:
        if doc.doc_id in removed:
            continue
        if doc.doc_id in kinds:
            result = apply_edits(doc.text, [e for e, _ in per_doc[doc.doc_id]])
            new_id = mutant_doc_id(doc.doc_id, name)
            mutant = replace(doc, doc_id=new_id, text=result.text)
            edited[doc.doc_id] = (result, mutant)
            originals[new_id] = doc
            documents += [doc, mutant] if kinds[doc.doc_id] == "added" else [mutant]
        else:
            documents.append(doc)
    corpus = OperatorCorpus(name, documents, [], originals)
    for intent in context.intents:
        outcome = outcomes[intent.name]
        if isinstance(outcome, NotApplicable):
            corpus.mutants.append(Mutant(name, intent.name, intent.doc_id, False, outcome.reason))
            continue
        corpus.mutants.append(_mutant(outcome, context, corpus, edited, per_doc))
    return corpus


def _mutant(
    plan: Plan,
    context: Context,
    corpus: OperatorCorpus,
    edited: dict[str, tuple[Edited, Document]],
    per_doc: dict[str, list[tuple[Edit, set[str]]]],
) -> Mutant:
    original = context.document(plan.doc_id)
    result, mutant = edited.get(plan.doc_id, (None, None))

    def place(refs: tuple[SpanRef, ...]) -> tuple[Span, ...]:
        out = []
        for which, start, end, role in refs:
            if which == "original":
                out.append(_span(original, start, end, role))
            else:
                out.append(_span(mutant, *result.moved_span(start, end), role))
        return tuple(out)

    planted = ()
    if result is not None:
        mine = [e for e, intents in per_doc[plan.doc_id] if plan.intent in intents]
        planted = tuple(
            _span(mutant, start, end, edit.role)
            for edit, start, end in result.planted
            if any(_same(edit, m) for m in mine)
        )
    entry = Mutant(
        plan.operator, plan.intent, plan.doc_id, True,
        mutant_doc_id=mutant.doc_id if mutant is not None else None,
        rule=plan.rule, expect=plan.expect, accept=plan.accept, traps=plan.traps,
        gold_spans=place(plan.gold), trap_spans=place(plan.trap), extra_spans=place(plan.extra),
        planted=planted, removed=tuple(sorted(plan.removed)),
        diff=unified_diff(original.doc_id, original.text, mutant.text, mutant.doc_id)
        if mutant is not None
        else "",
    )  # fmt: skip
    checks = check_mutant(entry, plan, corpus, context)
    return replace(entry, validity=tuple(checks))
