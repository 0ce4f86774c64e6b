"""Which stages a run plan runs: the composition root, above every stage's package, so the
orchestrator (pipeline.orchestrate) loops over stages and knows none of them by name."""

from __future__ import annotations

from dataclasses import replace

from ragaudit.pipeline.matrix import BuiltInMatrix
from ragaudit.pipeline.plan import RunPlan
from ragaudit.pipeline.stage import Stage
from ragaudit.userpipeline.stage import build_pipeline_stages
from ragaudit.userstack.column import build_columns


def stages_for(plan: RunPlan, *, dry_run: bool = False) -> list[Stage]:
    """One column per --stack file (a `pipeline:` file is a pipeline stage), then the
    built-in matrix (unless --stack-only): the order they retrieve in, the user's code
    first (a fault in it costs no built-in work). In the results file the matrix comes
    first (each stage's `order`). `dry_run`: a pipeline's service is not ingested into."""
    components = tuple(stack for stack in plan.stacks if stack.pipeline is None)
    stages: list[Stage] = list(build_columns(replace(plan, stacks=components)))
    stages += build_pipeline_stages(plan, dry_run=dry_run)  # built now too: nothing written yet
    stages += [BuiltInMatrix(plan)] if plan.configs else []
    return stages
