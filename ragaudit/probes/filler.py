"""Filler prose: realistic, varied site-operations text with no digits and no planted facts.

Filler never contains a digit, so it can never contain a question's anchor (every anchor
carries digits) or a value answer. It also avoids the words the probes plant ("section",
"exception", "team", "store", "zone", "permitted") and every subject the probes ask about;
`corpus.py` checks that on the assembled corpus.
"""

from __future__ import annotations

import random

from ragaudit.errors import RagauditError
from ragaudit.probes.text import fit_sentence

AREAS = (
    "loading bay",
    "goods-in hall",
    "plant room",
    "boiler house",
    "paint shop",
    "canteen",
    "despatch yard",
    "cold room",
    "battery room",
    "print room",
    "workshop",
    "mezzanine",
    "car park",
    "reception",
    "locker room",
    "server room",
    "quarantine cage",
    "wash bay",
    "tool crib",
    "packing line",
    "returns desk",
    "sample room",
    "pump house",
    "gatehouse",
)
ROLES = (
    "shift lead",
    "duty manager",
    "site engineer",
    "safety officer",
    "facilities coordinator",
    "warehouse supervisor",
    "maintenance planner",
    "first aider",
    "night porter",
    "quality auditor",
    "fleet controller",
    "stock controller",
    "contractor liaison",
    "training lead",
    "health adviser",
    "estates manager",
    "security guard",
    "cleaning lead",
)
RECORDS = (
    "handover sheet",
    "site diary",
    "defect log",
    "permit board",
    "visitor book",
    "incident register",
    "noticeboard",
    "job card",
    "work order",
    "training matrix",
    "risk register",
    "toolbox talk notes",
    "asset tag",
    "daily checklist",
)
WHEN = (
    "at the start of every shift",
    "before the weekend",
    "after each delivery",
    "once the area is quiet",
    "during the morning walk-round",
    "at the end of the day",
    "before any contractor arrives",
    "whenever the weather turns",
    "after a power cut",
    "during the quarterly review",
    "before the night shift takes over",
    "on public holidays",
)
THINGS = (
    "pallet wrap",
    "cardboard bales",
    "spare keys",
    "hi-vis vests",
    "barrier tape",
    "wheel chocks",
    "door wedges",
    "tool trolleys",
    "floor signs",
    "kettle leads",
    "mop buckets",
    "radio handsets",
    "label printers",
    "hand scanners",
    "ladder hooks",
    "cable reels",
    "parcel cages",
    "torch batteries",
    "rubber mats",
    "crate lids",
)
ADJ = (
    "tidy",
    "clear",
    "dry",
    "locked",
    "signed",
    "labelled",
    "lit",
    "swept",
    "ventilated",
    "checked",
    "stocked",
    "reachable",
    "visible",
)

TEMPLATES = (
    "The {role} keeps the {area} {adj} {when}",
    "Anyone entering the {area} signs the {record} first",
    "Spare {thing} are kept near the {area} and returned after use",
    "The {role} reviews the {record} {when}",
    "If the {area} is busy, deliveries wait at the {area2} until the {role} clears them",
    "New starters are walked through the {area} by the {role} on their first day",
    "Faults in the {area} go on the {record} and are passed to the {role}",
    "The {area} should be left {adj}, with {thing} put back where they belong",
    "Questions about the {record} go to the {role} rather than to the {role2}",
    "The {role2} may ask the {role} to close the {area} for cleaning {when}",
    "Visitors are escorted through the {area} and never left alone there",
    "Lost {thing} are handed to the {role} and noted on the {record}",
    "The {record} for the {area} is kept beside the door so that anyone can read it",
    "Ordering more {thing} is the job of the {role}, who checks stock {when}",
    "During audits the {role} shows the {record} and walks the {area} with the auditor",
    "Noise from the {area} is reported to the {role} if it disturbs the {area2}",
    "Contractors working in the {area} agree their route with the {role} beforehand",
    "A short briefing is held in the {area} {when}",
    "Broken {thing} are tagged and taken to the {area} for repair or disposal",
    "The {area} and the {area2} share a fire route, so neither is blocked with {thing}",
    "Staff may borrow {thing} from the {area} if they sign the {record}",
    "Changes to the layout of the {area} are agreed with the {role} and the {role2}",
    "Heating in the {area} is adjusted by the {role} and nobody else",
    "The {role} checks that the {area} is {adj} and {adj2} {when}",
    "Leaks or spills near the {area} are reported at once and the floor is signed off",
    "Keys for the {area} hang in the {area2} and are signed out on the {record}",
    "Pest checks cover the {area} and the {area2} and are written up in the {record}",
    "When the {role} is away, the {role2} covers the {record} as well",
    "The lights in the {area} are switched off when the last person leaves",
    "Anything stacked in the {area} stays below shoulder height and away from the walls",
    "Every month the {role} rotates the {thing} kept in the {area}",
    "Housekeeping in the {area} is scored on the {record} and discussed with the {role}",
    "Deliveries of {thing} are booked through the {role} to avoid crowding the {area}",
    "Vehicles reversing near the {area} need a banksman arranged by the {role}",
    "Any damage to the {area} doors is photographed and attached to the {record}",
    "The {role} agrees cover for breaks so that the {area} is never unattended",
    "Emergency contacts are posted in the {area} and checked by the {role2} {when}",
    "Waste from the {area} is sorted before it reaches the {area2}",
    "Trolleys are parked along the wall of the {area} when they are not in use",
    "Feedback on the {area} goes into the {record}, which the {role} reads {when}",
)
CLAUSES = (
    "with the details written on the {record}",
    "as agreed with the {role}",
    "so that the {area} stays usable for everyone",
    "unless the {role} says otherwise",
    "and the {role2} is told about any problem",
    "which saves time for the next shift",
    "even when the {area} is quiet",
    "in line with the site induction",
    "and nothing is left on the floor of the {area}",
    "after checking with the {role2}",
)


def _fill(rng: random.Random, template: str) -> str:
    areas = rng.sample(AREAS, 2)
    roles = rng.sample(ROLES, 2)
    adjs = rng.sample(ADJ, 2)
    return template.format(
        area=areas[0],
        area2=areas[1],
        role=roles[0],
        role2=roles[1],
        record=rng.choice(RECORDS),
        when=rng.choice(WHEN),
        thing=rng.choice(THINGS),
        adj=adjs[0],
        adj2=adjs[1],
    )


def filler_sentence(rng: random.Random, used: set[str] | None = None) -> str:
    """One filler sentence, ending with a full stop; its template is added to `used` and
    not reused while unused templates remain (so a document does not repeat itself)."""
    return _capital(_fill(rng, _template(rng, used))) + "."


def _capital(text: str) -> str:
    return text[0].upper() + text[1:]


def _template(rng: random.Random, used: set[str] | None) -> str:
    if used is None:
        return rng.choice(TEMPLATES)
    fresh = [t for t in TEMPLATES if t not in used]
    if not fresh:
        used.clear()
        fresh = list(TEMPLATES)
    template = rng.choice(fresh)
    used.add(template)
    return template


def filler_sentences(rng: random.Random, count: int, used: set[str] | None = None) -> list[str]:
    """`count` filler sentences from different templates (shared `used` across a document)."""
    used = set() if used is None else used
    return [filler_sentence(rng, used) for _ in range(count)]


def filler_paragraph(
    rng: random.Random, low: int = 3, high: int = 6, used: set[str] | None = None
) -> list[str]:
    """The sentences of one filler paragraph."""
    return filler_sentences(rng, rng.randint(low, high), used)


def clauses(rng: random.Random) -> list[str]:
    """Padding clauses with no sentence terminator, filled for one sentence."""
    return [_fill(rng, clause) for clause in CLAUSES]


def sentences_of_length(rng: random.Random, length: int, used: set[str] | None = None) -> list[str]:
    """Filler sentences that, joined by single spaces, are exactly `length` characters.

    The last sentence is fitted with padding clauses; `length` must be at least 40.
    """
    out: list[str] = []
    total = -1  # the first sentence needs no joining space
    while True:
        left = length - total - 1
        sentence = filler_sentence(rng, used)
        if left - (len(sentence) + 1) < 110:
            break
        out.append(sentence)
        total += len(sentence) + 1
    left = length - total - 1 if out else length
    for _ in range(100):
        core = _fill(rng, _template(rng, used))
        if len(core) > left - 9:
            continue
        try:
            last = fit_sentence(rng, core[0].upper() + core[1:], clauses(rng), left, tries=5)
        except RagauditError:
            continue
        return [*out, last]
    raise RagauditError(f"cannot write filler of exactly {length} characters")
