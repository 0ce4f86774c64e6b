"""table_split: where the answer sits in a table row (Markdown, CSV or aligned text), prose
from the user's other documents is inserted between the table's header and its rows, as much
as the user's splitter needs to put the header and the answer's row in different chunks.
A `pipeline:` column has no splitter ragaudit can run: the answer's row gets two mutants,
1,000 and 3,000 characters of that prose (mutation.fixed_padding), scored on what reached the
model and on the answer."""

from __future__ import annotations

import re

from ragaudit.mutation.edits import Edit
from ragaudit.mutation.fixed_padding import PIPELINE_PADDINGS, fixed_padding
from ragaudit.mutation.operator import (
    Context,
    NotApplicable,
    Operator,
    Plan,
    Target,
    declare,
    every_answer_and_anchor,
    filler_sentences,
)
from ragaudit.mutation.padding import MAX_PADDING_WORDS, search, together

NAME = "table_split"
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}")
_ALIGNED = re.compile(r"\S {2,}\S.* {2,}\S")


def _kind(line: str) -> str | None:
    stripped = line.strip()
    if stripped.startswith("|") and stripped.count("|") >= 3:
        return "markdown"
    if line.count(",") >= 2:
        return f"csv:{line.count(',')}"
    if _ALIGNED.search(line):
        return "aligned"
    return None


def table_around(text: str, position: int) -> tuple[str, list[tuple[int, int]], int] | None:
    """(kind, the table's line spans, the answer's line index) when `position` sits in a
    table's data row, else None."""
    lines, offset = [], 0
    for line in text.split("\n"):
        lines.append((offset, offset + len(line)))
        offset += len(line) + 1
    at = next(i for i, (s, e) in enumerate(lines) if s <= position <= e)
    kind = _kind(text[slice(*lines[at])])
    if kind is None:
        return None
    first = at
    while first > 0 and _kind(text[slice(*lines[first - 1])]) == kind:
        first -= 1
    last = at
    while last + 1 < len(lines) and _kind(text[slice(*lines[last + 1])]) == kind:
        last += 1
    header_lines = 2 if kind == "markdown" and first + 1 <= last and _SEPARATOR.match(
        text[slice(*lines[first + 1])]
    ) else 1  # fmt: skip
    if at < first + header_lines:
        return None  # the answer is in the header
    return kind.split(":")[0], lines[first : last + 1], at - first


def plan(target: Target, context: Context) -> Plan | NotApplicable | tuple[Plan, ...]:
    """Push the rows away from the header until no chunk holds both (with no splitter:
    one mutant per fixed size)."""
    intent, text = target.intent, target.doc.text
    table = table_around(text, intent.answer_start)
    if table is None:
        return NotApplicable(NAME, intent.name, "the answer is not in a table row")
    kind, rows, row_index = table
    header_count = 2 if kind == "markdown" and _SEPARATOR.match(text[slice(*rows[1])]) else 1
    header = rows[0]  # the line naming the columns (a Markdown separator names none)
    row = rows[row_index]
    at = rows[header_count][0]  # where the first data row starts
    avoid = every_answer_and_anchor(context)
    sentences = filler_sentences(context, avoid, context.rng(NAME, target.doc.doc_id))
    if context.splitter is None:
        plans = []
        for size in PIPELINE_PADDINGS:
            found = fixed_padding(sentences, size, joiner="\n", ending="\n")
            if found is None:
                return NotApplicable(
                    NAME, intent.name, "the corpus holds no prose free of every answer and anchor"
                )
            plans.append(_apart(target, kind, at, found[1], header, row, variant=str(size)))
        return tuple(plans)

    def apart(chunks: list[tuple[int, int]], added: int) -> bool:
        return not together(chunks, [header, (row[0] + added, row[1] + added)])

    found = search(target.doc, at, sentences, apart, context.splitter, joiner="\n")
    if found is None:
        return NotApplicable(
            NAME,
            intent.name,
            f"the splitter keeps the header with the row under {MAX_PADDING_WORDS} words of prose",
        )
    return _apart(target, kind, at, found[0], header, row)


def _apart(
    target: Target, kind: str, at: int, padding: str, header: tuple[int, int],
    row: tuple[int, int], variant: str = "",
) -> Plan:  # fmt: skip
    """The mutant with `padding` inserted at `at`, between the table's header and rows."""
    return Plan(
        NAME,
        target.intent.name,
        "in_place",
        target.doc.doc_id,
        rule=f"{kind} table: {len(padding)} characters of prose between header and rows",
        expect="answer",
        accept=(target.intent.answer,),
        edits=(Edit(at, at, padding, "padding", target.intent.name),),
        gold=(("mutant", *row, "gold"),),
        extra=(("mutant", *header, "table_header"), ("mutant", *row, "table_row")),
        variant=variant,
    )


PROBE = declare(NAME, "the answer's table row pushed away from the table's header")
OPERATOR = Operator(NAME, plan, "header_and_row_in_context", PROBE)
