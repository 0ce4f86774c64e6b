"""The cheap guardrail: does a chunk the reply cites contain the value the reply asserts?

It reads only the reply and the retrieved chunks, never the answer key, because a
guardrail that consults ground truth is not a guardrail.
"""

from __future__ import annotations

import re

from ragaudit.grading.text import (
    abstains,
    find_number,
    find_phrase,
    normalise,
    numbers_in,
    strip_citations,
)

TEXTS_UNAVAILABLE = "nothing was retrieved, so no cited chunk can be checked"
OUTCOMES = (
    "caught",
    "satisfied",
    "no_citation",
    "no_checkable_value",
    "abstained",
    "not_applicable",
)
FLAGGING_OUTCOMES = ("caught", "no_citation")
"""Outcomes on which a deployed guardrail would flag the reply: a cited chunk lacks the
asserted value, or the reply cites nothing. Recorded per reply as `flagged`."""

_QUOTED_RE = re.compile(r"[\"\u201c]([^\"\u201c\u201d]{3,120})[\"\u201d]")
_BULLET_RE = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+(.+?)\s*$", re.MULTILINE)


def _list_items(text: str) -> list[str]:
    """Items of a bulleted list, or of a comma-separated run of short phrases."""
    bullets = [b.strip().rstrip(".") for b in _BULLET_RE.findall(text)]
    if len(bullets) >= 2:
        return [b for b in bullets if 0 < len(b.split()) <= 8]
    for sentence in re.split(r"[.;\n]", text):
        parts = [p.strip() for p in re.split(r",|\band\b", sentence) if p.strip()]
        if len(parts) >= 3 and all(len(p.split()) <= 6 for p in parts):
            return parts
    return []


def asserted_values(reply: str) -> list[dict]:
    """The values a reply asserts that a chunk could be checked for: list items, quoted
    phrases, then numbers (citation marks removed first, so [c2] is not a value)."""
    text = strip_citations(reply)
    values: list[dict] = []
    for item in _list_items(text):
        values.append({"kind": "item", "value": item})
    for quoted in _QUOTED_RE.findall(text):
        values.append({"kind": "quoted", "value": quoted.strip()})
    if not values:
        for number in numbers_in(text):
            values.append({"kind": "number", "value": number})
    return values


def _contained(value: dict, chunk_text: str) -> bool:
    if value["kind"] == "number":
        return find_number(value["value"], chunk_text) is not None
    if find_phrase(value["value"], chunk_text) is not None:
        return True
    # An item like "exception 4: eyewash stations" may quote a label and content apart.
    numbers = numbers_in(value["value"])
    words = [w for w in re.findall(r"[a-z]+", normalise(value["value"])) if len(w) > 3]
    if not words and not numbers:
        return False
    return all(find_phrase(w, chunk_text) is not None for w in words) and all(
        find_number(n, chunk_text) is not None for n in numbers
    )


def check_citations(generation: dict, retrieved_texts: dict[str, str]) -> dict:
    """Outcome of the citation check for one generation record, and whether it flags it.

    `retrieved_texts`: chunk id -> text of the chunks that were in the prompt. Outcomes:
    abstained (never a catch), no_citation, no_checkable_value, caught (some asserted
    value is in none of the cited chunks), satisfied; not_applicable for a failed call.
    """
    check = _outcome(generation, retrieved_texts)
    return {**check, "flagged": check["outcome"] in FLAGGING_OUTCOMES}


def _outcome(generation: dict, retrieved_texts: dict[str, str]) -> dict:
    if generation.get("status") == "failed_call":
        return {"outcome": "not_applicable", "detail": "the model call failed"}
    reply = generation.get("reply") or ""
    values = asserted_values(reply)
    if abstains(reply) and not values:
        return {"outcome": "abstained", "detail": "the reply declines to answer"}
    cited = list(dict.fromkeys(generation.get("citations") or []))
    if not cited:
        detail = "empty reply" if not reply.strip() else "the reply cites no chunk"
        return {"outcome": "no_citation", "detail": detail}
    if not values:
        return {
            "outcome": "no_checkable_value",
            "detail": "the reply asserts no number, quote or list",
        }
    if not retrieved_texts:
        # Grading refuses a retrieved chunk without its text, so only an empty context is left.
        return {"outcome": "not_applicable", "detail": TEXTS_UNAVAILABLE}
    cited_texts = [retrieved_texts[c] for c in cited if c in retrieved_texts]
    missing = [v["value"] for v in values if not any(_contained(v, t) for t in cited_texts)]
    if missing:
        unresolved = [c for c in cited if c not in retrieved_texts]
        extra = f"; citations not in the context: {', '.join(unresolved)}" if unresolved else ""
        return {
            "outcome": "caught",
            "detail": f"not in any cited chunk: {', '.join(missing)}{extra}",
            "missing_values": missing,
        }
    checked = ", ".join(v["value"] for v in values)
    return {"outcome": "satisfied", "detail": f"cited chunk holds: {checked}"}
