"""multihop: a mapping sentence (team -> zone) and an answer sentence (zone -> value) apart.

The question names the team; the mapping sentence shares only the word "team" and the
team's number with it, and the answer sentence never names the team. The two sentences
sit in different documents, so answering needs both hops.
"""

from __future__ import annotations

import random

from ragaudit.probes.base import BuiltInstance, Diagnostic, Instance, Probe
from ragaudit.probes.codes import team_number
from ragaudit.probes.common import instance_id, metadata, short_document
from ragaudit.probes.facts import allocate_fact
from ragaudit.probes.filler import AREAS
from ragaudit.probes.text import Planted

NAME = "multihop"
ZONES = (
    "Harrow",
    "Linden",
    "Marsh",
    "Alder",
    "Birch",
    "Cedar",
    "Fenwick",
    "Gorse",
    "Heath",
    "Juniper",
    "Kestrel",
    "Larch",
    "Maple",
    "Nettle",
    "Poplar",
    "Quarry",
    "Rowan",
    "Sorrel",
    "Thistle",
    "Umber",
    "Willow",
    "Yarrow",
    "Bracken",
    "Clover",
    "Dunlin",
    "Ember",
    "Fallow",
    "Granite",
    "Hazel",
    "Jasper",
    "Lichen",
    "Osprey",
    "Pebble",
    "Quill",
    "Slate",
    "Tansy",
    "Vetch",
    "Wren",
    "Ashby",
    "Bramble",
    "Copper",
    "Drake",
    "Elder",
    "Flint",
    "Garnet",
    "Hollin",
    "Ivy",
    "Kinloch",
)
MAPPINGS = (
    "Team {team} works out of zone {zone}.",
    "Team {team} is based in zone {zone}.",
    "Zone {zone} is home to team {team}.",
    "Team {team} operates from zone {zone}.",
)


def zone_name(seed: int, index: int) -> str:
    """A zone name unique per instance (a second word once the plain names run out)."""
    order = random.Random(f"{seed}/zones").sample(ZONES, len(ZONES))
    base = order[index % len(ZONES)]
    round_ = index // len(ZONES)
    return base if round_ == 0 else f"{base} {('North', 'South', 'East', 'West')[round_ - 1]}"


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """A roster document mapping the team to a zone, and a zone document with the value."""
    iid = instance_id(NAME, index)
    team = team_number(seed, index)
    zone = zone_name(seed, index)
    fact = allocate_fact(seed, NAME, index, rng)
    mapping = rng.choice(MAPPINGS).format(team=team, zone=zone)
    answer = fact.statement(f"in zone {zone}")
    roster_title = f"Roster notes for the {rng.choice(AREAS)}"
    zone_title = f"Zone {zone}: {fact.subject} {fact.attribute.noun}"
    roster, (mapping_span,) = short_document(
        rng,
        f"{iid}-a",
        roster_title,
        [Planted(mapping, "mapping")],
        metadata(NAME, iid, roster_title),
    )
    zone_doc, (answer_span,) = short_document(
        rng, f"{iid}-b", zone_title, [Planted(answer, "answer")], metadata(NAME, iid, zone_title)
    )
    instance = Instance(
        probe=NAME,
        layer="architectural",
        instance_id=iid,
        question=fact.question(f"looked after by team {team}"),
        gold_answer=f"{fact.value} {fact.attribute.unit}",
        gold_spans=(mapping_span, answer_span),
        answer_doc_ids=(roster.doc_id, zone_doc.doc_id),
        anchor=f"team {team}",
        grading=fact.grading(),
        meta={"team": team, "zone": zone, "value": fact.value, "subject": fact.subject},
    )
    return BuiltInstance((roster, zone_doc), instance)


PROBE = Probe(
    name=NAME,
    layer="architectural",
    description="two hops in two documents",
    build=build,
    slot=9,
    diagnostics=(Diagnostic("hops", "ragaudit.stack.measures:hops", column=2),),
)
