"""The instrument tests of the planted corpus, applied to each mutant: the planted text
sits exactly where it is recorded; a superseding revision no longer states the old value; a
boundary mutant is really cut by the user's splitter (a pipeline's, with no splitter to run,
is still a whole sentence); a table row is really apart from its header (by a splitter); a
near-duplicate is near its original and near nothing else; a removed fact is stated nowhere
near its anchor; a diluted document really is that much longer. A mutant failing any of them
is withdrawn (mutation.grouping), never kept as a weaker one."""

from __future__ import annotations

from typing import Any

from ragaudit.corpus.stats import jaccard
from ragaudit.mutation.cut_search import cuts_sentence
from ragaudit.mutation.padding import together
from ragaudit.mutation.remove import statements_left
from ragaudit.mutation.text import holds, sentence_around, shingles
from ragaudit.mutation.value_forms import disagreeing_forms

NEAR_ORIGINAL = 0.8
"""A near-duplicate's word-shingle Jaccard to its original is at least this."""
NEAR_OTHERS = 0.5
"""... and below this to every other document of its corpus."""


def _check(name: str, passed: bool, detail: str) -> dict:
    return {"check": name, "passed": bool(passed), "detail": detail}


def check_mutant(mutant: Any, plan: Any, corpus: Any, context: Any) -> list[dict]:
    """Every check that applies to this mutant's operator, passed or not."""
    docs = {d.doc_id: d for d in corpus.documents}
    checks = [_planted_where_recorded(mutant, docs)]
    checks += _values_where_intended(mutant)
    kind = mutant.operator
    target = docs.get(mutant.mutant_doc_id) if mutant.mutant_doc_id else None
    if kind == "remove_answer":
        left = statements_left(plan, corpus.documents, corpus.originals)
        checks.append(_check("fact_absent", not left, "; ".join(left) or "stated nowhere"))
    elif kind == "supersede":
        old = plan.checks["old"]
        checks.append(_check("old_value_absent", not holds(target.text, old), f"{old!r}"))
        checks.append(_value_forms_agree(mutant, docs))
    elif kind == "near_duplicate":
        checks += _near_duplicate(mutant, target, corpus)
        checks.append(_value_forms_agree(mutant, docs))
    elif kind == "boundary" and context.splitter is None:
        # no splitter to cut (a pipeline): scored on what reached the model, not on a cut
        whole = _sentence_whole(mutant, target)
        detail = "a whole sentence" if whole else "the sentence no longer whole"
        checks.append(_check("sentence_whole", whole, detail))
    elif kind in ("boundary", "table_split") and context.splitter is not None:
        checks.append(_cut(mutant, target, context))
    elif kind == "dilute":
        factor = plan.checks["factor"]
        original = corpus.originals[target.doc_id]
        ratio = len(target.text) / len(original.text)
        checks.append(_check("diluted", ratio >= factor, f"{ratio:.1f}x its length"))
    return checks


def _planted_where_recorded(mutant: Any, docs: dict) -> dict:
    bad = [
        s for s in (*mutant.planted, *mutant.gold_spans, *mutant.trap_spans, *mutant.extra_spans)
        if s.doc_id not in docs or docs[s.doc_id].text[s.start : s.end] != s.text
    ]  # fmt: skip
    detail = f"{len(bad)} span(s) not at their offsets" if bad else "every span at its offsets"
    return _check("planted_where_recorded", not bad, detail)


def _values_where_intended(mutant: Any) -> list[dict]:
    """The right value inside the gold span and the trap value inside the trap span."""
    out = []
    for values, spans, name in (
        (mutant.accept, mutant.gold_spans, "right_value_in_gold"),
        (mutant.traps, mutant.trap_spans, "trap_value_in_trap"),
    ):
        if values and spans:
            missing = [v for v in values if not any(v in s.text for s in spans)]
            out.append(_check(name, not missing, ", ".join(map(repr, missing)) or "present"))
    return out


def _value_forms_agree(mutant: Any, docs: dict) -> dict:
    """A value planted in one of its two forms only ('five minutes (3min)') states two."""
    spans = [s for s in mutant.planted if s.role == "value" and s.doc_id in docs]
    bad = [f for s in spans for f in disagreeing_forms(docs[s.doc_id].text, [(s.start, s.end)])]
    detail = ", ".join(map(repr, dict.fromkeys(bad))) or "every value's forms agree"
    return _check("value_forms_agree", not bad, detail)


def _near_duplicate(mutant: Any, copy: Any, corpus: Any) -> list[dict]:
    original = corpus.originals[copy.doc_id]
    mine = shingles(copy.text)
    to_original = jaccard(mine, shingles(original.text))
    others = [
        (jaccard(mine, shingles(d.text)), d.doc_id)
        for d in corpus.documents
        if d.doc_id not in (copy.doc_id, original.doc_id)
    ]
    worst = max(others, default=(0.0, "none"))
    return [
        _check("near_original", to_original >= NEAR_ORIGINAL, f"Jaccard {to_original:.2f}"),
        _check(
            "near_nothing_else", worst[0] < NEAR_OTHERS, f"Jaccard {worst[0]:.2f} to {worst[1]}"
        ),
    ]


def _sentence_whole(mutant: Any, target: Any) -> bool:
    """The answer's sentence is still a whole sentence: its own start and end, nothing
    planted inside it."""
    span = mutant.gold_spans[0]
    whole = sentence_around(target.text, span.start, span.end) == (span.start, span.end)
    return whole and not any(p.start < span.end and span.start < p.end for p in mutant.planted)


def _cut(mutant: Any, target: Any, context: Any) -> dict:
    chunks = context.splitter(target)
    if mutant.operator == "boundary":
        # cut by the splitter, and still a whole sentence: its own start and end, nothing
        # planted inside it
        span = mutant.gold_spans[0]
        cut = cuts_sentence(target.text, chunks, span.start, span.end)
        whole = _sentence_whole(mutant, target)
        detail = f"{len(chunks)} chunks" + ("" if whole else "; the sentence no longer whole")
        return _check("cut_by_splitter", cut and whole, detail)
    header = next(s for s in mutant.extra_spans if s.role == "table_header")
    row = next(s for s in mutant.extra_spans if s.role == "table_row")
    apart = not together(chunks, [(header.start, header.end), (row.start, row.end)])
    return _check("header_apart_from_row", apart, f"{len(chunks)} chunks")
