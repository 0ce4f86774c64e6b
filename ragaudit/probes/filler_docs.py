"""Filler documents: whole site-handbook pages around the planted ones, no planted facts."""

from __future__ import annotations

import random

from ragaudit.documents import Document
from ragaudit.probes.filler import AREAS, RECORDS, filler_paragraph
from ragaudit.probes.text import DocWriter

TITLES = (
    "Site handbook: the {area}",
    "Housekeeping guide for the {area}",
    "Working in the {area}",
    "Notes on the {record}",
    "Induction page: the {area} and the {area2}",
    "How we use the {record}",
    "Daily routine in the {area}",
)


def filler_document(seed: int, index: int) -> Document:
    """Filler document number `index`: a title and two to five paragraphs of prose."""
    rng = random.Random(f"{seed}/filler/{index}")
    areas = rng.sample(AREAS, 2)
    title = rng.choice(TITLES).format(area=areas[0], area2=areas[1], record=rng.choice(RECORDS))
    writer = DocWriter(f"filler-{index:03d}")
    writer.paragraph([title[0].upper() + title[1:]])
    used: set[str] = set()
    for _ in range(rng.randint(2, 5)):
        writer.paragraph(filler_paragraph(rng, 3, 7, used))
    return writer.build(
        {"probe": None, "instance_id": None, "title": title, "source_type": "filler"}
    )
