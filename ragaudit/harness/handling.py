"""What a catch does with the failure it caught, in the same terms for Python and
JavaScript: whether it logs it, counts it, marks it in the result, or re-raises it."""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.harness.vocabulary import PROMISE, PROMISE_SUBJECT


@dataclass(frozen=True)
class Handling:
    """The signals read from one catch's body."""

    logs: bool
    """A log call: print, logging, console.error, sys.stderr.write, ..."""
    counts: bool
    """An increment (`failed += 1`, `errors++`) or an append to a failure-named list."""
    marks: bool
    """A failure-named field set (`row["degraded"] = True`), or the error passed on."""
    raises: bool
    """A raise / throw: the failure goes on up."""

    @property
    def keeps(self) -> bool:
        """The failure survives in the result or the run: counted, marked or re-raised."""
        return self.counts or self.marks or self.raises

    @property
    def visible(self) -> bool:
        """Someone can see the failure happened: kept, or at least logged."""
        return self.keeps or self.logs


def promise_in(comment: str) -> str | None:
    """The verb of a comment promising to keep a failure ("mark it in the result", "count
    failed calls"), lower-cased; None when the comment promises nothing about a failure."""
    verb = PROMISE.search(comment)
    if verb is None or not PROMISE_SUBJECT.search(comment):
        return None
    return verb.group(1).lower()
