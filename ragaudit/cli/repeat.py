"""`ragaudit run --repeat K` and `ragaudit run --baseline FILE`, around one run.

--repeat K runs generation under K conditions: the run as asked, then K-1 reruns that
replay retrieval from the call cache and generate again, a local llama.cpp model under
another thread count (RAGAUDIT_LLM_THREADS), a remote one with another seed. Each rerun
writes `<out stem>.repeat-<i>.json` (resumable like any run); the results file then marks
every instance whose verdict changed as flaky (gate.flaky), which the gate leaves out.

--baseline FILE gates the finished run against FILE (`ragaudit gate`), its exit status
the command's when the run itself succeeded."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from ragaudit.backends.base import DEFAULT_PARAMS, threads_from_env
from ragaudit.errors import RagauditError
from ragaudit.gate.flaky import mark_flaky
from ragaudit.pipeline.plan import RunPlan
from ragaudit.results.io import load_results, write_results

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


def conditions(plan: RunPlan, k: int) -> list[Condition]:
    """The K conditions: the run as asked first."""
    if not 2 <= k <= MAX_REPEAT:
        raise RagauditError(f"--repeat {k}: give 2 to {MAX_REPEAT} conditions")
    if not plan.generate:
        raise RagauditError("--repeat reruns generation: leave out --no-generate")
    base_seed = DEFAULT_PARAMS["seed"] if plan.generation_seed is None else plan.generation_seed
    if plan.generator.startswith("local:"):
        threads = threads_from_env(THREADS_ENV)
        others = [t for t in range(1, k + 2) if t != threads][: k - 1]
        out = [Condition(_threads(threads), None, plan)]
        for i, t in enumerate(others, start=1):
            rerun = dataclasses.replace(plan, out=repeat_path(plan.out, i))
            out.append(Condition(_threads(t), t, rerun))
        return out
    out = [Condition(f"seed {base_seed}", None, plan)]
    for i in range(1, k):
        rerun = dataclasses.replace(
            plan, out=repeat_path(plan.out, i), generation_seed=base_seed + i
        )
        out.append(Condition(f"seed {base_seed + i}", None, rerun))
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


def run_repeated(
    plan: RunPlan, k: int, run_one: Callable[[RunPlan], int], say: Callable[[str], None]
) -> int:
    """Run every condition, then mark the flaky instances in the first run's file. A
    condition that fails stops the rest (its exit status is the command's)."""
    chosen = conditions(plan, k)
    for condition in chosen:
        say(f"ragaudit run --repeat: {condition.label} -> {condition.plan.out}")
        with threads_set(condition.threads):
            code = run_one(condition.plan)
        if code != 0:
            return code
    runs = [load_results(c.plan.out) for c in chosen]
    flaky = mark_flaky(runs[0], runs, [c.label for c in chosen])
    write_results(plan.out, runs[0], complete=True)
    say(
        f"ragaudit run --repeat: {len(flaky)} flaky instance(s) under "
        f"{', '.join(c.label for c in chosen)} (marked in {plan.out}, left out by the gate)"
    )
    for key in flaky:
        say(f"  flaky {key}")
    return 0


def gate_after(baseline: Path, results: Path, code: int) -> int:
    """Gate the finished run against `baseline` when the run succeeded."""
    if code != 0:
        return code
    from ragaudit.cli import gate

    parser = argparse.ArgumentParser(prog="ragaudit gate")
    gate.add_arguments(parser)
    return gate.run(parser.parse_args(["--baseline", str(baseline), "--results", str(results)]))
