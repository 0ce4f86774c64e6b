"""Which stages a run plan runs: the composition root, above every stage's package, so the
orchestrator (pipeline.orchestrate) loops over stages and knows none of them by name."""

from __future__ import annotations

from dataclasses import replace

from ragaudit.runner.matrix import MatrixStage
from ragaudit.runner.pipeline_stage import build_pipeline_stages
from ragaudit.runner.plan import RunPlan
from ragaudit.runner.stack_stage import build_stack_stages
from ragaudit.runner.stage import Stage


def stages_for(plan: RunPlan, *, dry_run: bool = False) -> list[Stage]:
    """One column per --stack file (a `pipeline:` file is a pipeline stage), then the
    built-in matrix (unless --stack-only): the order they retrieve in, the user's code
    first (a fault in it costs no built-in work). In the results file the matrix comes
    first (each stage's `order`). `dry_run`: a pipeline's service is not ingested into."""
    components = tuple(stack for stack in plan.stacks if stack.pipeline is None)
    stages: list[Stage] = list(build_stack_stages(replace(plan, stacks=components)))
    stages += build_pipeline_stages(plan, dry_run=dry_run)  # built now too: nothing written yet
    stages += [MatrixStage(plan)] if plan.configs else []
    return stages
