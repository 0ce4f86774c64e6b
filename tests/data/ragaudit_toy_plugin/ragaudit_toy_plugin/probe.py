"""pallet_check: one short document states how often pallets are checked; nothing competes."""

from __future__ import annotations

import random

from ragaudit.probes.base import BuiltInstance, Instance, Probe
from ragaudit.probes.codes import section_code
from ragaudit.probes.common import instance_id, metadata, short_document
from ragaudit.probes.text import Planted

NAME = "pallet_check"


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """Instance `index`: a single-chunk document stating one interval in days."""
    iid = instance_id(NAME, index)
    code = section_code(seed, PROBE.slot, index, rng)
    days = rng.randint(11, 29)
    title = f"Section {code}: pallet checks"
    sentence = Planted(f"Under section {code} pallets are checked every {days} days.", "gold")
    doc, spans = short_document(rng, iid, title, [sentence], metadata(NAME, iid, title))
    instance = Instance(
        probe=NAME,
        layer="architectural",
        instance_id=iid,
        question=f"How often are pallets checked under section {code}?",
        gold_answer=f"{days} days",
        gold_spans=tuple(spans),
        answer_doc_ids=(doc.doc_id,),
        anchor=f"section {code}",
        grading={
            "kind": "value",
            "accept": [str(days), f"{days} days"],
            "trap_values": [],
            "unit": "days",
        },
    )
    return BuiltInstance((doc,), instance)


PROBE = Probe(
    name=NAME,
    layer="architectural",
    description="one interval in one short document",
    build=build,
    slot=11,  # the first free block of section codes: 0 to 10 are the shipped probes'
    answer_position=7,  # after the seven shipped answer probes
)
