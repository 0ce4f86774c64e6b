"""The lines `--dry-run` prints (run, audit and mutate alike): one per model's calls
(runner.estimate.CallEstimate), then the total."""

from __future__ import annotations

from collections.abc import Sequence

from ragaudit.targets.pipeline.dryrun import CallEstimate


def estimate_lines(estimates: Sequence[CallEstimate]) -> list[str]:
    """One line per model's calls, then the total: what `--dry-run` prints."""
    lines = []
    known = 0.0
    unknown = []
    for e in estimates:
        cached = (
            f"{e.cached} cached, {e.calls - e.cached} to compute"
            + (f" ({e.cached_reason})" if e.cached_reason else "")
            if e.cached is not None
            else e.cached_reason or "cached: not known"
        )
        time = (
            f"~{_duration(e.seconds)} ({e.seconds_reason})"
            if e.seconds is not None
            else e.seconds_reason
        )
        tokens = (
            f"{'~' if e.tokens_estimated else ''}{e.prompt_tokens:,} prompt tokens "
            f"({e.tokens_reason})"
            if e.prompt_tokens is not None
            else f"prompt tokens {e.tokens_reason}"
        )
        lines.append(f"{e.what}: {e.calls} calls, {cached}; time {time}; {tokens}")
        if e.seconds is not None:
            known += e.seconds
        else:
            unknown.append(e.what)
    total = f"dry run: {sum(e.calls for e in estimates)} calls; estimated time ~{_duration(known)}"
    if unknown:
        total += f" plus the calls of {len(unknown)} model(s) with no recorded time"
    return [*lines, f"{total}; nothing was called or written"]


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"
