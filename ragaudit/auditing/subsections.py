"""The subsection splitter (the originating study's audit: "stop long articles from diluting
themselves").

A qualifying document becomes one parent and one child per subsection. Each child is the
lead-in plus a single subsection, embedded on its own. The parent keeps the full text for
whoever reads it, but embeds only the lead-in plus the subsection headings, so it still
answers "what is this article about" without competing for subsection-specific queries.

Four exclusion rules, checked in this order (a document is counted under the first it
trips; every rule it trips is recorded):
1. the first subsection marker repeats: several paragraphs each carry their own run, so
   splitting would number subsections wrongly, and a wrong number is worse than none;
2. the numbering is not consecutive from 1;
3. the lead-in is over 300 characters: every child would still be dominated by it;
4. fewer than 3 subsections, or under 500 characters in all: nothing to dilute.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FIRST_MARKER_REPEATS = "first_marker_repeats"
NON_CONSECUTIVE = "non_consecutive_numbering"
LEAD_IN_TOO_LONG = "lead_in_too_long"
TOO_SMALL = "too_few_subsections_or_too_short"
RULES = (FIRST_MARKER_REPEATS, NON_CONSECUTIVE, LEAD_IN_TOO_LONG, TOO_SMALL)

HEADING_CHARS = 80


@dataclass(frozen=True)
class SplitRules:
    """The thresholds of rules 3 and 4 (the originating study's values by default)."""

    max_lead_in: int = 300
    min_subsections: int = 3
    min_chars: int = 500


@dataclass(frozen=True)
class Subsection:
    """One numbered subsection: its number, character span and text (marker included)."""

    number: int
    start: int
    end: int
    text: str

    @property
    def heading(self) -> str:
        """The subsection's first line, cut at its first sentence or 80 characters."""
        first = self.text.strip().splitlines()[0] if self.text.strip() else ""
        sentence = re.split(r"(?<=[.;:])\s", first, maxsplit=1)[0]
        return sentence[:HEADING_CHARS].rstrip()


@dataclass(frozen=True)
class SplitDecision:
    """Whether one document is split, and which rules it tripped."""

    doc_id: str
    chars: int
    markers: int
    numbers: tuple[int, ...]
    lead_in: str
    subsections: tuple[Subsection, ...]
    rules_tripped: tuple[str, ...]

    @property
    def candidate(self) -> bool:
        """Only documents with at least one subsection marker are considered at all."""
        return self.markers > 0

    @property
    def split(self) -> bool:
        return self.candidate and not self.rules_tripped

    @property
    def excluded_by(self) -> str | None:
        """The first rule tripped, the one the document is counted under."""
        return self.rules_tripped[0] if self.candidate and self.rules_tripped else None

    def parent_embed_text(self) -> str:
        """Lead-in plus subsection headings: what the parent is embedded as."""
        headings = "\n".join(sub.heading for sub in self.subsections)
        return f"{self.lead_in.strip()}\n{headings}".strip()

    def child_text(self, sub: Subsection) -> str:
        """Lead-in plus one subsection: what a child holds and is embedded as."""
        return f"{self.lead_in.strip()}\n{sub.text.strip()}".strip()


def count_markers(text: str, marker: re.Pattern[str]) -> int:
    """How many subsection markers a text holds (the dilution list's column)."""
    return sum(1 for _ in marker.finditer(text))


def decide(doc_id: str, text: str, marker: re.Pattern[str], rules: SplitRules) -> SplitDecision:
    """Find the subsections of `text` and apply the four exclusion rules."""
    matches = list(marker.finditer(text))
    numbers = tuple(_number(m) for m in matches)
    lead_in = text[: matches[0].start()] if matches else text
    subsections = tuple(
        Subsection(
            number=numbers[i],
            start=m.start(),
            end=matches[i + 1].start() if i + 1 < len(matches) else len(text),
            text=text[m.start() : matches[i + 1].start() if i + 1 < len(matches) else len(text)],
        )
        for i, m in enumerate(matches)
    )
    tripped: list[str] = []
    if matches:
        if numbers.count(numbers[0]) > 1:
            tripped.append(FIRST_MARKER_REPEATS)
        if numbers != tuple(range(1, len(numbers) + 1)):
            tripped.append(NON_CONSECUTIVE)
        if len(lead_in.strip()) > rules.max_lead_in:
            tripped.append(LEAD_IN_TOO_LONG)
        if len(matches) < rules.min_subsections or len(text) < rules.min_chars:
            tripped.append(TOO_SMALL)
    return SplitDecision(
        doc_id=doc_id,
        chars=len(text),
        markers=len(matches),
        numbers=numbers,
        lead_in=lead_in,
        subsections=subsections,
        rules_tripped=tuple(tripped),
    )


def _number(match: re.Match[str]) -> int:
    try:
        return int(match.group(1))
    except (TypeError, ValueError):
        return -1  # a marker whose number is not a number can never be consecutive


def summarise(decisions: list[SplitDecision]) -> dict:
    """Counts for the report: split, excluded per rule (first rule tripped), not candidates."""
    excluded = {rule: 0 for rule in RULES}
    for decision in decisions:
        if decision.excluded_by:
            excluded[decision.excluded_by] += 1
    return {
        "documents": len(decisions),
        "candidates": sum(d.candidate for d in decisions),
        "split": sum(d.split for d in decisions),
        "children": sum(len(d.subsections) for d in decisions if d.split),
        "excluded": sum(excluded.values()),
        "excluded_by_rule": excluded,
        "no_markers": sum(not d.candidate for d in decisions),
    }
