"""`ragaudit run`: the matrix end to end — retrieval, then (unless --no-generate)
generation and grading, then analysis — written to one results file.

The flags become a RunPlan (ragaudit.pipeline.plan), checked before any work; the stages
run in ragaudit.pipeline.orchestrate. Rerunning the same command after a kill resumes:
finished model calls and indexes are replayed, not recomputed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ragaudit.pipeline.orchestrate import run_matrix
from ragaudit.pipeline.plan import DEFAULT_EMBEDDERS, RunPlan, plan_from_args
from ragaudit.stack import presets


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `ragaudit run` options."""
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="n=5 instances per probe")
    size.add_argument("--n", type=int, default=None, help="instances per probe (full: 25)")
    parser.add_argument(
        "--embedders",
        nargs="+",
        metavar="SPEC",
        default=list(DEFAULT_EMBEDDERS),
        help="embedder specs; the first is primary and runs every probe "
        f"(default: {' '.join(DEFAULT_EMBEDDERS)})",
    )
    parser.add_argument(
        "--secondary-probes",
        nargs="+",
        metavar="PROBE",
        default=list(presets.SECONDARY_PROBES),
        help="probes the other embedders run ('all' for every probe; default: "
        f"{' '.join(presets.SECONDARY_PROBES)})",
    )
    _add_generation_arguments(parser)
    parser.add_argument(
        "--configs",
        default=None,
        metavar="FILE.yaml",
        help="extra configs to run beside the matrix",
    )
    parser.add_argument(
        "--out",
        default=None,
        metavar="PATH",
        help="results file (default: results/latest.json in the data folder)",
    )


def _add_generation_arguments(parser: argparse.ArgumentParser) -> None:
    quick, full = presets.QUICK, presets.FULL
    parser.add_argument(
        "--generator",
        default=None,
        metavar="SPEC",
        help=f"generator spec (quick: {quick.generator}; full: {full.generator})",
    )
    parser.add_argument(
        "--gen-configs",
        nargs="+",
        default=None,
        metavar="CONFIG",
        help=f"configs to generate on (quick: {' '.join(quick.gen_configs)}; "
        f"full: {' '.join(full.gen_configs)})",
    )
    parser.add_argument(
        "--gen-probes",
        nargs="+",
        default=None,
        metavar="PROBE",
        help="probes to generate answers for (quick: the seed's answer probes; full: every probe)",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help=f"reply length cap (quick: {quick.max_tokens}; full: {full.max_tokens})",
    )
    parser.add_argument("--no-generate", action="store_true", help="retrieval and diagnostics only")


def run(args: argparse.Namespace) -> int:
    """Run the matrix the flags describe and write the results file; returns the exit status."""
    return run_plan(plan_from_args(args))


def run_plan(plan: RunPlan) -> int:
    """Run `plan`, then print the two summary lines on stderr; returns the exit status."""
    results = run_matrix(plan)
    for line in summary_lines(results, plan.out):
        print(line, file=sys.stderr)
    return 0


def summary_lines(results: dict, out: Path) -> list[str]:
    """What was written and what the model calls were: ``wrote …`` and ``model calls: …``."""
    conditions = results["conditions"]
    calls = conditions["calls"]
    failed = sum(1 for r in results["instances"] if r["retrieval_error"])
    elapsed = conditions["elapsed_seconds"]
    timing = (
        f"{elapsed} s"
        if elapsed is not None
        else f"withheld ({conditions['elapsed_seconds_reason']})"
    )
    return [
        f"wrote {out}: {len(results['instances'])} instance records "
        f"({failed} with a failed retrieval), {len(results['configs'])} configs",
        f"model calls: {calls['replayed']} replayed, {calls['computed']} computed, "
        f"{calls['failed']} failed; elapsed {timing}",
    ]
