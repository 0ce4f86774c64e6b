"""paraphrase: the question shares almost no content words with the gold sentence.

Apart from the section code (the question's key) and the word "section", the question and
the sentence say the same thing in different words.
"""

from __future__ import annotations

import random

from ragaudit.probes.base import BuiltInstance, Instance, ProbeBuilder
from ragaudit.probes.codes import section_code
from ragaudit.probes.common import instance_id, metadata, short_document
from ragaudit.probes.facts import draw_value
from ragaudit.probes.text import Planted
from ragaudit.registry import Registry

NAME = "paraphrase"
# (question, sentence, unit, title subject)
PAIRS = (
    (
        "How heavy a load may one person carry alone under section {code}?",
        "Section {code}: lifting more than {value} kilograms requires a second worker.",
        "kilograms",
        "manual handling",
    ),
    (
        "Under section {code}, how quickly must somebody respond when an alarm sounds?",
        "Section {code}: any alert has to be attended within {value} minutes.",
        "minutes",
        "alert attendance",
    ),
    (
        "How long can a spill kit go unchecked under section {code}?",
        "Section {code}: absorbent response packs get examined every {value} days.",
        "days",
        "absorbent packs",
    ),
    (
        "For how long does section {code} hold on to records of who came onto the premises?",
        "Section {code}: visitor sign-in sheets are archived for {value} months.",
        "months",
        "sign-in sheets",
    ),
    (
        "Under section {code}, how much free space must surround a fire extinguisher?",
        "Section {code}: leave {value} centimetres unobstructed beside every "
        "extinguishing appliance.",
        "centimetres",
        "appliance access",
    ),
    (
        "In section {code}, how warm may the room holding paint get?",
        "Section {code}: coatings stock must be held beneath {value} degrees Celsius.",
        "degrees Celsius",
        "coatings stock",
    ),
    (
        "Under section {code}, at what loudness do workers need ear protection?",
        "Section {code}: hearing defenders become mandatory once sound levels pass "
        "{value} decibels.",
        "decibels",
        "hearing defenders",
    ),
    (
        "How often does section {code} swap out the filters in breathing masks?",
        "Section {code}: face-mask canisters are renewed every {value} weeks.",
        "weeks",
        "canister renewal",
    ),
    (
        "Under section {code}, how long may a forklift battery sit on charge?",
        "Section {code}: truck power cells are disconnected from chargers after {value} hours.",
        "hours",
        "power cells",
    ),
    (
        "In section {code}, how far must smokers stay from the building?",
        "Section {code}: tobacco use is only allowed {value} metres away from any entrance.",
        "metres",
        "tobacco use",
    ),
    (
        "What is the speed cap for vehicles moving around section {code}?",
        "Section {code}: trucks must travel no faster than {value} kilometres per hour on site.",
        "kilometres per hour",
        "truck travel",
    ),
    (
        "In section {code}, how soon must a cut or burn be written down?",
        "Section {code}: injuries are entered in the accident book within {value} minutes.",
        "minutes",
        "accident book",
    ),
)


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """A document stating a value in words the question does not use."""
    iid = instance_id(NAME, index)
    code = section_code(seed, NAME, index, rng)
    question, sentence, unit, subject = PAIRS[(index + rng.randrange(len(PAIRS))) % len(PAIRS)]
    value = draw_value(rng)
    title = f"Section {code}: {subject}"
    doc, (gold,) = short_document(
        rng,
        iid,
        title,
        [Planted(sentence.format(code=code, value=value), "gold")],
        metadata(NAME, iid, title),
    )
    instance = Instance(
        probe=NAME,
        layer="embedding",
        instance_id=iid,
        question=question.format(code=code),
        gold_answer=f"{value} {unit}",
        gold_spans=(gold,),
        answer_doc_ids=(doc.doc_id,),
        anchor=f"section {code}",
        grading={
            "kind": "value",
            "accept": [str(value), f"{value} {unit}"],
            "trap_values": [],
            "unit": unit,
        },
        meta={"value": value, "pair": PAIRS.index((question, sentence, unit, subject))},
    )
    return BuiltInstance((doc,), instance)


def register(registry: Registry[ProbeBuilder]) -> None:
    """Add the paraphrase probe to `registry`."""
    registry.add(
        NAME, ProbeBuilder(NAME, "embedding", "question and answer share few words", build)
    )
