"""What harness-check reports: the rules, by name, and one finding of one rule at file:line."""

from __future__ import annotations

from dataclasses import dataclass, replace

RULES: dict[str, str] = {
    "empty-catch": "a catch that does nothing (`except: pass`, `catch {}`, `.catch(() => {})`, "
    "`contextlib.suppress`, or only `continue`): the failure vanishes",
    "silent-fallback": "a catch that returns an empty value, None, [] or a fallback answer "
    "without counting or logging the failure: it reads as a real, empty answer",
    "retry-http-only": "a retry loop that retries on HTTP status codes but catches no network "
    "exception: one connection reset or timeout ends the run and looks like broken retrieval",
    "unkept-comment": "for review: a comment promises to mark or count a failure near a "
    "catch that neither marks nor counts it",
}
"""Every rule harness-check applies, with what it means."""


@dataclass(frozen=True)
class Finding:
    """One place where failure handling may hide a failure."""

    rule: str
    """A name in RULES."""
    file: str
    """The file as the user named it (a folder given joined with the path below it)."""
    line: int
    """1-based."""
    snippet: str
    """The source lines found, as written (at most three)."""
    message: str
    """What is wrong there, in one sentence."""
    waived: bool = False
    reason: str | None = None
    """The waiver's reason when waived."""

    def waive(self, reason: str) -> Finding:
        """This finding waived, with the waiver's reason."""
        return replace(self, waived=True, reason=reason)

    def as_json(self) -> dict:
        """The finding as the harness-check results file holds it."""
        return {
            "rule": self.rule,
            "file": self.file,
            "line": self.line,
            "snippet": self.snippet,
            "message": self.message,
            "waived": self.waived,
            "reason": self.reason,
        }


def snippet_of(text_lines: list[str], first: int, last: int, limit: int = 3) -> str:
    """Lines `first`..`last` (1-based, inclusive) of a file, at most `limit`, dedented."""
    chosen = text_lines[first - 1 : min(last, first + limit - 1)]
    indent = min((len(s) - len(s.lstrip()) for s in chosen if s.strip()), default=0)
    return "\n".join(s[indent:].rstrip() for s in chosen)
