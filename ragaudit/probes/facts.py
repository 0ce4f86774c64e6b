"""Value facts the probes plant: an attribute of a subject somewhere, with a number and unit.

Each attribute has its own pool of subjects, a statement template and a question
template, so instances vary in vocabulary and not only in their codes. Values are two-digit
numbers from 32 to 98: never a plausible day of the month, so a date in a document can
never be mistaken for an answer.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from ragaudit.probes.pools import SUBJECTS


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
    short: str = ""
    """A shorter statement (boundary's shortest spans); empty means `statement`."""


ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute(
        "inspection_interval",
        "days",
        SUBJECTS["inspection_interval"],
        "{Where}, {subject} are inspected every {value} days",
        "How often are {subject} {where} inspected?",
        "inspections",
        "{Where}, {subject} are logged by the duty manager after each inspection",
    ),
    Attribute(
        "storage_temperature",
        "degrees Celsius",
        SUBJECTS["storage_temperature"],
        "{Where}, {subject} must be stored below {value} degrees Celsius",
        "What is the maximum storage temperature for {subject} {where}?",
        "storage",
        "{Where}, {subject} are stored on the lowest shelf away from the door",
        "{Where}, {subject} stay below {value} degrees Celsius",
    ),
    Attribute(
        "retention_period",
        "months",
        SUBJECTS["retention_period"],
        "{Where}, {subject} are kept for {value} months",
        "How long are {subject} {where} kept?",
        "records",
        "{Where}, {subject} are filed in the locked cabinet by the office door",
    ),
    Attribute(
        "minimum_clearance",
        "centimetres",
        SUBJECTS["minimum_clearance"],
        "{Where}, a clearance of at least {value} centimetres is kept around {subject}",
        "What minimum clearance must be kept around {subject} {where}?",
        "clearances",
        "{Where}, {subject} are marked with yellow floor paint",
        "{Where}, {subject} need {value} centimetres of clearance",
    ),
    Attribute(
        "maximum_load",
        "kilograms",
        SUBJECTS["maximum_load"],
        "{Where}, {subject} carry at most {value} kilograms",
        "What is the maximum load for {subject} {where}?",
        "load limits",
        "{Where}, {subject} are tagged with the name of their owner",
    ),
    Attribute(
        "response_time",
        "minutes",
        SUBJECTS["response_time"],
        "{Where}, {subject} must be answered within {value} minutes",
        "Within how many minutes must {subject} {where} be answered?",
        "call-outs",
        "{Where}, {subject} are announced over the radio channel",
        "{Where}, {subject} are answered within {value} minutes",
    ),
    Attribute(
        "replacement_interval",
        "weeks",
        SUBJECTS["replacement_interval"],
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

    def statement(self, where: str, short: bool = False) -> str:
        """The sentence stating the fact, with its full stop (`short`: the compact form)."""
        template = (short and self.attribute.short) or self.attribute.statement
        body = template.format(
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


VALUE_PROBES = (
    "control",
    "boundary",
    "distractor",
    "superseded",
    "duplicate_crowding",
    "unanswerable",
    "multihop",
)
"""Probes that plant a value fact; they share one allocation of (attribute, subject)."""


@functools.lru_cache(maxsize=16)
def _order(seed: int, kind: str, size: int) -> tuple[int, ...]:
    return tuple(random.Random(f"{seed}/allocate/{kind}").sample(range(size), size))


def allocate(seed: int, kind: str, key: int, size: int) -> int:
    """Entry `key` of a seeded permutation of range(size): distinct for distinct keys below
    `size`, repeating (in the same order) beyond it."""
    return _order(seed, kind, size)[key % size]


def allocate_fact(seed: int, probe: str, index: int, rng: random.Random) -> Fact:
    """A fact whose (attribute, subject) no other value-probe instance uses, as long as the
    corpus has no more instances than the pools have subjects (210: n=30 across 7 probes).

    Keys interleave probes by index, so the first n instances of every probe are distinct
    whatever n is; the value is drawn from the instance's own rng.
    """
    pairs = [(a, s) for a in ATTRIBUTES for s in a.subjects]
    key = index * len(VALUE_PROBES) + VALUE_PROBES.index(probe)
    attribute, subject = pairs[allocate(seed, "fact", key, len(pairs))]
    return Fact(attribute, subject, draw_value(rng))


def header(
    rng: random.Random, code: str, fact: Fact, lengths: tuple[int, int] | None = None
) -> str | None:
    """A header line naming the section and its subject; None if none fits `lengths`."""
    nouns = (fact.attribute.noun, "rules", "notes", "schedule", "guidance", "checks", "log")
    nouns += ("upkeep", "duties", "arrangements", "procedure", "standards", "care")
    options = [f"Section {code}: {fact.subject} {noun}" for noun in nouns]
    options += [f"Section {code}: {noun} for {fact.subject}" for noun in nouns]
    if lengths:
        options = [o for o in options if lengths[0] <= len(o) <= lengths[1]]
    return rng.choice(options) if options else None
