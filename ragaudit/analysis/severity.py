"""Severity: an ordinal class assigned mechanically, first matching rule wins.

The same ordered list is emitted into the results file as text, so the rules a reader
sees are the rules that ran.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ragaudit.analysis.detectability import MIN_CLASS_SIZE

LOUD_SHARE = 0.8
LOUD_VERDICTS = ("abstained", "failed_call", "empty")


@dataclass(frozen=True)
class SeverityFacts:
    """What the rules look at for one cell."""

    failures: int | None
    """None when nothing defines failure in the cell."""
    successes: int | None
    generated: bool
    embedder_certified: bool
    loud_failures: int
    separable: bool
    check_flagged: int
    """Failures (abstentions and failed calls excluded) the citation check flagged."""
    check_eligible: int
    """Failures that are neither abstentions nor failed calls."""


@dataclass(frozen=True)
class SeverityRule:
    severity_class: str
    branch: str
    text: str
    applies: Callable[[SeverityFacts], bool]


RULES: tuple[SeverityRule, ...] = (
    SeverityRule(
        "none",
        "no_failures",
        "No failures under this configuration. Not a claim that none exist elsewhere.",
        lambda f: f.failures == 0,
    ),
    SeverityRule(
        "undetermined",
        "generation_not_run",
        "Generation never ran on this cell, so there is no answer to classify.",
        lambda f: not f.generated,
    ),
    SeverityRule(
        "undetermined",
        "controls_not_certified",
        "The controls for this embedder were never run, or did not pass, so by the first "
        "rule of this report nothing certifies the instrument that produced the cell.",
        lambda f: not f.embedder_certified,
    ),
    SeverityRule(
        "low",
        "loud_failures",
        f"A loud failure. At least {LOUD_SHARE:.0%} of the failures abstained, errored, or "
        "returned nothing, rather than answering confidently and wrongly.",
        lambda f: bool(f.failures) and f.loud_failures >= LOUD_SHARE * f.failures,
    ),
    SeverityRule(
        "medium",
        "separable_in_sample",
        "Wrong, but the failures and successes are separable in this sample by a "
        "retrieval-score threshold. That threshold is fitted on the same instances it is "
        "scored against, with no holdout, so this is a diagnostic rather than a deployable "
        "check.",
        lambda f: f.separable,
    ),
    SeverityRule(
        "high",
        "cheap_check_flagged",
        "Wrong and with no separating signal, but the cheap check flagged most of them: "
        "either the chunk they cited does not contain the value they assert, or they cite "
        "nothing at all. Abstentions are excluded, because a failure that announces itself "
        "is not one the check saved you from.",
        lambda f: f.check_eligible > 0 and f.check_flagged * 2 > f.check_eligible,
    ),
    SeverityRule(
        "undetermined",
        "small_classes",
        "Wrong, quiet and uncaught, but one of the two classes is too small for that to "
        f"mean anything: fewer than {MIN_CLASS_SIZE} failures or fewer than {MIN_CLASS_SIZE} "
        "successes, so 'no signal was found' and 'there was nothing to look at' cannot be "
        "told apart. Tested after the three classes above, which is why a cell can be "
        "wrong, quiet and uncaught and still not reach critical.",
        lambda f: (f.failures or 0) < MIN_CLASS_SIZE or (f.successes or 0) < MIN_CLASS_SIZE,
    ),
    SeverityRule(
        "critical",
        "quiet_uncaught",
        "Wrong, confident, no separating signal, not caught by the cheap check, and both "
        "classes large enough for those to mean something.",
        lambda f: True,
    ),
)


def severity_rules() -> list[dict]:
    """The ordered rules as the results file carries them: [{class, branch, text}]."""
    return [{"class": r.severity_class, "branch": r.branch, "text": r.text} for r in RULES]


def classify(facts: SeverityFacts) -> dict:
    """The first rule that applies: {"class", "branch"}."""
    for rule in RULES:
        if rule.applies(facts):
            return {"class": rule.severity_class, "branch": rule.branch}
    raise AssertionError("the last severity rule always applies")
