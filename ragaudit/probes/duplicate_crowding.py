"""duplicate_crowding: the target document plus 6 near-identical copies of a competing notice.

As in the originating study, the copies are near-identical to each other (a reposted
notice, differing only in where it was posted) and restate a different sentence about the
same subject and section, one that carries no value: they crowd the ranking without
answering.
"""

from __future__ import annotations

import random

from ragaudit.probes.base import BuiltInstance, Diagnostic, Instance, Probe
from ragaudit.probes.codes import section_code
from ragaudit.probes.common import instance_id, metadata, short_document
from ragaudit.probes.facts import allocate_fact, header
from ragaudit.probes.filler import AREAS, filler_paragraph
from ragaudit.probes.text import DocWriter, Planted

NAME = "duplicate_crowding"
COPIES = 6


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """One target document and six reposted copies of a same-subject notice."""
    iid = instance_id(NAME, index)
    code = section_code(seed, PROBE.slot, index, rng)
    fact = allocate_fact(seed, NAME, index, rng)
    where = f"in section {code}"
    title = header(rng, code, fact)
    # Neutral ids: the target takes a random number among 1..7, the copies the rest.
    numbers = rng.sample(range(1, COPIES + 2), COPIES + 1)
    target, (gold,) = short_document(
        rng,
        f"{iid}-{numbers[0]}",
        title,
        [Planted(fact.statement(where), "gold")],
        metadata(NAME, iid, title),
    )
    notice_title = header(rng, code, fact)
    body = filler_paragraph(rng, 2, 3)
    position = rng.randint(0, len(body))
    note = fact.note(where)
    docs, copies = [target], []
    for k, area in enumerate(rng.sample(AREAS, COPIES), start=1):
        writer = DocWriter(f"{iid}-{numbers[k]}")
        writer.paragraph([notice_title])
        writer.paragraph([f"Posted at the {area}."])
        (span,) = writer.paragraph([*body[:position], Planted(note, "copy"), *body[position:]])
        docs.append(writer.build(metadata(NAME, iid, notice_title, copy=k)))
        copies.append(span)
    instance = Instance(
        probe=NAME,
        layer="architectural",
        instance_id=iid,
        question=fact.question(where),
        gold_answer=f"{fact.value} {fact.attribute.unit}",
        gold_spans=(gold,),
        trap_spans=tuple(copies),
        answer_doc_ids=(target.doc_id,),
        anchor=f"section {code}",
        grading=fact.grading(),
        meta={
            "subject": fact.subject,
            "attribute": fact.attribute.key,
            "copies": COPIES,
            "target_doc": target.doc_id,
            "copy_sentence": note,
            "value": fact.value,
        },
    )
    return BuiltInstance(tuple(sorted(docs, key=lambda d: d.doc_id)), instance)


PROBE = Probe(
    name=NAME,
    layer="architectural",
    description="target plus 6 near-identical copies",
    build=build,
    slot=6,
    diagnostics=(
        Diagnostic("crowding_margin", "ragaudit.stack.measures:crowding_margin", column=4),
    ),
)
