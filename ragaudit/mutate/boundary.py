"""boundary: padding taken from the user's own other documents is inserted before the
answer's sentence, as long as the user's own splitter needs to put a chunk boundary inside
that sentence (found by cutting candidate paddings with it). It measures whether the span
is preserved (an overlap may still hold it whole), gold in context and the answer."""

from __future__ import annotations

from ragaudit.mutate.edits import Edit
from ragaudit.mutate.operator import (
    Context,
    NotApplicable,
    Operator,
    Plan,
    Target,
    declare,
    every_answer_and_anchor,
    filler_sentences,
)
from ragaudit.mutate.padding import MAX_PADDING_WORDS, cuts, search

NAME = "boundary"


def words_of(context: Context, doc_id: str) -> list[str]:
    """The padding's words: sentences of the other documents, one word at a time, their
    sentence ends dropped."""
    avoid = every_answer_and_anchor(context)
    sentences = filler_sentences(context, avoid, context.rng(NAME, doc_id))
    # without sentence ends: a splitter that prefers ". " must still cut inside the run
    words: list[str] = []
    for sentence in sentences:
        words += [w.rstrip(".!?;:") for w in sentence.split() if w.rstrip(".!?;:")]
        if len(words) > MAX_PADDING_WORDS:  # the search never reads further
            break
    return words


def plan(target: Target, context: Context) -> Plan | NotApplicable:
    """Pad before the sentence until the splitter cuts it."""
    intent = target.intent
    if context.splitter is None:
        return NotApplicable(NAME, intent.name, context.splitter_reason)
    start, end = target.sentence
    if len(target.doc.text[start:end].split()) < 2:
        return NotApplicable(
            NAME, intent.name, "the answer's sentence is one word: too short to cut"
        )
    words = words_of(context, target.doc.doc_id)

    def cut(chunks: list[tuple[int, int]], added: int) -> bool:
        return cuts(chunks, start + added, end + added)

    found = search(target.doc, start, words, cut, context.splitter)
    if found is None:
        return NotApplicable(
            NAME,
            intent.name,
            f"the splitter cuts no padding of up to {MAX_PADDING_WORDS} words into the sentence",
        )
    padding, _ = found
    return Plan(
        NAME,
        intent.name,
        "in_place",
        target.doc.doc_id,
        rule=f"{len(padding.split())} words ({len(padding)} characters) of padding before it",
        expect="answer",
        accept=(intent.answer,),
        edits=(Edit(start, start, padding, "padding", intent.name),),
        gold=(("mutant", start, end, "gold"),),
    )


PROBE = declare(NAME, "the answer's sentence cut by the user's own splitter")
OPERATOR = Operator(NAME, plan, "gold_in_context", PROBE)
