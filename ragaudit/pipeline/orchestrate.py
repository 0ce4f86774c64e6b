"""The matrix run, stage by stage: retrieval on every embedder × config × instance, then
(unless the plan says not to) generation and grading on the primary embedder, then
analysis, all written to one results file. `ragaudit run`, `ragaudit demo` and the
inspector's Runs page (through `ragaudit run`) all come here with a RunPlan.

Resumable by construction: every model call goes through the call cache and every index
lives in a persistent Chroma collection, so running the same plan again after a kill
replays finished work instead of recomputing it. The results in progress (`complete:
false`) go to a partial file beside the target after each stage, so the inspector can show
a run in progress; the target is replaced only by the complete results, and the file it
held is kept beside it (results.io.publish_results). So a late failure or a kill never
costs the previous results. One run at a time per data folder (pipeline.lock).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ragaudit import paths
from ragaudit.analysis import analyse
from ragaudit.backends.cache import CallCache
from ragaudit.backends.executors import executor_scope
from ragaudit.backends.specs import describe_model, load_embedder, load_generator
from ragaudit.corpus.build import Corpus
from ragaudit.corpus.files import load_corpus, manifest_sha256
from ragaudit.fileio import remove_orphan_temps
from ragaudit.grading.grade import grade_records
from ragaudit.pipeline.assemble import results_document
from ragaudit.pipeline.conditions import RunWatch
from ragaudit.pipeline.generate import failed_calls, generate_records
from ragaudit.pipeline.lock import hold_run_lock
from ragaudit.pipeline.plan import RunPlan
from ragaudit.pipeline.progress import Progress
from ragaudit.pipeline.retrieve import EmbedderPlan, MatrixStage
from ragaudit.pipeline.sessions import SessionLedger, ledger_path
from ragaudit.results.io import partial_path, previous_path, publish_results, write_results
from ragaudit.stack.index import open_client
from ragaudit.userstack.columns import (
    add_models,
    generate_stacks,
    merge_stacks,
    run_stacks,
    stack_embedder_models,
)

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


def run_matrix(plan: RunPlan) -> dict:
    """Run every stage the plan asks for and write `plan.out`; returns the results.
    Holds the data folder's run lock throughout (a second run waits for this one), and
    the plan's executor (Ray workers under --executor ray)."""
    with hold_run_lock(), executor_scope(plan.executor, plan.ray_address, plan.ray_workers):
        _remove_orphans(plan.out)
        return _run_stages(plan)


def _remove_orphans(out: Path) -> None:
    """The temp files of this run's own files that a killed write left behind."""
    own = (out, partial_path(out), previous_path(out), ledger_path(out))
    remove_orphan_temps(out.parent, [p.name for p in own])
    remove_orphan_temps(paths.results_dir(), [PROGRESS_NAME])


def _run_stages(plan: RunPlan) -> dict:
    watch = RunWatch(SessionLedger.for_plan(plan))  # a resumed run sums its sessions' time
    corpus = load_corpus()
    if plan.n < corpus.n:
        corpus = corpus.subset(plan.n)
    cache = CallCache()
    progress = Progress(json_path=paths.results_dir() / PROGRESS_NAME, failures=cache)
    results, failed = _retrieve(plan, corpus, cache, progress)
    results["conditions"] = watch.conditions(cache, failed, finished=False)
    partial = PartialWriter(plan.out, results)
    # retrieval cells now, so the inspector has a heatmap while generation runs (a run that
    # generates nothing publishes its complete results next: no partial file to write)
    if plan.generate and (plan.configs or plan.stacks):
        analyse(results)
        partial(force=True)
    if plan.generate and plan.configs:
        failed = failed + _generate(plan, results, cache, progress, partial)
    if plan.generate and plan.stacks:  # each stack with its own generator (default the run's)
        failed = failed + generate_stacks(plan, results, cache, progress, partial)
        partial(force=True)
    analyse(results)
    progress.done()
    results["conditions"] = watch.conditions(cache, failed, finished=True)
    kept = publish_results(plan.out, results)
    if kept is not None:
        print(f"kept the previous results as {kept}", file=sys.stderr)
    return results


def _retrieve(
    plan: RunPlan, corpus: Corpus, cache: CallCache, progress: Progress
) -> tuple[dict, list[dict]]:
    """The results document after retrieval, and the retrieval stage's failed calls."""
    stacks = run_stacks(plan, corpus, cache, progress)  # first: a bad stack costs nothing
    embedders = (
        [load_embedder(spec, cache, workers=plan.workers) for spec in plan.embedders]
        if plan.configs
        else []
    )
    roles = [EmbedderPlan(e, "primary", None) for e in embedders[:1]]
    roles += [EmbedderPlan(e, "secondary", plan.secondary_probes) for e in embedders[1:]]
    retrieval = (
        MatrixStage(corpus, plan.configs, roles, open_client(), progress).run() if roles else None
    )
    retrieval = merge_stacks(corpus, stacks, retrieval)
    results = results_document(plan, corpus, manifest_sha256(), roles, retrieval)
    add_models(results, stack_embedder_models(stacks))
    return results, list(retrieval["failed_calls"])


def _generate(
    plan: RunPlan, results: dict, cache: CallCache, progress: Progress, partial: PartialWriter
) -> list[dict]:
    """Generate (each record's retrieved context and its oracle context) and grade on the
    primary embedder's records; returns the failed calls."""
    generator = load_generator(plan.generator, cache)
    results["models"].append(describe_model(generator))
    primary = [r for r in results["instances"] if r["embedder"] == plan.embedders[0]]
    progress.stage(f"generate {plan.generator}", 0)

    def on_generated(done: int, total: int, replayed: int) -> None:
        # The total is known only once identical prompts merge; replays do not set the ETA.
        progress.update(done, total, replayed)
        partial()

    results["run"]["generation_counts"] = generate_records(
        primary,
        results["chunks"],
        generator,
        gen_configs=plan.gen_configs,
        gen_probes=results["run"]["gen_probes"],
        progress=on_generated,
        params=plan.generation_params,
        chunk_offsets=results["chunk_offsets"],  # the oracle contexts' chunks
        workers=plan.workers,
    )
    grade_records(results["instances"], results["chunks"])
    partial(force=True)
    return failed_calls(results["instances"], plan.generator)
