"""Run conditions: how many model calls were replayed, computed or failed, whether other
processes competed for the machine (RAGAUDIT_CONTENTION_PATTERN), and the elapsed time,
withheld with its reason when either makes it misleading."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from ragaudit.backends.cache import CallCache
from ragaudit.errors import RagauditError
from ragaudit.runner.sessions import SessionLedger, session_entry

CONTENTION_ENV = "RAGAUDIT_CONTENTION_PATTERN"
_NUMBER = re.compile(r"(?<!HTTP )\b\d+\b")  # an HTTP status tells causes apart; a port does not


def contention_pattern() -> re.Pattern | None:
    """The compiled pattern from RAGAUDIT_CONTENTION_PATTERN, or None when unset."""
    raw = os.environ.get(CONTENTION_ENV, "").strip()
    if not raw:
        return None
    try:
        return re.compile(raw)
    except re.error as error:
        raise RagauditError(f"{CONTENTION_ENV}: not a valid regular expression ({error})") from None


def contention_snapshot(pattern: re.Pattern | None) -> list[dict]:
    """Processes (other than this one) whose command line matches `pattern`."""
    if pattern is None:
        return []
    seen = []
    own = {os.getpid(), os.getppid()}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in own:
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if command.strip() and pattern.search(command):
            seen.append({"pid": int(entry.name), "command": command.strip()[:120]})
    return seen


def reason_key(failure: dict) -> tuple[str, str, str]:
    """What makes two failed calls the same reason: model, kind, and the error with its
    numbers blanked (a port, a token count, an attempt count), HTTP statuses kept."""
    return failure["model"], failure["kind"], _NUMBER.sub("#", failure["error"])


def failure_reasons(failures: list[dict]) -> list[dict]:
    """Failed calls grouped by reason, most calls first: [{"model", "kind", "reason",
    "calls"}], the reason worded as its first occurrence."""
    grouped: dict[tuple[str, str, str], dict] = {}
    for failure in failures:
        entry = grouped.setdefault(
            reason_key(failure),
            {"model": failure["model"], "kind": failure["kind"], "reason": failure["error"]},
        )
        entry["calls"] = entry.get("calls", 0) + failure["calls"]
    return sorted(grouped.values(), key=lambda entry: -entry["calls"])


def conditions_section(
    cache: CallCache,
    failed_calls: list[dict],
    pattern: re.Pattern | None,
    before: list[dict],
    after: list[dict],
    elapsed: float,
    sessions: list[dict] | None = None,
) -> dict:
    """The results file's `conditions`; `elapsed_seconds` is null, with the reason, when
    calls were replayed or contention was seen (either makes the time not the work's).

    `sessions` (runner.sessions; this one last, its `seconds` being `elapsed`): a run
    resumed after killed sessions records their wall time and this one's, summed, when the
    calls it replayed are no more than those sessions computed and none saw contention."""
    stats = cache.stats()
    total = sum(stats.values())
    earlier = (sessions or [])[:-1]
    explained = sum(session["computed"] for session in earlier)
    reasons = []
    if stats["replayed"] > explained:
        reasons.append(f"{stats['replayed']} of {total} model calls were replayed from cache")
        if earlier:
            reasons[-1] += (
                f", more than the {explained} its {len(earlier)} earlier sessions computed"
            )
    seen_earlier = sum(session["contention"] for session in earlier)
    if before or after or seen_earlier:
        reasons.append(f"contention seen ({len(before)} processes before, {len(after)} after)")
        if seen_earlier:
            reasons[-1] += f"; {seen_earlier} in earlier sessions of this run"
    summed = elapsed + sum(session["seconds"] for session in earlier)
    section = {
        "calls": stats,
        "calls_by_model": cache.stats_by_model(),
        "failed_calls": failed_calls,
        "failure_reasons": failure_reasons(cache.failures()),
        "contention_detection_configured": pattern is not None,
        "contention_pattern_env": CONTENTION_ENV,
        "contention_seen": {"before": before, "after": after},
        "elapsed_seconds": None if reasons else round(summed, 1),
        "elapsed_seconds_reason": "; ".join(reasons) or None,
    }
    if sessions:
        section["sessions"] = [session_entry(session) for session in sessions]
    return section


class RunWatch:
    """The clock and the contention check of one run, started when it is made, and the
    run's session ledger when it has one (runner.sessions)."""

    def __init__(self, ledger: SessionLedger | None = None) -> None:
        self.started = time.monotonic()
        self.pattern = contention_pattern()
        self.before = contention_snapshot(self.pattern)
        self.ledger = ledger

    def conditions(self, cache: CallCache, failed_calls: list[dict], *, finished: bool) -> dict:
        """The conditions so far; a finished run looks for contention again."""
        after = contention_snapshot(self.pattern) if finished else []
        elapsed = time.monotonic() - self.started
        sessions = None
        if self.ledger is not None:
            seen = len(self.before) + len(after)
            self.ledger.update(cache, seen, finished=finished)
            current = {**self.ledger.current, "seconds": elapsed}
            sessions = [*self.ledger.earlier_sessions(cache), current]
        return conditions_section(
            cache, failed_calls, self.pattern, self.before, after, elapsed, sessions
        )
