"""Helpers the probe modules share: ids, and short documents with planted sentences."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ragaudit.documents import Document
from ragaudit.probes.base import Span
from ragaudit.probes.filler import filler_sentences
from ragaudit.probes.text import DocWriter, Planted


def instance_id(probe: str, index: int) -> str:
    """``boundary-007``: the probe and the instance's number from 0."""
    return f"{probe}-{index:03d}"


def short_document(
    rng: random.Random,
    doc_id: str,
    title: str,
    planted: Sequence[Planted],
    metadata: dict,
    max_chars: int = 950,
    preamble: Sequence[str] = (),
) -> tuple[Document, list[Span]]:
    """A title line, optional preamble lines, and two filler paragraphs holding `planted`.

    The document stays within `max_chars` so that it is a single chunk at size 1000; the
    planted sentences go at random positions, each in a paragraph of its own choosing.
    """
    for _ in range(50):
        used: set[str] = set()
        paragraphs: list[list[str | Planted]] = [
            list(filler_sentences(rng, rng.randint(2, 3), used)),
            list(filler_sentences(rng, rng.randint(1, 3), used)),
        ]
        for sentence in planted:
            target = rng.choice(paragraphs)
            target.insert(rng.randint(0, len(target)), sentence)
        writer = DocWriter(doc_id)
        writer.paragraph([title])
        for line in preamble:
            writer.paragraph([line])
        for paragraph in paragraphs:
            writer.paragraph(paragraph)
        if writer.length <= max_chars:
            return writer.build(metadata), list(writer.spans)
    raise AssertionError(f"could not fit {doc_id} in {max_chars} characters")


def metadata(probe: str, iid: str, title: str, **extra: object) -> dict:
    """The metadata every planted document carries."""
    return {"probe": probe, "instance_id": iid, "title": title, **extra}
