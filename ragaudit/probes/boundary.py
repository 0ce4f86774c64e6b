"""boundary: the answer sentence straddles character 1000, the chunk size under test.

The construction follows the originating study. The document opens with a header line of 35 to 41
characters naming the section and its subject, then a blank line. The next paragraph is
filler that ends on a full stop, then the answer sentence as that paragraph's last
sentence; the answer is centred on character 1000, so a fixed 1000-character splitter
cuts every one. The answer's own padding has no sentence terminator, so the recursive
splitter's cut points at the ". " level all lie before it and it survives whole. Span
lengths come in four classes (71 to 80, 141, 261 and 421 characters; 7/6/6/6 per 25) so
the overlap-and-header mechanism can be stratified by length: for the shortest class the
whole paragraph fits one chunk and the header sits alone in the chunk before it.
"""

from __future__ import annotations

import random

from ragaudit.errors import RagauditError
from ragaudit.probes.base import BuiltInstance, Diagnostic, Instance, Probe
from ragaudit.probes.codes import section_code
from ragaudit.probes.common import instance_id, metadata
from ragaudit.probes.facts import allocate_fact, header
from ragaudit.probes.filler import clauses, filler_paragraph, sentences_of_length
from ragaudit.probes.text import DocWriter, Planted, fit_sentence

NAME = "boundary"
BOUNDARY = 1000
HEADER_LENGTHS = (35, 41)
LENGTH_CLASSES = ("71-80", "141", "261", "421")


def length_class(index: int) -> str:
    """The span length class of instance `index`: 7/6/6/6 in every block of 25."""
    position = index % 25
    return LENGTH_CLASSES[0 if position < 7 else 1 + (position - 7) // 6]


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """One boundary instance: a document whose answer sentence straddles character 1000."""
    iid = instance_id(NAME, index)
    code = section_code(seed, PROBE.slot, index, rng)
    where = f"in section {code}"
    span_class = length_class(index)
    fact = allocate_fact(seed, NAME, index, rng)
    title = header(rng, code, fact, HEADER_LENGTHS)
    if title is None:
        raise RagauditError(f"{iid}: no header of {HEADER_LENGTHS} characters for {fact.subject}")
    answer = None
    while answer is None:
        target = rng.randint(71, 80) if span_class == "71-80" else int(span_class)
        core = fact.statement(where)[:-1]
        if len(core) + 9 > target:
            core = fact.statement(where, short=True)[:-1]
        if len(core) + 1 <= target:
            try:
                answer = fit_sentence(rng, core, clauses(rng), target, tries=20)
            except RagauditError:
                answer = None
    writer = DocWriter(iid)
    (header_span,) = writer.paragraph([Planted(title, "header")])
    paragraph_start = writer.length + 2
    if span_class == "71-80":
        # The whole paragraph (with its blank line) fits one chunk, the answer at its end.
        answer_start = paragraph_start + rng.randint(990, 998) - target
    else:
        # Centred on the boundary: the paragraph is split at ". " just before the answer.
        answer_start = BOUNDARY - target // 2 + rng.randint(-3, 3)
    used: set[str] = set()
    lead = sentences_of_length(rng, answer_start - paragraph_start - 1, used)
    (gold,) = writer.paragraph([*lead, Planted(answer, "gold")])
    for _ in range(rng.randint(1, 2)):
        writer.paragraph(filler_paragraph(rng, used=used))
    doc = writer.build(metadata(NAME, iid, title))
    assert gold.start < BOUNDARY < gold.end, (iid, gold.start, gold.end)
    instance = Instance(
        probe=NAME,
        layer="architectural",
        instance_id=iid,
        question=fact.question(where),
        gold_answer=f"{fact.value} {fact.attribute.unit}",
        gold_spans=(gold,),
        extra_spans=(header_span,),
        answer_doc_ids=(doc.doc_id,),
        anchor=f"section {code}",
        grading=fact.grading(),
        meta={
            "length_class": span_class,
            "span_length": len(answer),
            "span_start": gold.start,
            "span_end": gold.end,
            "header_length": len(title),
            "attribute": fact.attribute.key,
            "subject": fact.subject,
            "value": fact.value,
        },
    )
    return BuiltInstance((doc,), instance)


PROBE = Probe(
    name=NAME,
    layer="architectural",
    description="answer sentence straddles character 1000",
    build=build,
    slot=1,
    diagnostics=(
        Diagnostic(
            "header_in_answer_chunk", "ragaudit.stack.measures:header_in_answer_chunk", column=0
        ),
    ),
)
