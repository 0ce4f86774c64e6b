"""The user's stacks as columns of a matrix run: their retrieval stage before the matrix's
models load, their fragments merged into the matrix's, and generation of their records with
each stack's own generator (default: the run's). pipeline.orchestrate calls these hooks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ragaudit.backends.specs import OPTION_KEYS, describe_model, load_embedder, load_generator
from ragaudit.grading.grade import grade_records
from ragaudit.pipeline.generate import failed_calls, generate_records
from ragaudit.stack.index import open_client
from ragaudit.stack.stackfile import StackSpec
from ragaudit.userstack.stage import StackStage, merge_fragment, stack_only_retrieval


def load_model(loader: Callable, model: dict, cache: Any, **extra: Any) -> Any:
    """A stack's embedder or generator (`{"spec", "base_url", "api_key_env"}`) through the
    backends' loader, with its endpoint options (the key's variable name, never the key)."""
    options = {key: model.get(key) for key in OPTION_KEYS}
    return loader(model["spec"], cache, options=options, **extra)


def run_stacks(plan: Any, corpus: Any, cache: Any, progress: Any) -> list[StackStage]:
    """Every stack's chunks cut and its retriever factory built (a bad splitter or factory
    fails here, before any model loads), then its embedder loaded and its stage run (its
    `fragment`): all before the matrix embeds anything, so a bad stack costs nothing."""
    if not plan.stacks:
        return []
    client = open_client()
    stages = [StackStage(corpus, stack, None, client, progress) for stack in plan.stacks]
    for stage in stages:
        if stage.user_retriever is None:
            stage.embedder = load_model(
                load_embedder, stage.stack.embedder, cache, workers=plan.workers
            )
    for stage in stages:
        stage.fragment = stage.run()
    return stages


def merge_stacks(corpus: Any, stages: Sequence[StackStage], retrieval: dict | None) -> dict:
    """The matrix's retrieval fragments (None under --stack-only) with every stack's merged."""
    merged = retrieval if retrieval is not None else stack_only_retrieval(corpus, stages)
    for stage in stages:
        merge_fragment(merged, stage.fragment)
    return merged


def add_models(results: dict, described: Sequence[dict]) -> None:
    """Append `models` entries not already there (same spec, kind and endpoint)."""

    def key(entry: dict) -> tuple:
        return entry.get("spec"), entry.get("kind"), entry.get("base_url")

    have = {key(entry) for entry in results["models"]}
    for entry in described:
        if key(entry) not in have:
            results["models"].append(entry)
            have.add(key(entry))


def stack_embedder_models(stages: Sequence[StackStage]) -> list[dict]:
    """The `models` entries of the stacks' embedders."""
    return [describe_model(s.embedder) for s in stages if s.embedder is not None]


def generate_stacks(
    plan: Any, results: dict, cache: Any, progress: Any, on_generated: Callable[[], None]
) -> list[dict]:
    """Generate and grade every stack record whose probe the run generates for, with the
    stack's generator (default the run's); returns the failed calls. Counts per stack go
    to run.stack_generation_counts."""
    failed: list[dict] = []
    counts = results["run"].setdefault("stack_generation_counts", {})
    for stack in plan.stacks:
        model = stack.generator or {"spec": plan.generator}
        records = [r for r in results["instances"] if r["config"] == stack.name]
        if not records:
            continue
        generator = load_model(load_generator, model, cache)
        add_models(results, [describe_model(generator)])
        progress.stage(f"generate {model['spec']} (stack {stack.name})", 0)

        def report(done: int, total: int, replayed: int) -> None:
            progress.update(done, total, replayed)
            on_generated()

        counts[stack.name] = generate_records(
            records,
            results["chunks"],
            generator,
            gen_configs=[stack.name],
            gen_probes=results["run"]["gen_probes"],
            progress=report,
            params=plan.generation_params,
            chunk_offsets=results["chunk_offsets"],
            workers=plan.workers,
        )
        grade_records(records, results["chunks"])
        failed += failed_calls(records, model["spec"])
    return failed


def configs_json(stacks: Sequence[StackSpec]) -> list[dict]:
    """The results file's `configs` entries of the stacks (after the built-in ones)."""
    return [stack.to_config_json() for stack in stacks]
