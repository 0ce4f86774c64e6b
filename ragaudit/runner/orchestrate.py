"""The matrix run, stage by stage: retrieval on every embedder × config × instance, then
(unless the plan says not to) generation and grading on the primary embedder, then
analysis, all written to one results file. `ragaudit run`, `ragaudit demo` and the
inspector's Runs page (through `ragaudit run`) all come here with a RunPlan.

Resumable by construction: every model call goes through the call cache and every index
lives in a persistent Chroma collection, so running the same plan again after a kill
replays finished work instead of recomputing it. The results in progress (`complete:
false`) go to a partial file beside the target after each stage, so the inspector can show
a run in progress; the target is replaced only by the complete results, and the file it
held is kept beside it; a run in which records lost model calls writes its own file
unless asked otherwise (results.publish). So a late failure, a failed run or a kill never
costs the last good results. One run at a time per data folder (runner.lock).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ragaudit import paths
from ragaudit.analysis import analyse
from ragaudit.backends.cache import CallCache
from ragaudit.backends.executors import executor_scope
from ragaudit.corpus.files import manifest_sha256
from ragaudit.errors import RagauditError
from ragaudit.fileio import remove_orphan_temps
from ragaudit.results.io import partial_path, write_results
from ragaudit.results.publish import (
    failed_path,
    previous_path,
    publish_results,
    results_target,
)
from ragaudit.runner.assemble import results_document
from ragaudit.runner.conditions import RunWatch
from ragaudit.runner.lock import hold_run_lock
from ragaudit.runner.plan import RunPlan, planted_corpus_for
from ragaudit.runner.progress import Progress
from ragaudit.runner.sessions import SessionLedger, ledger_path
from ragaudit.runner.stage import Stage, add_models, fold_fragments, in_results_order

PARTIAL_WRITE_SECONDS = 30.0
PROGRESS_NAME = "progress.json"


class PartialWriter:
    """Writes the results in progress (`complete: false`) to the target's partial file,
    at most every PARTIAL_WRITE_SECONDS unless forced."""

    def __init__(self, out: Path, results: dict) -> None:
        self.out, self.results, self.last = partial_path(out), results, 0.0

    def __call__(self, force: bool = False) -> None:
        if force or time.monotonic() - self.last >= PARTIAL_WRITE_SECONDS:
            self.last = time.monotonic()
            write_results(self.out, self.results, complete=False)


Vet = Callable[[dict], None]
"""A check of a finished run's results before they replace the results file: a
RagauditError from it keeps the file as it was (`run --baseline`: the gate's refusals)."""


def run_matrix(
    plan: RunPlan,
    stages: Sequence[Stage],
    *,
    allow_failed_calls: bool = False,
    before_publish: Vet | None = None,
    progress: Progress | None = None,
) -> dict:
    """Run the plan's stages (runner.stages.stages_for) and write `plan.out` (its failed file
    when records lost model calls, unless `allow_failed_calls`); returns the results.
    Holds the data folder's run lock throughout (a second run waits for this one), and
    the plan's executor (Ray workers under --executor ray). `before_publish` vets results
    that would replace `plan.out` (_publish). `progress`: where the stages report (default:
    stderr and the data folder's progress file, which the Runs page polls)."""
    with hold_run_lock(), executor_scope(plan.executor, plan.ray_address, plan.ray_workers):
        _remove_orphans(plan.out)
        return _run_stages(plan, stages, allow_failed_calls, before_publish, progress)


def _remove_orphans(out: Path) -> None:
    """The temp files of this run's own files that a killed write left behind."""
    own = (out, partial_path(out), previous_path(out), failed_path(out), ledger_path(out))
    remove_orphan_temps(out.parent, [p.name for p in own])
    remove_orphan_temps(paths.results_dir(), [PROGRESS_NAME])


def _run_stages(
    plan: RunPlan,
    stages: Sequence[Stage],
    allow_failed_calls: bool,
    vet: Vet | None,
    progress: Progress | None = None,
) -> dict:
    watch = RunWatch(SessionLedger.for_plan(plan))  # a resumed run sums its sessions' time
    corpus = planted_corpus_for(plan)
    cache = CallCache()
    if progress is None:
        progress = Progress(json_path=paths.results_dir() / PROGRESS_NAME, failures=cache)
    progress.watch_failures(cache)
    for stage in stages:  # every stage built before any model loads: a bad one costs nothing
        stage.prepare(corpus, progress)
    fragments = {id(stage): stage.retrieve(corpus, cache, progress) for stage in stages}
    stages = in_results_order(stages)
    retrieval = fold_fragments([fragments[id(stage)] for stage in stages])
    results = results_document(plan, corpus, manifest_sha256(), stages, retrieval)
    for stage in stages:
        add_models(results, stage.models())
    failed = list(retrieval["failed_calls"])
    results["conditions"] = watch.conditions(cache, failed, finished=False)
    partial = PartialWriter(plan.out, results)
    # retrieval cells now, so the inspector has a heatmap while generation runs (a run that
    # generates nothing publishes its complete results next: no partial file to write)
    if plan.generate and stages:
        analyse(results)
        partial(force=True)
        for stage in stages:
            failed = failed + stage.generate(results, cache, progress, partial)
            partial(force=True)
    analyse(results)
    progress.done()
    results["conditions"] = watch.conditions(cache, failed, finished=True)
    _publish(plan.out, results, allow_failed_calls, vet)
    return results


def _publish(out: Path, results: dict, allow_failed_calls: bool, vet: Vet | None) -> None:
    """Publish the results (results.publish), after `vet` when they would replace `out`:
    a refusal writes them to the failed file instead and leaves `out` and the kept previous
    run as they were (nothing replaced, nothing rotated), then is raised, naming both."""
    results["complete"] = True  # the run finished: the caller's copy says so, as the file does
    replaces = results_target(out, results, allow_failed_calls=allow_failed_calls) == out
    if vet is not None and replaces:
        try:
            vet(results)
        except RagauditError as refusal:
            held = failed_path(out)
            write_results(held, results, complete=True)
            partial_path(out).unlink(missing_ok=True)
            left = "left as it was" if out.exists() else "not written"
            raise RagauditError(
                f"{refusal}; {out} {left}, this run's results are in {held}"
            ) from None
    published = publish_results(out, results, allow_failed_calls=allow_failed_calls)
    for line in published.lines():
        print(line, file=sys.stderr)
