"""distractor: a near-duplicate trap, the gold sentence with only the site and the value changed."""

from __future__ import annotations

import random

from ragaudit.probes.base import BuiltInstance, Instance, Probe
from ragaudit.probes.codes import section_code
from ragaudit.probes.common import instance_id, metadata, short_document
from ragaudit.probes.facts import SITES, Fact, allocate_fact, draw_value, header
from ragaudit.probes.text import Planted

NAME = "distractor"


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """Two documents of one section: the asked site's value, and another site's value."""
    iid = instance_id(NAME, index)
    code = section_code(seed, PROBE.slot, index, rng)
    fact = allocate_fact(seed, NAME, index, rng)
    site, trap_site = rng.sample(SITES, 2)
    trap = Fact(fact.attribute, fact.subject, draw_value(rng, avoid=(fact.value,)))
    where, trap_where = (f"at the {s} of section {code}" for s in (site, trap_site))
    docs, spans = [], {}
    for suffix, sentence, role in (
        ("a", fact.statement(where), "gold"),
        ("b", trap.statement(trap_where), "trap"),
    ):
        title = header(rng, code, fact)
        doc, (span,) = short_document(
            rng, f"{iid}-{suffix}", title, [Planted(sentence, role)], metadata(NAME, iid, title)
        )
        docs.append(doc)
        spans[role] = span
    # Which document is listed first carries no information.
    rng.shuffle(docs)
    instance = Instance(
        probe=NAME,
        layer="architectural",
        instance_id=iid,
        question=fact.question(where),
        gold_answer=f"{fact.value} {fact.attribute.unit}",
        gold_spans=(spans["gold"],),
        trap_spans=(spans["trap"],),
        answer_doc_ids=(spans["gold"].doc_id,),
        anchor=f"section {code}",
        grading=fact.grading(trap_values=(trap.value,)),
        meta={
            "subject": fact.subject,
            "attribute": fact.attribute.key,
            "site": site,
            "trap_site": trap_site,
            "value": fact.value,
            "trap_value": trap.value,
        },
    )
    return BuiltInstance(tuple(docs), instance)


PROBE = Probe(
    name=NAME,
    layer="architectural",
    description="near-duplicate trap sentence",
    build=build,
    slot=2,
    answer_position=1,
)
