"""Grading a single-value answer: accepted value, trap value, denial of record, abstention."""

from __future__ import annotations

from ragaudit.grading.text import (
    abstains,
    denies_record,
    find_in_reply,
    numbers_in,
    strip_citations,
)


def _first_hit(values: list[str], reply: str) -> tuple[int, str, str] | None:
    hits = []
    for value in values:
        found = find_in_reply(str(value), reply)
        if found is not None:
            hits.append((found[0], found[1], str(value)))
    # Earliest first; at one position a whole-phrase match beats a bare-number one.
    return min(hits, key=lambda hit: (hit[0], hit[1] != "phrase", hit[2])) if hits else None


def grade_value(reply: str, spec: dict) -> dict:
    """Verdict for a value question. `spec`: {"accept": [...], "trap_values": [...]}.

    An accepted value wins over a trap value unless the trap is asserted first (a reply
    quoting both is judged by what it says first). A reply that names neither and says
    the record is absent while still asserting a number is `denied_record`.
    """
    text = strip_citations(reply)
    accept = [str(v) for v in spec.get("accept") or []]
    traps = [str(v) for v in spec.get("trap_values") or []]
    accept_hit = _first_hit(accept, text)
    trap_hit = _first_hit(traps, text)
    if accept_hit and trap_hit:
        if trap_hit[0] < accept_hit[0]:
            return _verdict("trap_taken", False, f"value_match:trap_before_accept:{trap_hit[2]}")
        return _verdict("correct", True, f"value_match:accept_before_trap:{accept_hit[2]}")
    if accept_hit:
        return _verdict("correct", True, f"value_match:{accept_hit[1]}:{accept_hit[2]}")
    if trap_hit:
        return _verdict("trap_taken", False, f"trap_match:{trap_hit[1]}:{trap_hit[2]}")
    if denies_record(text) and numbers_in(text):
        return _verdict("denied_record", False, "denial_of_record_then_value")
    if abstains(text):
        return _verdict("abstained", False, "abstention_pattern")
    return _verdict("wrong", False, "no_accepted_value")


def _verdict(verdict: str, correct: bool, branch: str) -> dict:
    return {"verdict": verdict, "correct": correct, "branch": branch}
