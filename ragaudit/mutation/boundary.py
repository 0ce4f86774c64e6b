"""boundary: whole sentences of the user's own other documents are inserted right before the
answer's sentence, inside its paragraph, as few as the user's own splitter needs to put a
chunk boundary inside that sentence (found by cutting candidate paddings with it). The
padding ends on a sentence end, so the answer's sentence still starts a sentence and reads
whole. It measures whether the span is preserved (an overlap may still hold it whole), gold
in context and the answer.

A splitter that keeps the sentence whole under every padding tried, up to twice its longest
chunk, is credited as robust (`Robust`), provided the sentence also sits inside the
embedder's input window in its chunk; a sentence pushed past the window is a different
fault (dilute plants it), and with the window unknown there is no credit.

A `pipeline:` column has no splitter ragaudit can run: its answer's sentence gets two
mutants, padded by 1,000 and 3,000 characters of the same whole sentences
(mutation.fixed_padding), scored on what reached the model and on the answer."""

from __future__ import annotations

import re

from ragaudit.documents import Document
from ragaudit.mutation.cut_search import Search, Trial
from ragaudit.mutation.edits import Edit
from ragaudit.mutation.fixed_padding import PIPELINE_PADDINGS, fixed_padding
from ragaudit.mutation.operator import (
    Context,
    NotApplicable,
    Operator,
    Outcome,
    Plan,
    Robust,
    Target,
    declare,
    every_answer_and_anchor,
    filler_sentences,
)
from ragaudit.mutation.table_split import table_around

NAME = "boundary"
PADDING_FLOOR = 8000
"""The least padding tried, in characters, however short the document's longest chunk: a
short document's one chunk says little about how long the splitter lets a chunk grow."""
_MARKED_LINE = re.compile(r"\s*(?:[-*+>]|#{1,6}|\d+[.)])\s")
"""A list item, quotation or heading: padding goes on a line of its own before it."""


def padding_supply(context: Context, doc: Document, limit: int) -> list[str]:
    """Whole sentences free of every answer and anchor, of the other documents (shuffled
    per document; the document's own only when no other has one), repeated when the
    corpus holds fewer, until they reach `limit` characters; each ends on a sentence end."""
    avoid = every_answer_and_anchor(context)
    others, own, length = [], [], 0
    for found in filler_sentences(context, avoid, context.rng(NAME, doc.doc_id)):
        if length >= limit:
            break
        sentence = _whole(found)
        if sentence is None:
            continue
        if found in doc.text:
            own.append(sentence)
            continue
        others.append(sentence)
        length += len(sentence) + 1
    chosen = others or own
    if not chosen:
        return []
    return chosen * max(1, -(-limit // sum(len(s) + 1 for s in chosen)))  # ceil


def _whole(sentence: str) -> str | None:
    """The sentence as padding (a capital first, a sentence end last), or None when it
    does not read as one (a fragment, a list marker, a trailing colon)."""
    if not sentence[:1].isupper():
        return None
    if sentence[-1] in ".!?":
        return sentence
    return sentence + "." if sentence[-1].isalnum() else None


def plan(target: Target, context: Context) -> Outcome | tuple[Plan, ...]:
    """Pad before the sentence with the fewest sentences the splitter cuts it under (with
    no splitter: one mutant per fixed size)."""
    intent, doc = target.intent, target.doc
    start, end = target.sentence
    if len(doc.text[start:end].split()) < 2:
        return NotApplicable(
            NAME, intent.name, "the answer's sentence is one word: too short to cut"
        )
    line = doc.text[start:].partition("\n")[0]
    if line.lstrip().startswith("|") or table_around(doc.text, intent.answer_start):
        return NotApplicable(
            NAME, intent.name, "the answer is in a table row: padding there parts the table "
            "(table_split plants that)",
        )  # fmt: skip
    line_start = start == 0 or doc.text[start - 1] == "\n"
    ending = "\n" if line_start and _MARKED_LINE.match(line) else " "
    if context.splitter is None:
        return _fixed_sizes(target, context, ending)
    original = context.memo((NAME, "chunks", doc.doc_id), lambda: context.splitter(doc))
    longest = max((b - a for a, b in original), default=0)
    limit = max(2 * longest, PADDING_FLOOR)
    supply = padding_supply(context, doc, limit)
    if not supply:
        return NotApplicable(
            NAME, intent.name, "the corpus holds no sentence free of every answer and anchor"
        )
    search = Search(doc, start, end, supply, context.splitter, ending)
    found = search.run()
    if found is None:
        return _never_cut(target, context, search, original, longest, limit)
    return _padded(target, len(found.sentences), found.padding)


def _fixed_sizes(target: Target, context: Context, ending: str) -> tuple[Plan, ...] | NotApplicable:
    """No splitter to search (a pipeline): a mutant per size of PIPELINE_PADDINGS, each
    padded by the first of one supply's whole sentences that reach it."""
    supply = padding_supply(context, target.doc, max(PIPELINE_PADDINGS))
    plans = []
    for size in PIPELINE_PADDINGS:
        found = fixed_padding(supply, size, ending=ending)
        if found is None:
            return NotApplicable(
                NAME, target.intent.name,
                "the corpus holds no sentence free of every answer and anchor",
            )  # fmt: skip
        count, padding = found
        plans.append(_padded(target, count, padding, variant=str(size)))
    return tuple(plans)


def _padded(target: Target, count: int, padding: str, variant: str = "") -> Plan:
    """The mutant padded by `padding` (`count` sentences) before the answer's sentence."""
    intent, (start, end) = target.intent, target.sentence
    return Plan(
        NAME,
        intent.name,
        "in_place",
        target.doc.doc_id,
        rule=f"{count} sentence{'s' if count != 1 else ''} ({len(padding):,} characters) "
        "of the corpus's own text before the answer's sentence, inside its paragraph",
        expect="answer",
        accept=(intent.answer,),
        edits=(Edit(start, start, padding, "padding", intent.name),),
        gold=(("mutant", start, end, "gold"),),
        checks={"sentences": count},
        variant=variant,
    )


def _never_cut(
    target: Target,
    context: Context,
    search: Search,
    original: list[tuple[int, int]],
    longest: int,
    limit: int,
) -> Robust | NotApplicable:
    """No padding tried cut the sentence: robust when the splitter kept every padding
    sentence whole too and the sentence sits inside the embedder's window, else why not."""
    name, trials = target.intent.name, search.trials
    basis = (
        f"2x its {longest:,}-character chunks"
        if 2 * longest >= PADDING_FLOOR
        else f"over 2x its longest chunk here, {longest:,} characters"
    )
    tried = f"under every padding tried up to {limit:,} characters"
    tried += f" ({len(trials)} paddings; {basis})"
    if any(t.splits_padding for t in trials):
        return NotApplicable(
            NAME, name, f"the splitter cuts sentences, but none of the {len(trials)} paddings "
            f"tried (up to {limit:,} characters) cut the answer's",
        )  # fmt: skip
    unknown = f"the splitter never cut the sentence {tried}; the embedder's window is unknown, "
    unknown += "so no robust credit"
    if context.in_window is None:
        return NotApplicable(NAME, name, unknown)
    unpadded = Trial((), "", target.doc.text, *target.sentence, tuple(original))
    verdicts = [(t, _in_window(context, t)) for t in (unpadded, *trials)]
    past = min((t for t, inside in verdicts if inside is False), default=None,
               key=lambda t: len(t.padding))  # fmt: skip
    window = getattr(context.in_window, "tokens", None)
    named = f"embedder's {window}-token window" if window else "embedder's window"
    if past is not None:
        where = (
            f"with {len(past.padding):,} characters of padding before it" if past.padding
            else "in the document as it is"
        )  # fmt: skip
        return NotApplicable(
            NAME, name, f"the splitter never cut the sentence {tried}, but {where} its chunk "
            f"holds it past the {named}: a different fault (dilute plants it)",
        )  # fmt: skip
    if any(inside is None for _, inside in verdicts):
        return NotApplicable(NAME, name, unknown)
    return Robust(
        NAME, name, f"the splitter kept the answer's sentence whole {tried}, and the sentence "
        f"sits inside the {named} in its chunk",
    )  # fmt: skip


def _in_window(context: Context, trial: Trial) -> bool | None:
    """Some chunk holding the sentence whole has it inside the embedder's window (None:
    the window test could not tell)."""
    _, end = trial.sentence
    verdicts = [context.in_window(trial.text[a:b], end - a) for a, b in trial.holding()]
    if any(v is True for v in verdicts):
        return True
    return None if any(v is None for v in verdicts) else False


PROBE = declare(NAME, "the answer's sentence cut by the user's own splitter")
OPERATOR = Operator(NAME, plan, "gold_in_context", PROBE)
