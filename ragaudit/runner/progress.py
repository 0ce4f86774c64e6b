"""Progress with an ETA: a plain-text bar on stderr (one line per update when not a TTY,
throttled), a small JSON file the inspector polls, and an optional callback.

The interface stages use: ``progress.stage(name, total)`` then ``progress.advance(n)``;
``progress.done()`` at the end. A stage's ETA is its remaining units at the rate of the units
it computed so far: units replayed from the cache (a resumed run's first 294 prompts) arrive at
once and would otherwise promise a finish in seconds.

Given the run's call cache, it also prints each failed model call (or failed batch) as the
cache counts it, so a run whose server breaks says so while it runs, not only in the file.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from ragaudit.backends.cache import CallCache
from ragaudit.fileio import write_json_atomic
from ragaudit.runner.conditions import reason_key

REPEAT_SECONDS = 10.0
"""A reason already printed is printed again at most this often (a down server fails
every batch the same way)."""


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return (
        f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
        if hours
        else f"{rest // 60:02d}:{rest % 60:02d}"
    )


class FailureNotices:
    """The lines for failed calls the cache counted since the last look: one per failed
    call or batch, ``embed failed (ollama:m): <error> — 63 failed so far``; repeats of a
    reason within REPEAT_SECONDS are held back and counted on its next line."""

    def __init__(self, cache: CallCache, repeat_seconds: float = REPEAT_SECONDS) -> None:
        self.cache = cache
        self.repeat_seconds = repeat_seconds
        self._seen = 0  # failure entries already looked at
        self._failed = 0  # calls they account for
        self._printed_at: dict[tuple, float] = {}
        self._held: dict[tuple, int] = {}

    def new_lines(self) -> list[str]:
        """Lines for the failures recorded since the last call (cheap when there are none)."""
        if self.cache.stats()["failed"] == self._failed:
            return []
        fresh = self.cache.failures()[self._seen :]
        self._seen += len(fresh)
        now, lines = time.monotonic(), []
        for failure in fresh:
            self._failed += failure["calls"]
            key = reason_key(failure)
            if now - self._printed_at.get(key, -self.repeat_seconds) < self.repeat_seconds:
                self._held[key] = self._held.get(key, 0) + 1
                continue
            self._printed_at[key] = now
            held = self._held.pop(key, 0)
            lines.append(
                f"{failure['kind']} failed ({failure['model']}): {failure['error']} — "
                f"{self._failed} failed so far"
                + (f" ({held} more like it not shown)" if held else "")
            )
        return lines


class Progress:
    """Reports stage progress to a stream, a JSON file and a callback (any may be None);
    given `failures` (the run's call cache), each failed call on the stream too."""

    def __init__(
        self,
        stream: TextIO | None | object = ...,
        json_path: str | Path | None = None,
        callback: Callable[[dict], None] | None = None,
        min_interval: float | None = None,
        failures: CallCache | None = None,
    ) -> None:
        # stderr as it is when the run starts, not at import (pytest swaps it per test)
        self.stream = sys.stderr if stream is ... else stream
        self.failures = FailureNotices(failures) if failures is not None else None
        self.json_path = Path(json_path) if json_path else None
        self.callback = callback
        stream = self.stream
        self.tty = bool(stream is not None and hasattr(stream, "isatty") and stream.isatty())
        # A TTY redraws in place cheaply; a log file gets a line every few seconds.
        self.min_interval = min_interval if min_interval is not None else (0.2 if self.tty else 5.0)
        self.started = time.monotonic()
        self.name = ""
        self.total = 0
        self.done_units = 0
        self.replayed_units = 0  # of done_units, those that cost nothing (cache replays)
        self._stage_started = self.started
        self._last_emit = 0.0
        self.stages: list[dict] = []

    def watch_failures(self, cache: CallCache) -> None:
        """Print each failed call `cache` counts from now on (a run that opens its cache
        after its progress starts)."""
        if self.failures is None:
            self.failures = FailureNotices(cache)

    def stage(self, name: str, total: int) -> None:
        """Begin a stage of `total` units (texts, queries, prompts)."""
        self._close_stage()
        self.name, self.total, self.done_units = name, max(int(total), 0), 0
        self.replayed_units = 0
        self._stage_started = time.monotonic()
        self._emit(force=True)

    def advance(self, n: int = 1, replayed: int = 0) -> None:
        """Count `n` more units of the current stage as done, `replayed` of them replays."""
        self.replayed_units += replayed
        self.done_units = (
            min(self.done_units + n, self.total) if self.total else self.done_units + n
        )
        self._emit(force=self.done_units >= self.total)

    def finish_stage(self) -> None:
        """Count what is left of this stage as done without work (it was already there:
        an index the collection held, vectors the cache replayed)."""
        rest = max(self.total - self.done_units, 0)
        if rest:
            self.advance(rest, replayed=rest)

    def update(self, done: int, total: int, replayed: int = 0) -> None:
        """Report `done` of `total` units, `replayed` of them replays so far, for a stage
        whose total is known only as it runs."""
        self.total = max(int(total), 0)
        self.advance(done - self.done_units, replayed - self.replayed_units)

    def eta_seconds(self) -> float | None:
        """Seconds left in this stage at the rate of its computed units so far (None before
        the first computed unit; 0 once every unit is done)."""
        computed = self.done_units - self.replayed_units
        if not self.total or not (computed or self.done_units >= self.total):
            return None
        if self.done_units >= self.total:
            return 0.0
        elapsed = time.monotonic() - self._stage_started
        return elapsed / computed * (self.total - self.done_units)

    def snapshot(self) -> dict:
        """What a poller needs: stage, done/total, elapsed, ETA, earlier stages."""
        return {
            "stage": self.name,
            "done": self.done_units,
            "total": self.total,
            "stage_elapsed_seconds": round(time.monotonic() - self._stage_started, 1),
            "elapsed_seconds": round(time.monotonic() - self.started, 1),
            "eta_seconds": None if (eta := self.eta_seconds()) is None else round(eta, 1),
            "stages_done": list(self.stages),
            "pid": os.getpid(),
            "updated_at": time.time(),
            "finished": False,
        }

    def line(self) -> str:
        """``[retrieval local:minilm] ########------  120/400  30%  00:12 elapsed  ETA 00:28``"""
        width = 24
        if not self.total:  # total not known yet (e.g. prompts before deduplication)
            elapsed = time.monotonic() - self._stage_started
            return f"[{self.name}] {self.done_units} done  {_clock(elapsed)} elapsed  ETA --:--"
        fraction = self.done_units / self.total
        bar = "#" * int(fraction * width) + "-" * (width - int(fraction * width))
        elapsed = time.monotonic() - self._stage_started
        return (
            f"[{self.name}] {bar} {self.done_units}/{self.total} {fraction:4.0%} "
            f"{_clock(elapsed)} elapsed  ETA {_clock(self.eta_seconds())}"
        )

    def message(self, text: str) -> None:
        """A one-off line (stage notes, warnings) that does not disturb the bar."""
        if self.stream is not None:
            prefix = "\n" if self.tty else ""
            print(f"{prefix}{text}", file=self.stream, flush=True)

    def done(self) -> None:
        """Close the last stage and mark the run finished in the JSON file."""
        self._report_failures()
        self._close_stage()
        self.name, self.total, self.done_units = "finished", 0, 0
        snapshot = self.snapshot()
        snapshot["finished"] = True
        self._write(snapshot)

    def _close_stage(self) -> None:
        if self.name and self.name != "finished":
            if self.done_units < self.total:  # a complete stage was already drawn
                self._emit(force=True)
            if self.tty and self.stream is not None:
                print(file=self.stream, flush=True)
            self.stages.append(
                {
                    "stage": self.name,
                    "total": self.total,
                    "seconds": round(time.monotonic() - self._stage_started, 1),
                }
            )

    def _report_failures(self) -> None:
        if self.failures is not None:
            for line in self.failures.new_lines():
                self.message(line)

    def _emit(self, force: bool = False) -> None:
        self._report_failures()  # before the throttle: a failure is news at once
        now = time.monotonic()
        if not force and now - self._last_emit < self.min_interval:
            return
        self._last_emit = now
        if self.stream is not None:
            if self.tty:
                print(f"\r{self.line()}", end="", file=self.stream, flush=True)
            else:
                print(self.line(), file=self.stream, flush=True)
        self._write(self.snapshot())

    def _write(self, snapshot: dict) -> None:
        if self.callback is not None:
            self.callback(snapshot)
        if self.json_path is not None:
            try:
                write_json_atomic(self.json_path, snapshot)
            except OSError:
                pass  # progress is advisory; never fail a run over it
