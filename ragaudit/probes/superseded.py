"""superseded: a current and a superseded policy for one section, told apart only by dates.

Both documents carry the same header and the same sentence except for the value; which
one is current is stated by their effective dates (and by `supersedes` in metadata), not
by any wording a retriever could match. Document ids are neutral (-a/-b in random order).
"""

from __future__ import annotations

import datetime
import random

from ragaudit.probes.base import BuiltInstance, Instance, Probe
from ragaudit.probes.codes import section_code
from ragaudit.probes.common import instance_id, metadata, short_document
from ragaudit.probes.facts import Fact, allocate_fact, draw_value, header
from ragaudit.probes.text import Planted

NAME = "superseded"


def _date(rng: random.Random, year: int) -> datetime.date:
    # Days stop at 28, below every value (32..98), so a date never reads as an answer.
    return datetime.date(year, rng.randint(1, 12), rng.randint(1, 28))


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """Two dated policies for the same section and subject with different values."""
    iid = instance_id(NAME, index)
    code = section_code(seed, PROBE.slot, index, rng)
    current = allocate_fact(seed, NAME, index, rng)
    old = Fact(current.attribute, current.subject, draw_value(rng, avoid=(current.value,)))
    old_year = rng.randint(2019, 2023)
    old_date = _date(rng, old_year)
    new_date = _date(rng, old_year + rng.randint(1, 3))
    where = f"in section {code}"
    title = header(rng, code, current)
    suffixes = ["a", "b"]
    rng.shuffle(suffixes)
    new_id, old_id = (f"{iid}-{s}" for s in suffixes)
    docs, spans = {}, {}
    for doc_id, fact, date, role, extra in (
        (new_id, current, new_date, "gold", {"supersedes": old_id}),
        (old_id, old, old_date, "trap", {"superseded_by": new_id}),
    ):
        doc, (span,) = short_document(
            rng,
            doc_id,
            title,
            [Planted(fact.statement(where), role)],
            metadata(NAME, iid, title, date=date.isoformat(), **extra),
            preamble=[f"Effective date: {date.isoformat()}."],
        )
        docs[doc_id], spans[role] = doc, span
    instance = Instance(
        probe=NAME,
        layer="architectural",
        instance_id=iid,
        question="Under the policy in force now, "
        + current.question(where)[0].lower()
        + current.question(where)[1:],
        gold_answer=f"{current.value} {current.attribute.unit}",
        gold_spans=(spans["gold"],),
        trap_spans=(spans["trap"],),
        answer_doc_ids=(new_id,),
        anchor=f"section {code}",
        grading=current.grading(trap_values=(old.value,)),
        meta={
            "subject": current.subject,
            "attribute": current.attribute.key,
            "current_doc": new_id,
            "superseded_doc": old_id,
            "current_date": new_date.isoformat(),
            "superseded_date": old_date.isoformat(),
            "value": current.value,
            "superseded_value": old.value,
        },
    )
    return BuiltInstance((docs["-".join([iid, "a"])], docs["-".join([iid, "b"])]), instance)


PROBE = Probe(
    name=NAME,
    layer="architectural",
    description="current vs superseded policy",
    build=build,
    slot=3,
    answer_position=3,
)
