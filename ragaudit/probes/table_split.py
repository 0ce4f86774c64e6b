"""table_split: a register table whose answer row is far from the header naming its columns.

The table's rows follow one header row; the answer row starts more than 1,300 characters
after the header, so the two land in different chunks at recursive 1000/0 and 1000/200,
fixed 1000 and recursive 512/128, while the whole document stays under 4,000 characters
and is a single chunk at 4000. Without the header a row is a bare list of numbers. The
asked value appears in no other cell of the table.
"""

from __future__ import annotations

import random

from ragaudit.probes.base import BuiltInstance, Diagnostic, Instance, Probe
from ragaudit.probes.codes import asset_id, section_code
from ragaudit.probes.common import instance_id, metadata
from ragaudit.probes.facts import allocate
from ragaudit.probes.filler import AREAS, ROLES, filler_paragraph
from ragaudit.probes.pools import TABLE_KINDS
from ragaudit.probes.text import DocWriter, Planted

NAME = "table_split"
MIN_ROW_OFFSET = 1300
MAX_DOC_CHARS = 3900
COLUMNS = (
    # (header text, key, unit, value range, step)
    ("Rated load (kg)", "rated_load", "kilograms", (120, 990), 5),
    ("Service interval (days)", "service_interval", "days", (32, 98), 1),
    ("Lift height (m)", "lift_height", "metres", (2, 30), 1),
    ("Inspection hours", "inspection_hours", "hours", (10, 31), 1),
)
ASKED = {
    "rated_load": "What is the rated load, in kilograms, of {kind} {asset} in section {code}?",
    "service_interval": (
        "What is the service interval, in days, of {kind} {asset} in section {code}?"
    ),
}


def _value(rng: random.Random, low: int, high: int, step: int) -> int:
    return rng.randrange(low, high + 1, step)


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """A register document: intro, a long table, the answer row near its end."""
    iid = instance_id(NAME, index)
    code = section_code(seed, PROBE.slot, index, rng)
    kind = TABLE_KINDS[allocate(seed, "table_kind", index, len(TABLE_KINDS))]
    asked_key = rng.choice(sorted(ASKED))
    header_row = " | ".join(["Asset", "Location", *(c[0] for c in COLUMNS), "Responsible"])
    title = f"Section {code}: {kind} register"
    for _ in range(100):
        rows, cells = [], []
        used: set[str] = set()
        intro = filler_paragraph(rng, 2, 3, used)
        # Header and rows up to past MIN_ROW_OFFSET, then the answer row among the last ones.
        offset, row_index = len(header_row), 0
        while offset < MIN_ROW_OFFSET + rng.randint(0, 400):
            values = {c[1]: _value(rng, *c[3], c[4]) for c in COLUMNS}
            row = " | ".join(
                [
                    asset_id(seed, index, row_index),
                    rng.choice(AREAS),
                    *map(str, values.values()),
                    rng.choice(ROLES),
                ]
            )
            rows.append(row)
            cells.append(values)
            offset += 1 + len(row)
            row_index += 1
        answer_row_index = row_index
        answer_values = {c[1]: _value(rng, *c[3], c[4]) for c in COLUMNS}
        asked_value = answer_values[asked_key]
        asset = asset_id(seed, index, answer_row_index)
        answer_row = " | ".join(
            [asset, rng.choice(AREAS), *map(str, answer_values.values()), rng.choice(ROLES)]
        )
        after = []
        for extra in range(rng.randint(1, 3)):
            values = {c[1]: _value(rng, *c[3], c[4]) for c in COLUMNS}
            after.append(
                " | ".join(
                    [
                        asset_id(seed, index, answer_row_index + 1 + extra),
                        rng.choice(AREAS),
                        *map(str, values.values()),
                        rng.choice(ROLES),
                    ]
                )
            )
            cells.append(values)
        # The asked value must not appear in any other cell, nor elsewhere in its own row.
        others = [v for row in cells for v in row.values()]
        others += [v for k, v in answer_values.items() if k != asked_key]
        if asked_value in others:
            continue
        writer = DocWriter(iid)
        writer.paragraph([title])
        writer.paragraph(intro)
        table_header, table_row = writer.lines(
            [Planted(header_row, "table_header"), *rows, Planted(answer_row, "table_row"), *after]
        )
        writer.paragraph(filler_paragraph(rng, 2, 3, used))
        if writer.length > MAX_DOC_CHARS:
            continue
        doc = writer.build(metadata(NAME, iid, title))
        break
    else:
        raise AssertionError(f"could not build {iid}")
    unit = next(c[2] for c in COLUMNS if c[1] == asked_key)
    instance = Instance(
        probe=NAME,
        layer="architectural",
        instance_id=iid,
        question=ASKED[asked_key].format(kind=kind, asset=asset, code=code),
        gold_answer=f"{asked_value} {unit}",
        gold_spans=(table_row,),
        extra_spans=(table_header,),
        answer_doc_ids=(doc.doc_id,),
        anchor=asset,
        grading={
            "kind": "value",
            "accept": [str(asked_value), f"{asked_value} {unit}"],
            "trap_values": [],
            "unit": unit,
        },
        meta={
            "asked_column": asked_key,
            "row_offset": table_row.start - table_header.start,
            "rows": len(rows) + 1 + len(after),
            "row_values": answer_values,
        },
    )
    return BuiltInstance((doc,), instance)


PROBE = Probe(
    name=NAME,
    layer="architectural",
    description="answer row apart from its header",
    build=build,
    slot=5,
    answer_position=5,
    diagnostics=(Diagnostic("table_together", "ragaudit.stack.measures:table_together", column=1),),
)
