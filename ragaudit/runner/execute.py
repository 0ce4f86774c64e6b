"""One run plan carried out: its remote models checked, its stages composed and run, and the
results file published; what `ragaudit run`, `ragaudit demo` and (later) `ragaudit.run`
share, with no printing (the caller says what happened)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragaudit.results.publish import results_target
from ragaudit.runner.orchestrate import run_matrix
from ragaudit.runner.plan import RunPlan
from ragaudit.runner.preflight import preflight
from ragaudit.runner.stages import stages_for


def execute(
    plan: RunPlan,
    *,
    allow_failed_calls: bool = False,
    before_publish: Callable[[dict], None] | None = None,
    progress: Any = None,
) -> tuple[dict, Path]:
    """Check the plan's remote models (preflight), run its stages (runner.stages) and
    publish the results; returns them and the path they were written to.
    `before_publish`: run_matrix's check of results that would replace `plan.out`;
    `progress`: where the stages report (runner.progress.Progress; default: stderr)."""
    preflight(plan)
    results = run_matrix(
        plan, stages_for(plan), allow_failed_calls=allow_failed_calls,
        before_publish=before_publish, progress=progress,
    )  # fmt: skip
    return results, results_target(plan.out, results, allow_failed_calls=allow_failed_calls)
