"""This run's model calls by outcome (replayed, computed, failed), per model, and the failed
calls' errors: the counting half of the call cache (backends.cache.CallCache), which a run
reads into its results file.

A call given by key is counted once by its final outcome: a text whose batch failed and
that failed again alone is one failed call (under the reason it first failed for), and one
that failed and was then computed is computed.
"""

from __future__ import annotations

import threading
from collections import defaultdict


class CallCounting:
    """This run's counts; thread-safe under `_lock`, an RLock the host shares (CallCache
    guards its connection with it too)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._counts: dict[str, dict[str, int]] = defaultdict(_zero_counts)
        self._failures: list[dict] = []
        self._failed: dict[tuple[str, str], dict] = {}  # (model, key) -> its failure

    def count(self, model: str, outcome: str, n: int = 1, *, keys: list[str] | None = None) -> None:
        """Add `n` calls of `model` to `outcome` (replayed, computed or failed); given
        `keys` (then n is their number), a key that failed earlier in the run leaves
        `failed`: its final outcome is this one."""
        if outcome not in ("replayed", "computed", "failed"):
            raise ValueError(f"unknown call outcome {outcome!r}")
        with self._lock:
            for key in keys or ():
                earlier = self._failed.pop((model, key), None)
                if earlier is not None:
                    earlier["calls"] -= 1
                    self._counts[model]["failed"] -= 1
            self._counts[model][outcome] += len(keys) if keys is not None else n

    def record_failure(
        self, model: str, kind: str, error: str, n: int = 1, *, keys: list[str] | None = None
    ) -> None:
        """Count `n` failed calls and keep the error for the results file; given `keys`
        (then n is their number), a key that already failed in this run is not counted
        again (its first failure keeps it)."""
        with self._lock:
            if keys is not None:
                keys = [key for key in dict.fromkeys(keys) if (model, key) not in self._failed]
                if not keys:
                    return
                n = len(keys)
            entry = {"model": model, "kind": kind, "error": error, "calls": n}
            self._failures.append(entry)
            self._counts[model]["failed"] += n
            for key in keys or ():
                self._failed[(model, key)] = entry

    def stats(self) -> dict[str, int]:
        """This run's calls over all models: {"replayed", "computed", "failed"}."""
        total = _zero_counts()
        with self._lock:
            for counts in self._counts.values():
                for outcome, n in counts.items():
                    total[outcome] += n
        return total

    def stats_by_model(self) -> dict[str, dict[str, int]]:
        """This run's counts per model spec."""
        with self._lock:
            return {model: dict(counts) for model, counts in self._counts.items()}

    def failures(self) -> list[dict]:
        """Failed calls of this run: [{"model", "kind", "error", "calls"}] in order, each
        error with the calls that still failed at the end (none listed with 0: a batch
        whose texts were all computed when asked again)."""
        with self._lock:
            return [dict(failure) for failure in self._failures if failure["calls"] > 0]

    def reset_stats(self) -> None:
        """Start counting afresh (stored calls are kept)."""
        with self._lock:
            self._counts.clear()
            self._failures.clear()
            self._failed.clear()


def _zero_counts() -> dict[str, int]:
    return {"replayed": 0, "computed": 0, "failed": 0}
