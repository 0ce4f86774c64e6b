"""One judges run: the options checked, the results file's records sampled, every (sample,
metric, repetition) evaluated through its library against the judge, and the scorecard
built (`ragaudit judges` is this with argparse and printing around it).

Every judge call goes through the recording proxy and the call cache, so a rerun replays;
the scorecard in progress is written after each evaluation (judges.scorecard) and each
session's time goes in the ledger beside it. The finished scorecard is returned, not
published: judges.scorecard.publish writes it by the scorecard's rule."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

from ragaudit import paths
from ragaudit.backends.cache import CallCache
from ragaudit.backends.concurrency import DEFAULT_WORKERS
from ragaudit.backends.retry import RetryPolicy
from ragaudit.backends.weights import sha256_of
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable, now_iso
from ragaudit.judges import environment
from ragaudit.judges.metrics import Metric, metric_named, metric_names
from ragaudit.judges.samples import Sample, choose_samples, judged_records
from ragaudit.judges.scorecard import (
    build,
    computing_seconds,
    default_path,
    plan_id,
    read_sessions,
    record_session,
    write_in_progress,
)
from ragaudit.results.io import load_results, partial_path

DEFAULT_JUDGE = "local:qwen2.5-1.5b"
DEFAULT_TIMEOUT = 600.0


@dataclasses.dataclass(frozen=True)
class JudgeOptions:
    """What a judges run is asked to do (`ragaudit judges`'s flags, typed)."""

    results: Path
    """The results file whose generated records are judged."""
    metrics: tuple[str, ...] = ()
    """The metrics to score, by name (judges.metrics.METRICS); empty: all of them."""
    judge: str = DEFAULT_JUDGE
    """`local:qwen2.5-<size>` (started and stopped here) or `openai:<model>`."""
    base_url: str | None = None
    """The server of an `openai:<model>` judge."""
    workers: int = DEFAULT_WORKERS
    """Evaluations in flight at once."""
    per_group: int = 3
    """Records sampled per (probe, verdict) group."""
    stability: int = 0
    """The first N sampled records are evaluated twice."""
    max_records: int | None = None
    """Judge only the first N sampled records (a slice of the same plan)."""
    seed: int = 0
    """The sampling seed."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds one judge call may take."""
    out: Path | None = None
    """The scorecard to write; None: the data folder's results/judges.json."""
    carry: Path | None = None
    """An earlier scorecard of the same plan whose evaluations are kept."""

    def scorecard_path(self) -> Path:
        """The scorecard this run writes."""
        return self.out or default_path()


@dataclasses.dataclass(frozen=True)
class CheckedMetrics:
    """The options' metrics, checked, with the versions of the libraries they run in."""

    names: list[str]
    metrics: list[Metric]
    versions: dict[str, str]


@dataclasses.dataclass(frozen=True)
class Judging:
    """A judges run ready to start: its records sampled and its plan fixed."""

    options: JudgeOptions
    checked: CheckedMetrics
    samples: list[Sample]
    plan: dict
    """What makes two sessions one run (scorecard.plan_id), as the scorecard records it."""
    source: dict
    """The results file judged, as the scorecard records it."""


@dataclasses.dataclass(frozen=True)
class Judged:
    """A finished judges run: its scorecard, not yet published."""

    scorecard: dict
    evaluations: int
    """Evaluations in the scorecard, carried ones included."""
    failed: list[dict]
    """The evaluations that failed at the judge."""
    failed_calls: int
    """Judge calls that failed."""


class JudgingInterrupted(KeyboardInterrupt):
    """Ctrl-C during the evaluations. The session is already in the ledger, every finished
    evaluation in the partial file and every finished call in the cache. The judge server
    is left running: freeing a llama.cpp server with a call in flight never returns, so
    the caller should end the process."""

    def __init__(self, finished: int, partial: Path) -> None:
        super().__init__(finished, partial)
        self.finished = finished
        """Evaluations finished this session."""
        self.partial = partial
        """The scorecard in progress."""


def check_options(options: JudgeOptions) -> CheckedMetrics:
    """Refuse, in one line and before any work, an unknown metric, a missing library, a
    judge that cannot serve or a limit out of range."""
    from ragaudit.judges.server import check_spec

    names = list(dict.fromkeys(options.metrics or metric_names()))
    metrics = [metric_named(name) for name in names]
    versions = environment.library_versions(sorted({m.library for m in metrics}))
    check_spec(options.judge, options.base_url)
    limits = (("--stability", options.stability, 0), ("--max-records", options.max_records, 1))
    for flag, value, least in (*limits, ("--timeout", options.timeout, 1)):
        if value is not None and value < least:
            raise RagauditError(f"{flag} {value:g}: give {least} or more")
    return CheckedMetrics(names, metrics, versions)


def plan_judging(options: JudgeOptions, checked: CheckedMetrics) -> Judging:
    """Read the results file, sample its records and fix the run's plan; the scorecard
    must be writable."""
    out = options.scorecard_path()
    results = load_results(options.results)
    samples = choose_samples(results, options.per_group, options.seed)
    samples = samples[: options.max_records] if options.max_records else samples
    check_writable(out, "--out")
    plan = {
        "judge": options.judge,
        "base_url": options.base_url,
        "metrics": checked.names,
        "per_group": options.per_group,
        "seed": options.seed,
        "stability": options.stability,
        "max_records": options.max_records,
        "results_sha256": sha256_of(options.results),
    }
    source = {
        "results": str(options.results),
        "sha256": plan["results_sha256"],
        "created_at": results.get("created_at"),
        "records_available": len(judged_records(results)),
    }
    return Judging(options, checked, samples, plan, source)


def run_judging(judging: Judging, say: Callable[[str], None]) -> Judged:
    """Run every evaluation still to run against the judge (started here, stopped at the
    end) and build the finished scorecard; `say` is told the progress. Raises
    JudgingInterrupted on Ctrl-C."""
    environment.prepare(paths.data_dir() / "judges")
    from ragaudit.judges.runner import quiet_libraries
    from ragaudit.judges.server import start_judge

    options, out = judging.options, judging.options.scorecard_path()
    quiet_libraries()
    carried, tasks = _tasks(judging, say)
    session = _Session(judging, CallCache(), now_iso(), time.monotonic())
    retry = dataclasses.replace(RetryPolicy.from_env(), timeout=options.timeout)
    stability = min(judging.plan["stability"], len(judging.samples))
    say(
        f"judging {len(judging.samples)} records x {len(judging.checked.metrics)} metrics"
        f" (the first {stability} twice) with {options.judge}: "
        f"{len(tasks)} evaluations" + (f" to run ({len(carried)} carried)" if carried else "")
    )
    running = start_judge(options.judge, options.base_url, options.workers, retry)
    session.judge = _judge_entry(options, running)
    session.evaluations = list(carried)
    try:
        _evaluate(session, running, tasks, len(carried), retry, say)
    except KeyboardInterrupt:
        session.end(running.settings)
        finished = len(session.evaluations) - len(carried)
        raise JudgingInterrupted(finished, partial_path(out)) from None
    except BaseException:
        session.end(running.settings)
        running.stop()
        raise
    session.end(running.settings)  # before the stop: the session counts even if it hangs
    running.stop()
    final = session.document(True)
    failed = [e for e in session.evaluations if e["outcome"] == "judge_failed"]
    return Judged(final, len(session.evaluations), failed, session.cache.stats()["failed"])


def _tasks(judging: Judging, say: Callable[[str], None]) -> tuple[list[dict], list]:
    """The evaluations an earlier scorecard carries in (--carry), and the tasks to run."""
    from ragaudit.judges.runner import tasks_for

    options = judging.options
    stability = min(judging.plan["stability"], len(judging.samples))
    tasks = tasks_for(judging.samples, judging.checked.metrics, stability)
    if options.carry is None:
        return [], tasks
    from ragaudit.judges.carry import carried_evaluations, carry_sessions

    carried = carried_evaluations(options.carry, judging.plan, {task.id for task in tasks})
    carry_sessions(options.carry, options.scorecard_path(), judging.plan)
    done_ids = {(e["key"], e["metric"], e["repetition"]) for e in carried}
    say(f"carried {len(carried)} evaluations from {options.carry}")
    return carried, [task for task in tasks if task.id not in done_ids]


def _evaluate(session: _Session, running, tasks: list, carried: int, retry, say) -> None:
    """Every task through the recording proxy, the scorecard in progress written after
    each."""
    from ragaudit.judges.proxy import RecordingProxy
    from ragaudit.judges.runner import describe, run_tasks

    options, out = session.judging.options, session.judging.options.scorecard_path()
    client_timeout = options.timeout * (retry.retries + 1) + 60  # the proxy ends a call first

    def done(task, record) -> None:
        session.evaluations.append(record)
        say(f"[{len(session.evaluations)}/{len(tasks) + carried}] {describe(record)}")
        write_in_progress(out, session.document(False))

    with RecordingProxy(running.judge, session.cache, running.upstream) as proxy:
        run_tasks(tasks, proxy, workers=options.workers, timeout=client_timeout, on_done=done)


def _judge_entry(options: JudgeOptions, running) -> dict:
    """The scorecard's `judge`: what was asked, the model that answered, its settings."""
    return {
        "spec": options.judge,
        "model": running.judge.model,
        "base_url": options.base_url,
        "digest": running.judge.digest,
        "digest_reason": running.judge.digest_reason,
        "settings": running.settings,
    }


@dataclasses.dataclass
class _Session:
    """This process's part of the run: its calls, its time and the evaluations so far."""

    judging: Judging
    cache: CallCache
    started_at: str
    started: float
    """time.monotonic() at the start."""
    judge: dict = dataclasses.field(default_factory=dict)
    evaluations: list[dict] = dataclasses.field(default_factory=list)

    def document(self, complete: bool) -> dict:
        """The scorecard as it stands."""
        judging = self.judging
        return build(
            source=judging.source, judge=self.judge, metrics=judging.checked.metrics,
            versions=judging.checked.versions, plan=judging.plan, samples=judging.samples,
            evaluations=self.evaluations, conditions=self._conditions(), complete=complete,
        )  # fmt: skip

    def _conditions(self) -> dict:
        options, plan = self.judging.options, self.judging.plan
        seconds = time.monotonic() - self.started
        sessions = read_sessions(options.scorecard_path())
        return {
            "calls": self.cache.stats(),
            "failures": self.cache.failures(),
            "workers": options.workers,
            "timeout_seconds": options.timeout,
            "started_at": self.started_at,
            "elapsed_seconds": round(seconds, 1),
            "sessions": [s for s in sessions if s.get("plan_id") == plan_id(plan)],
            "computing_seconds": computing_seconds(sessions, plan_id(plan))
            + (round(seconds, 1) if self._counts_apart(sessions) else 0.0),
        }

    def _counts_apart(self, sessions: list[dict]) -> bool:
        """Whether this session's time is added to the ledger's: once it has computed a
        call, until it is in the ledger (the final scorecard is built after the session is
        written, and counting it twice overstated a computing session's time)."""
        written = any(entry.get("started_at") == self.started_at for entry in sessions)
        return bool(self.cache.stats()["computed"]) and not written

    def end(self, settings: dict) -> None:
        """Write this session into the ledger beside the scorecard."""
        out, plan = self.judging.options.scorecard_path(), self.judging.plan
        entry = {"plan_id": plan_id(plan), "started_at": self.started_at,
                 "seconds": round(time.monotonic() - self.started, 1),
                 "records": len(self.judging.samples), "judge_settings": settings,
                 **self.cache.stats()}  # fmt: skip
        record_session(out, [*read_sessions(out), entry])
