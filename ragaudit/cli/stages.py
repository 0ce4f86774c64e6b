"""Which stages a run plan runs: the composition root, above every stage's package, so the
orchestrator (pipeline.orchestrate) loops over stages and knows none of them by name."""

from __future__ import annotations

from ragaudit.pipeline.matrix import BuiltInMatrix
from ragaudit.pipeline.plan import RunPlan
from ragaudit.pipeline.stage import Stage
from ragaudit.userstack.column import build_columns


def stages_for(plan: RunPlan) -> list[Stage]:
    """One column per --stack file, then the built-in matrix (unless --stack-only): the
    order they retrieve in, the user's code first (a fault in it costs no built-in work).
    In the results file the matrix comes first (each stage's `order`)."""
    stages: list[Stage] = list(build_columns(plan))  # built now: nothing written yet
    stages += [BuiltInMatrix(plan)] if plan.configs else []
    return stages
