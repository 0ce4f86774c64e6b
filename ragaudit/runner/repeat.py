"""A run repeated under K generation conditions (`ragaudit run --repeat K`).

The run as asked comes first, then K-1 reruns that replay retrieval from the call cache and
generate again, each generator that answers under another condition (runner.
repeat_conditions: a local llama.cpp model another thread count, a remote one another
seed). Each rerun writes `<out stem>.repeat-<i>.json` (resumable like any run); the first
run's results file then marks every instance whose verdict changed as flaky
(runner.flaky), which the gate leaves out. A rerun that asked only the first run's
calls is refused (RagauditError, nothing marked): it could find nothing flaky."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ragaudit.errors import RagauditError
from ragaudit.results.io import load_results, write_results
from ragaudit.runner.flaky import generation_conditions, mark_flaky, unvaried
from ragaudit.runner.plan import RunPlan
from ragaudit.runner.repeat_conditions import Condition, conditions, threads_set


@dataclasses.dataclass(frozen=True)
class RepeatOptions:
    """How a run is repeated."""

    count: int
    """K: the conditions generation runs under, the run as asked among them (2 to
    repeat_conditions.MAX_REPEAT)."""


def run_repeated(
    plan: RunPlan,
    options: RepeatOptions,
    run_one: Callable[[RunPlan], int],
    say: Callable[[str], None],
) -> int:
    """Run `plan` under every condition with `run_one` (its exit status back), then mark
    the flaky instances in the first run's file; `say` is told each step. A condition that
    fails stops the rest (its exit status is returned)."""
    chosen = conditions(plan, options.count)
    for condition in chosen:
        say(f"ragaudit run --repeat: {condition.label} -> {condition.plan.out}")
        with threads_set(condition.threads):
            code = run_one(condition.plan)
        if code != 0:
            return code
    runs = [load_results(c.plan.out) for c in chosen]
    _check_varied(options.count, chosen, runs, say)
    flaky = mark_flaky(runs[0], runs, [c.label for c in chosen])
    write_results(plan.out, runs[0], complete=True)
    say(
        f"ragaudit run --repeat: {len(flaky)} flaky instance(s) under "
        f"{', '.join(c.label for c in chosen)} (marked in {plan.out}, left out by the gate)"
    )
    for key in flaky:
        say(f"  flaky {key}")
    return 0


def _check_varied(
    k: int, chosen: list[Condition], runs: list[dict], say: Callable[[str], None]
) -> None:
    """Refuse (nothing marked) a rerun whose every generator answered under the first
    run's very conditions: it computed no new call, so "0 flaky" would mean nothing. A
    generator left alike beside varied ones (a pipeline) is named: it is not rerun."""
    for condition, rerun in zip(chosen[1:], runs[1:], strict=True):
        alike = unvaried(runs[0], rerun)
        if alike and len(alike) == len(generation_conditions(rerun)):
            raise RagauditError(
                f"--repeat {k}: the rerun under {condition.label} asked the very calls of the "
                f"first run ({', '.join(alike)}: the same model, settings and parameters), so "
                "it computed no new call and no verdict could change; nothing was marked flaky"
            )
        for spec in alike:
            say(
                f"ragaudit run --repeat: {spec} answered alike under {condition.label} (its "
                "replies replayed): its records cannot be found flaky"
            )
