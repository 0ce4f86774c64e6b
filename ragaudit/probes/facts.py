"""Value facts the probes plant: an attribute of a subject somewhere, with a number and unit.

Each attribute has its own pool of subjects, a statement template and a question
template, so instances vary in vocabulary and not only in their codes. Values are two-digit
numbers from 32 to 98: never a plausible day of the month, so a date in a document can
never be mistaken for an answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Attribute:
    """A kind of fact: what is asked, in which unit, and how it is said and asked."""

    key: str
    unit: str
    subjects: tuple[str, ...]
    statement: str
    """Sentence body with {Where}/{where}, {subject}, {value}; no final full stop."""
    question: str
    """Question with {where}, {subject}."""
    noun: str
    """A short noun for headers, e.g. "inspections"."""
    note: str
    """A same-subject sentence that states no value (copies and unanswerable use it)."""


ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute(
        "inspection_interval",
        "days",
        (
            "fire doors",
            "dock levellers",
            "sprinkler valves",
            "roller shutters",
            "stair handrails",
            "mezzanine barriers",
            "loading ramps",
            "extraction hoods",
            "pallet racking",
            "smoke curtains",
        ),
        "{Where}, {subject} are inspected every {value} days",
        "How often are {subject} {where} inspected?",
        "inspections",
        "{Where}, {subject} are logged by the duty manager after each inspection",
    ),
    Attribute(
        "storage_temperature",
        "degrees Celsius",
        (
            "solvent drums",
            "adhesive cartridges",
            "resin tins",
            "coolant barrels",
            "lubricant canisters",
            "sealant tubes",
            "cleaning concentrates",
            "varnish pails",
        ),
        "{Where}, {subject} must be stored below {value} degrees Celsius",
        "What is the maximum storage temperature for {subject} {where}?",
        "storage",
        "{Where}, {subject} are stored on the lowest shelf away from the door",
    ),
    Attribute(
        "retention_period",
        "months",
        (
            "visitor logs",
            "permit records",
            "calibration certificates",
            "shift handover notes",
            "forklift checklists",
            "waste transfer notes",
            "training registers",
            "key issue logs",
        ),
        "{Where}, {subject} are kept for {value} months",
        "How long are {subject} {where} kept?",
        "records",
        "{Where}, {subject} are filed in the locked cabinet by the office door",
    ),
    Attribute(
        "minimum_clearance",
        "centimetres",
        (
            "electrical switchboards",
            "gas meters",
            "escape hatches",
            "control cabinets",
            "isolation valves",
            "alarm panels",
            "riser cupboards",
            "distribution boards",
        ),
        "{Where}, a clearance of at least {value} centimetres is kept around {subject}",
        "What minimum clearance must be kept around {subject} {where}?",
        "clearances",
        "{Where}, {subject} are marked with yellow floor paint",
    ),
    Attribute(
        "maximum_load",
        "kilograms",
        (
            "mezzanine shelves",
            "platform trolleys",
            "hand carts",
            "step platforms",
            "tote bins",
            "wall brackets",
            "cantilever arms",
            "roll cages",
        ),
        "{Where}, {subject} carry at most {value} kilograms",
        "What is the maximum load for {subject} {where}?",
        "load limits",
        "{Where}, {subject} are tagged with the name of their owner",
    ),
    Attribute(
        "response_time",
        "minutes",
        (
            "spill alarms",
            "door faults",
            "leak reports",
            "lift breakdowns",
            "freezer alarms",
            "power trips",
            "intruder alerts",
            "boiler faults",
        ),
        "{Where}, {subject} must be answered within {value} minutes",
        "Within how many minutes must {subject} {where} be answered?",
        "call-outs",
        "{Where}, {subject} are announced over the radio channel",
    ),
    Attribute(
        "replacement_interval",
        "weeks",
        (
            "air filters",
            "hydraulic seals",
            "conveyor belts",
            "battery packs",
            "hose couplings",
            "drive chains",
            "filter bags",
            "brush strips",
        ),
        "{Where}, {subject} are replaced every {value} weeks",
        "How often are {subject} {where} replaced?",
        "replacements",
        "{Where}, {subject} are ordered through the maintenance planner",
    ),
)

SITES = (
    "north annex",
    "east depot",
    "river yard",
    "upper mezzanine",
    "west gatehouse",
    "south wing",
    "rail sidings",
    "old mill",
    "cold store annex",
    "harbour shed",
    "canal wharf",
    "print works",
    "bottling hall",
    "tannery block",
    "chapel yard",
)
"""Site qualifiers for the distractor probe: the only words its trap changes."""


@dataclass(frozen=True)
class Fact:
    """One planted value: `attribute` of `subject` at `where` is `value` `unit`."""

    attribute: Attribute
    subject: str
    value: int

    def statement(self, where: str) -> str:
        """The sentence stating the fact, with its full stop."""
        body = self.attribute.statement.format(
            Where=where[0].upper() + where[1:], subject=self.subject, value=self.value
        )
        return body + "."

    def note(self, where: str) -> str:
        """A sentence about the same subject that states no value."""
        return (
            self.attribute.note.format(Where=where[0].upper() + where[1:], subject=self.subject)
            + "."
        )

    def question(self, where: str) -> str:
        """The question that asks for the value."""
        return self.attribute.question.format(where=where, subject=self.subject)

    def grading(self, trap_values: tuple[int, ...] = ()) -> dict:
        """The value grading spec."""
        return {
            "kind": "value",
            "accept": [str(self.value), f"{self.value} {self.attribute.unit}"],
            "trap_values": [str(v) for v in trap_values],
            "unit": self.attribute.unit,
        }


def draw_value(rng: random.Random, avoid: tuple[int, ...] = ()) -> int:
    """A two-digit value from 32 to 98, different from those in `avoid`."""
    while True:
        value = rng.randint(32, 98)
        if value not in avoid:
            return value


def draw_fact(rng: random.Random) -> Fact:
    """A random attribute, subject and value."""
    attribute = rng.choice(ATTRIBUTES)
    return Fact(attribute, rng.choice(attribute.subjects), draw_value(rng))


def header(
    rng: random.Random, code: str, fact: Fact, lengths: tuple[int, int] | None = None
) -> str | None:
    """A header line naming the section and its subject; None if none fits `lengths`."""
    nouns = (fact.attribute.noun, "rules", "notes", "schedule", "guidance", "checks")
    options = [f"Section {code}: {fact.subject} {noun}" for noun in nouns]
    options += [f"Section {code}: {noun} for {fact.subject}" for noun in nouns]
    if lengths:
        options = [o for o in options if lengths[0] <= len(o) <= lengths[1]]
    return rng.choice(options) if options else None
