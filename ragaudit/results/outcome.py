"""What a finished run's results say of the run itself: how many instance records lost a
model call, and so whether the file is a good run (complete, nothing lost) that may take the
place of the last good one (results.publish) or be offered first (the Compare page)."""

from __future__ import annotations


def lost_records(results: dict) -> int:
    """How many instance records lost a model call (retrieval or generation), from the
    run's `conditions.failed_calls`; 0 for a file that records none."""
    conditions = results.get("conditions") or {}
    failed = conditions.get("failed_calls") if isinstance(conditions, dict) else None
    entries = [entry for entry in failed or () if isinstance(entry, dict)]
    return len({str(key) for entry in entries for key in entry.get("instance_keys") or ()})


def is_good_run(results: dict) -> bool:
    """True for the results of a finished run in which no instance record lost a call."""
    return results.get("complete") is True and lost_records(results) == 0
