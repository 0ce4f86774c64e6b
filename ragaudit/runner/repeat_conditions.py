"""The K generation conditions of `ragaudit run --repeat K`, taken from the generators that
actually answer the run: the matrix's (the run's --generator, when the matrix generates) and
each stack's own (a stack without one uses the run's). A llama.cpp model in process is
varied by its thread count (RAGAUDIT_LLM_THREADS), a remote one by its seed; a run with
both varies both. A `pipeline:` stack answers by itself: ragaudit cannot vary it (its
replies are replayed from the call cache), so a run only pipelines answer is refused."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

from ragaudit.backends.base import DEFAULT_PARAMS, threads_from_env
from ragaudit.backends.catalogue import GENERATOR
from ragaudit.backends.specs import backend_of
from ragaudit.errors import RagauditError
from ragaudit.runner.plan import RunPlan

THREADS_ENV = "RAGAUDIT_LLM_THREADS"
MAX_REPEAT = 8


@dataclasses.dataclass(frozen=True)
class Condition:
    """One generation condition of a repeated run."""

    label: str
    threads: int | None
    """RAGAUDIT_LLM_THREADS for this run; None leaves it as it is."""
    plan: RunPlan


def _threads(count: int) -> str:
    return f"llama.cpp {count} thread{'' if count == 1 else 's'}"


def repeat_path(out: Path, i: int) -> Path:
    """`results/latest.json` -> `results/latest.repeat-2.json`."""
    return out.with_name(f"{out.stem}.repeat-{i}{out.suffix}")


def answering_generators(plan: RunPlan) -> tuple[list[str], list[str]]:
    """(the generator specs that answer the run's generated records, each once; the names
    of the pipeline stacks, which answer by themselves)."""
    specs, pipelines = [], []
    if plan.configs and plan.gen_configs:  # the matrix generates with the run's generator
        specs.append(plan.generator)
    for stack in plan.stacks:
        if stack.pipeline is not None:
            pipelines.append(stack.name)
        else:
            specs.append(stack.generator["spec"] if stack.generator else plan.generator)
    return list(dict.fromkeys(specs)), pipelines


def conditions(plan: RunPlan, k: int) -> list[Condition]:
    """The K conditions, the run as asked first; refused (one line) when K is out of range,
    the run does not generate, or no generator of ragaudit's answers it."""
    if not 2 <= k <= MAX_REPEAT:
        raise RagauditError(f"--repeat {k}: give 2 to {MAX_REPEAT} conditions")
    if not plan.generate:
        raise RagauditError("--repeat reruns generation: leave out --no-generate")
    specs, pipelines = answering_generators(plan)
    if not specs:
        itself = ", ".join(f"pipeline {name}" for name in pipelines) or "nothing"
        raise RagauditError(
            f"--repeat {k}: no generator of ragaudit's answers this run ({itself} answers "
            "by itself, its replies replayed from the call cache): there is no condition "
            "to vary"
        )
    local = any(not backend_of(spec, GENERATOR).remote for spec in specs)
    remote = any(backend_of(spec, GENERATOR).remote for spec in specs)
    base_seed = DEFAULT_PARAMS["seed"] if plan.generation_seed is None else plan.generation_seed
    threads = threads_from_env(THREADS_ENV)
    other_threads = [t for t in range(1, k + 2) if t != threads][: k - 1]
    out = []
    for i in range(k):
        label = [f"seed {base_seed + i}"] if remote else []
        count = threads if i == 0 else other_threads[i - 1]
        label += [_threads(count)] if local else []
        if i == 0:
            out.append(Condition(", ".join(label), None, plan))
            continue
        seed = base_seed + i if remote else plan.generation_seed
        rerun = dataclasses.replace(plan, out=repeat_path(plan.out, i), generation_seed=seed)
        out.append(Condition(", ".join(label), count if local else None, rerun))
    return out


@contextlib.contextmanager
def threads_set(threads: int | None) -> Iterator[None]:
    """RAGAUDIT_LLM_THREADS set to `threads` for the block (nothing when None)."""
    if threads is None:
        yield
        return
    before = os.environ.get(THREADS_ENV)
    os.environ[THREADS_ENV] = str(threads)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(THREADS_ENV, None)
        else:
            os.environ[THREADS_ENV] = before
