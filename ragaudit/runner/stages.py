"""Which stages a run plan runs: the composition root, above every stage's package, so the
orchestrator (runner.orchestrate) loops over stages and knows none of them by name.

The stages are one registry (ragaudit.registry) of builders, each ``(plan, dry_run) ->
[Stage, ...]``: it returns none when the plan does not call for it (the matrix under
--stack-only, a stack stage without --stack). Plugins add builders through the
`ragaudit.stages` entry-point group; theirs run after the shipped ones.
"""

from __future__ import annotations

from dataclasses import replace

from ragaudit.registry import GROUPS, Registry
from ragaudit.runner.plan import RunPlan
from ragaudit.runner.stage import Stage

STAGES: dict[str, str] = {
    "stack": "ragaudit.runner.stages:stack_stages",
    "pipeline": "ragaudit.runner.stages:pipeline_stages",
    "matrix": "ragaudit.runner.stages:matrix_stages",
}
"""Stage builder name -> ``"module:function"``, in the order their stages retrieve: the
user's code first (a fault in it costs no built-in work). In the results file the matrix
comes first (each stage's `order`)."""


def stage_registry() -> Registry:
    """A fresh registry of STAGES and the plugins' stage builders (nothing imported yet)."""
    registry: Registry = Registry("stage", GROUPS["stage"])
    for name, target in STAGES.items():
        registry.add_lazy(name, target)
    return registry


def stages_for(plan: RunPlan, *, dry_run: bool = False) -> list[Stage]:
    """Every registered builder's stages for `plan`, in registry order. `dry_run`: built
    for counting only (a pipeline's service is not ingested into)."""
    stages: list[Stage] = []
    for build in stage_registry().items():
        stages += build(plan, dry_run)
    return stages


def stack_stages(plan: RunPlan, dry_run: bool) -> list[Stage]:
    """One column per component --stack file, built over the corpus the run reads."""
    from ragaudit.runner.stack_stage import build_stack_stages

    components = tuple(stack for stack in plan.stacks if stack.pipeline is None)
    return list(build_stack_stages(replace(plan, stacks=components)))


def pipeline_stages(plan: RunPlan, dry_run: bool) -> list[Stage]:
    """One stage per `pipeline:` --stack file, built now too (nothing is written yet)."""
    from ragaudit.runner.pipeline_stage import build_pipeline_stages

    return list(build_pipeline_stages(plan, dry_run=dry_run))


def matrix_stages(plan: RunPlan, dry_run: bool) -> list[Stage]:
    """The built-in matrix, unless --stack-only left it no configs."""
    from ragaudit.runner.matrix import MatrixStage

    return [MatrixStage(plan)] if plan.configs else []
