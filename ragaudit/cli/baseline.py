"""`ragaudit run --baseline FILE`: the run's `--baseline` and `--gate-…` options handed to
gating.baseline, which checks the baseline against the run before any model loads and
vets the finished run before its results replace any file."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from ragaudit.cli.gate import gate_options
from ragaudit.gating.baseline import check_baseline_for_plan, results_vetter
from ragaudit.runner.plan import RunPlan


def check_baseline_before_run(args: argparse.Namespace, plan: RunPlan) -> dict:
    """Refuse (one line, before any work) a baseline the gate would refuse to pair with
    this plan's run, as far as the plan tells; returns the baseline, read."""
    return check_baseline_for_plan(args.baseline, plan, args.gate_pair or [])


def vet_against_baseline(
    args: argparse.Namespace, out: Path, baseline: dict
) -> Callable[[dict], None]:
    """The gate's refusals of the finished run's results (as its file will hold them)
    against `baseline` with the `--gate-…` options, for run_matrix's `before_publish`: any
    of them raised there leaves `out` as it was."""
    options = gate_options(
        args.gate_alpha,
        args.gate_max_drop,
        args.gate_pair or [],
        args.gate_cells or [],
        prefix="--gate-",
    )
    return results_vetter(baseline, Path(args.baseline), out, options)
