"""toy_untouched: a mutation operator that applies to no intent."""

from __future__ import annotations

from ragaudit.mutation.operator import NotApplicable, Operator, declare

NAME = "toy_untouched"


def plan(target, context) -> NotApplicable:
    """Never applies: the toy leaves every document as it is."""
    return NotApplicable(NAME, target.intent.name, "the toy operator changes nothing")


OPERATOR = Operator(NAME, plan, "nothing_retrieved", declare(NAME, "changes nothing"))
