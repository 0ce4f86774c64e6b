"""unanswerable: a question about a real section whose asked value the corpus never states.

One document names the section and the subject (so retrieval finds something relevant)
but states no value for what is asked; no other document names the section.
"""

from __future__ import annotations

import random

from ragaudit.probes.base import BuiltInstance, Instance, Probe
from ragaudit.probes.codes import section_code
from ragaudit.probes.common import instance_id, metadata, short_document
from ragaudit.probes.facts import allocate_fact, header
from ragaudit.probes.text import Planted

NAME = "unanswerable"


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """A related document without the value, and a question asking for the value."""
    iid = instance_id(NAME, index)
    code = section_code(seed, PROBE.slot, index, rng)
    fact = allocate_fact(seed, NAME, index, rng)
    where = f"in section {code}"
    title = header(rng, code, fact)
    doc, (related,) = short_document(
        rng, iid, title, [Planted(fact.note(where), "related")], metadata(NAME, iid, title)
    )
    instance = Instance(
        probe=NAME,
        layer="architectural",
        instance_id=iid,
        question=fact.question(where),
        gold_answer=None,
        gold_spans=(),
        extra_spans=(related,),
        answer_doc_ids=(),
        anchor=f"section {code}",
        grading={"kind": "abstain"},
        meta={"related_doc": doc.doc_id, "subject": fact.subject, "attribute": fact.attribute.key},
    )
    return BuiltInstance((doc,), instance)


PROBE = Probe(
    name=NAME,
    layer="architectural",
    description="the corpus cannot answer",
    build=build,
    slot=7,
    answer_position=6,
)
