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
) -> dict:
    """The results file's `conditions`; `elapsed_seconds` is null, with the reason, when
    calls were replayed or contention was seen (either makes the time not the work's)."""
    stats = cache.stats()
    total = sum(stats.values())
    reasons = []
    if stats["replayed"]:
        reasons.append(f"{stats['replayed']} of {total} model calls were replayed from cache")
    if before or after:
        reasons.append(f"contention seen ({len(before)} processes before, {len(after)} after)")
    return {
        "calls": stats,
        "calls_by_model": cache.stats_by_model(),
        "failed_calls": failed_calls,
        "failure_reasons": failure_reasons(cache.failures()),
        "contention_detection_configured": pattern is not None,
        "contention_pattern_env": CONTENTION_ENV,
        "contention_seen": {"before": before, "after": after},
        "elapsed_seconds": None if reasons else round(elapsed, 1),
        "elapsed_seconds_reason": "; ".join(reasons) or None,
    }


class RunWatch:
    """The clock and the contention check of one run, started when it is made."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.pattern = contention_pattern()
        self.before = contention_snapshot(self.pattern)

    def conditions(self, cache: CallCache, failed_calls: list[dict], *, finished: bool) -> dict:
        """The conditions so far; a finished run looks for contention again."""
        after = contention_snapshot(self.pattern) if finished else []
        elapsed = time.monotonic() - self.started
        return conditions_section(cache, failed_calls, self.pattern, self.before, after, elapsed)
