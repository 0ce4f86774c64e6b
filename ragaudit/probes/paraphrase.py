"""paraphrase: the question shares almost no content words with the gold sentence.

Apart from the section code (the question's key) and the word "section", the question and
the sentence say the same thing in different words.
"""

from __future__ import annotations

import random
import re

from ragaudit.probes.base import BuiltInstance, Instance, Probe
from ragaudit.probes.codes import section_code
from ragaudit.probes.common import instance_id, metadata, short_document
from ragaudit.probes.facts import allocate, draw_value
from ragaudit.probes.text import Planted

NAME = "paraphrase"
# (question, sentence, unit, title subject): the two share only "section" and the code.
_PAIRS_TEXT = """
How heavy a load may one person carry alone under section {code}? |
 Section {code}: lifting more than {value} kilograms requires a second worker. | kilograms |
 manual handling
Under section {code}, how quickly must somebody respond when an alarm sounds? |
 Section {code}: any alert has to be attended within {value} minutes. | minutes | alert attendance
How long can a spill kit go unchecked under section {code}? |
 Section {code}: absorbent response packs get examined every {value} days. | days | absorbent packs
For how long does section {code} hold on to records of who came onto the premises? |
 Section {code}: guest sign-in sheets are archived for {value} months. | months | sign-in sheets
Under section {code}, how much free space must surround a fire extinguisher? |
 Section {code}: leave {value} centimetres unobstructed beside every extinguishing appliance. |
 centimetres | appliance access
In section {code}, how warm may the room holding paint get? |
 Section {code}: coatings stock must be held beneath {value} degrees Celsius. | degrees Celsius |
 coatings stock
Under section {code}, at what loudness do workers need ear protection? |
 Section {code}: hearing defenders become mandatory once sound levels pass {value} decibels. |
 decibels | hearing defenders
How often does section {code} swap out the filters in breathing masks? |
 Section {code}: face-mask canisters are renewed every {value} weeks. | weeks | canister renewal
Under section {code}, how long may a forklift battery sit on charge? |
 Section {code}: truck power cells are disconnected from chargers after {value} hours. | hours |
 power cells
In section {code}, how far must smokers stay from the building? |
 Section {code}: tobacco use is only allowed {value} metres away from any entrance. | metres |
 tobacco use
What is the speed cap for vehicles moving around section {code}? |
 Section {code}: trucks must travel no faster than {value} kilometres per hour on site. |
 kilometres per hour | truck travel
In section {code}, how soon must a cut or burn be written down? |
 Section {code}: injuries are entered in the accident book within {value} minutes. | minutes |
 accident book
How many people may ride the goods lift together in section {code}? |
 Section {code}: the freight elevator holds no more than {value} passengers. | passengers |
 freight elevator
Under section {code}, how long can staff work before taking a rest? |
 Section {code}: employees pause for a break after {value} minutes on duty. | minutes |
 break pattern
In section {code}, how bright must corridors be lit at night? |
 Section {code}: walkways receive at least {value} lux after dark. | lux | walkway lighting
Under section {code}, how cold can the canteen fridge run? |
 Section {code}: the kitchen chiller is held near {value} degrees Fahrenheit. |
 degrees Fahrenheit | kitchen chiller
How long does section {code} allow a visitor car to stay parked? |
 Section {code}: guest vehicles may remain in bays for {value} hours. | hours | guest vehicles
In section {code}, how tall can boxes be piled? |
 Section {code}: stacks of cartons never rise above {value} centimetres. | centimetres |
 carton stacks
Under section {code}, how fast may the conveyor move goods? |
 Section {code}: the belt line runs at {value} metres per minute. | metres per minute | belt line
In section {code}, how many days ahead must holiday be requested? |
 Section {code}: leave applications reach the office {value} days beforehand. | days |
 leave applications
Under section {code}, how wide must an escape route stay? |
 Section {code}: evacuation paths keep {value} centimetres of width free. | centimetres |
 evacuation paths
How long does section {code} give new starters to finish their induction? |
 Section {code}: recruits complete onboarding within {value} days of joining. | days | onboarding
In section {code}, how often is the drinking water tested? |
 Section {code}: potable supply samples go to the laboratory every {value} days. | days |
 potable supply
Under section {code}, what humidity is allowed in the archive room? |
 Section {code}: the records vault is kept below {value} percent moisture. | percent | records vault
How loud may music be played in section {code}? |
 Section {code}: radios and speakers stay under {value} decibels. | decibels | radios and speakers
In section {code}, how long must a hot surface cool before anyone touches it? |
 Section {code}: heated plates are left alone for {value} minutes after switch-off. | minutes |
 heated plates
Under section {code}, how much weight can the roof take from snow? |
 Section {code}: the upper deck is rated for {value} kilograms per square metre of drift. |
 kilograms per square metre | upper deck
How often are the first-aid boxes restocked in section {code}? |
 Section {code}: medical kits are replenished every {value} days. | days | medical kits
In section {code}, how long may a delivery driver wait at the gate? |
 Section {code}: hauliers are held at the barrier for no more than {value} minutes. | minutes |
 haulier waiting
Under section {code}, how deep can water in the sump get before pumping starts? |
 Section {code}: drainage pits are emptied once levels reach {value} centimetres. |
 centimetres | drainage pits
"""


def _parse(text: str) -> tuple[tuple[str, str, str, str], ...]:
    # One pair per entry; an entry's continuation lines start with a space.
    entries = re.split(r"\n(?! )", text.strip())
    parsed = []
    for entry in entries:
        parts = [" ".join(part.split()) for part in entry.split("|")]
        question, sentence, unit, subject = parts
        parsed.append((question, sentence, unit, subject))
    return tuple(parsed)


PAIRS = _parse(_PAIRS_TEXT)


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """A document stating a value in words the question does not use."""
    iid = instance_id(NAME, index)
    code = section_code(seed, PROBE.slot, index, rng)
    pair = allocate(seed, "paraphrase", index, len(PAIRS))
    question, sentence, unit, subject = PAIRS[pair]
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
        meta={"value": value, "pair": pair},
    )
    return BuiltInstance((doc,), instance)


PROBE = Probe(
    name=NAME,
    layer="embedding",
    description="question and answer share few words",
    build=build,
    slot=8,
)
