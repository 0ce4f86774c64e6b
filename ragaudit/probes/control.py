"""control: the answer sentence sits inside one short document; nothing competes with it."""

from __future__ import annotations

import random

from ragaudit.probes.base import BuiltInstance, Instance, Probe
from ragaudit.probes.codes import section_code
from ragaudit.probes.common import instance_id, metadata, short_document
from ragaudit.probes.facts import allocate_fact, header
from ragaudit.probes.text import Planted

NAME = "control"


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """One control instance: a single-chunk document stating one value."""
    iid = instance_id(NAME, index)
    code = section_code(seed, PROBE.slot, index, rng)
    fact = allocate_fact(seed, NAME, index, rng)
    where = f"in section {code}"
    title = header(rng, code, fact)
    doc, spans = short_document(
        rng, iid, title, [Planted(fact.statement(where), "gold")], metadata(NAME, iid, title)
    )
    instance = Instance(
        probe=NAME,
        layer="control",
        instance_id=iid,
        question=fact.question(where),
        gold_answer=f"{fact.value} {fact.attribute.unit}",
        gold_spans=tuple(spans),
        answer_doc_ids=(doc.doc_id,),
        anchor=f"section {code}",
        grading=fact.grading(),
        meta={"attribute": fact.attribute.key, "subject": fact.subject, "value": fact.value},
    )
    return BuiltInstance((doc,), instance)


PROBE = Probe(
    name=NAME,
    layer="control",
    description=__doc__.split(": ", 1)[1].strip(),
    build=build,
    slot=0,
    answer_position=0,
)
