"""summarisation: "list every exception", five labelled items in five separate documents.

Each exception has a label ("exception 4") and content ("eyewash stations"); a reply
that lists labels names no content. One item per document, so no three chunks can hold
all five.
"""

from __future__ import annotations

import random

from ragaudit.probes.base import BuiltInstance, Diagnostic, Instance, Probe
from ragaudit.probes.codes import section_code
from ragaudit.probes.common import instance_id, metadata, short_document
from ragaudit.probes.facts import allocate
from ragaudit.probes.pools import RULES
from ragaudit.probes.text import Planted

NAME = "summarisation"
ITEMS = (
    "eyewash stations",
    "respirator cartridges",
    "emergency lighting circuits",
    "first-aid cabinets",
    "fire blankets",
    "safety showers",
    "gas detectors",
    "harness anchors",
    "ladder inspection tags",
    "guard rails",
    "door closers",
    "smoke vents",
    "spill kits",
    "defibrillators",
    "ear defenders",
    "welding screens",
    "chemical goggles",
    "cut-resistant gloves",
    "exit signs",
    "panic bars",
    "scaffold clips",
    "machine guards",
    "lockout padlocks",
    "fume cupboards",
    "bump caps",
    "knee pads",
    "rescue hooks",
    "emergency stop cords",
    "sharps bins",
    "anti-slip mats",
    "confined-space monitors",
    "warning beacons",
    "hearing loops",
    "evacuation chairs",
)
SENTENCES = (
    "Exception {k} to the {rule} in section {code} covers {item}.",
    "Under section {code}, exception {k} to the {rule} applies to {item}.",
    "Section {code} lists {item} as exception {k} to the {rule}.",
)
TITLES = (
    "Section {code}: exceptions to the {rule}",
    "Section {code}: {rule} exceptions",
    "Section {code}: notice on the {rule}",
    "Section {code}: where the {rule} does not apply",
)


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """Five documents, each stating one labelled exception for the same section."""
    iid = instance_id(NAME, index)
    code = section_code(seed, PROBE.slot, index, rng)
    rule = RULES[allocate(seed, "rule", index, len(RULES))]
    items = rng.sample(ITEMS, 5)
    labels = [f"exception {k}" for k in range(1, 6)]
    docs, spans = [], []
    for k, item in enumerate(items, start=1):
        title = rng.choice(TITLES).format(code=code, rule=rule)
        sentence = rng.choice(SENTENCES).format(k=k, code=code, item=item, rule=rule)
        doc, (span,) = short_document(
            rng, f"{iid}-{k}", title, [Planted(sentence, "item")], metadata(NAME, iid, title)
        )
        docs.append(doc)
        spans.append(span)
    instance = Instance(
        probe=NAME,
        layer="architectural",
        instance_id=iid,
        question=f"List every exception to the {rule} that applies in section {code}.",
        gold_answer=list(items),
        gold_spans=tuple(spans),
        answer_doc_ids=tuple(d.doc_id for d in docs),
        anchor=f"section {code}",
        grading={"kind": "list", "items": list(items), "labels": labels},
        meta={"rule": rule, "labels": dict(zip(labels, items, strict=True))},
    )
    return BuiltInstance(tuple(docs), instance)


PROBE = Probe(
    name=NAME,
    layer="architectural",
    description="five items in five documents",
    build=build,
    slot=4,
    answer_position=4,
    diagnostics=(
        Diagnostic("items_in_context", "ragaudit.stack.measures:items_in_context", column=3),
    ),
)
