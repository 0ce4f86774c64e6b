"""Grading a polarity answer (permitted / not permitted), negation found anywhere in the
clause before the predicate, so "is not, at the Eastbrook store, permitted" reads as a denial."""

from __future__ import annotations

import re

from ragaudit.grading.text import abstains, find_phrase, normalise, strip_citations

_NEGATOR_RE = re.compile(r"\b(?:not|never|no longer|cannot)\b|n't\b")
_NEGATIVE_WORDS_RE = re.compile(r"\b(?:prohibited|forbidden|banned|disallowed)\b")
_CLAUSE_BREAK_RE = re.compile(r"\b(?:but|however|whereas|while|although|though)\b")
_SENTENCE_RE = re.compile(r"[^.!?;\n]+")


def _predicate(expected: str) -> str:
    return re.sub(r"^\s*not\s+", "", normalise(expected)) or "permitted"


def _clause_assertions(clause: str, predicate: str) -> list[bool]:
    """Polarity of each predicate mention in one clause: True = affirmative."""
    found = []
    for match in re.finditer(r"\b" + re.escape(predicate) + r"\b|\ballowed\b", clause):
        before = clause[: match.start()]
        found.append(_NEGATOR_RE.search(before) is None)
    if not found and _NEGATIVE_WORDS_RE.search(clause):
        found.append(False)
    return found


def _assertions(text: str, predicate: str, store: str | None) -> list[tuple[bool, bool]]:
    """(affirmative, clause names the store) for each polarity assertion, in order."""
    out = []
    for sentence in _SENTENCE_RE.findall(normalise(text)):
        starts = [0] + [m.start() for m in _CLAUSE_BREAK_RE.finditer(sentence)] + [len(sentence)]
        for begin, end in zip(starts, starts[1:], strict=False):
            clause = sentence[begin:end]
            names_store = bool(store) and find_phrase(store, clause) is not None
            out.extend(
                (affirmative, names_store) for affirmative in _clause_assertions(clause, predicate)
            )
    return out


def grade_polarity(reply: str, spec: dict) -> dict:
    """Verdict for a polarity question. `spec`: {"expected": "not permitted"|"permitted",
    "subject": ..., "store": ...}. The wrong polarity is the trap (`trap_taken`).

    When the reply asserts both polarities, the assertions in clauses naming the asked
    store decide; among those (or all, if none names it) the first one counts.
    """
    text = strip_citations(reply)
    expected = normalise(str(spec.get("expected", "")))
    expected_affirmative = not expected.startswith("not ")
    if abstains(text):
        return {"verdict": "abstained", "correct": False, "branch": "abstention_pattern"}
    assertions = _assertions(text, _predicate(expected), spec.get("store"))
    branch_scope = "clause"
    about_store = [a for a in assertions if a[1]]
    if about_store:
        assertions, branch_scope = about_store, "store_clause"
    if not assertions:
        leading = re.match(r"\s*(yes|no)\b", normalise(text))
        if not leading:
            return {"verdict": "wrong", "correct": False, "branch": "polarity:no_assertion"}
        affirmative, branch_scope = leading.group(1) == "yes", "leading_yes_no"
    else:
        affirmative = assertions[0][0]
    said = "affirmative" if affirmative else "negative"
    if affirmative == expected_affirmative:
        return {"verdict": "correct", "correct": True, "branch": f"polarity:{branch_scope}:{said}"}
    return {"verdict": "trap_taken", "correct": False, "branch": f"polarity:{branch_scope}:{said}"}
