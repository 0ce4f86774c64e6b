"""`ragaudit run`: the matrix end to end — retrieval, then (unless --no-generate)
generation and grading, then analysis — written to one results file.

The flags become a RunPlan (ragaudit.runner.plan), checked before any work, and every
Ollama model it names is checked on its server (ragaudit.runner.preflight); the stages
run in ragaudit.runner.orchestrate. Rerunning the same command after a kill resumes:
finished model calls and indexes are replayed, not recomputed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ragaudit import paths
from ragaudit.cli.baseline import check_baseline_before_run, vet_against_baseline
from ragaudit.cli.executor import add_executor_arguments
from ragaudit.cli.options import same_named
from ragaudit.cli.out_path import published_outputs, refuse_input_as_output
from ragaudit.cli.repeat import add_gate_arguments, check_gate_options, gate_after, run_repeated
from ragaudit.cli.workers import add_workers_argument
from ragaudit.results.outcome import lost_records
from ragaudit.runner.execute import execute
from ragaudit.runner.plan import DEFAULT_EMBEDDERS, RunPlan, build_plan
from ragaudit.runner.stages import stages_for
from ragaudit.stack import presets

TOP_REASONS = 3  # reasons named on the failed-calls line; the rest are in the file
EXIT_STATUS = (
    "exit status: 0 when the run is complete and no instance record lost a model call; 1 "
    "when model calls failed and records lost them (they stay in the cells' denominators): "
    "the results go to <out stem>.failed.json and the results file is left as it was "
    "(--allow-failed-calls writes it and makes this 0); 2 when the run was refused before "
    "any work (a bad flag, an unreachable Ollama server, a model not pulled, a --baseline "
    "that cannot be paired with this run); with --baseline FILE, once the run succeeded, the "
    "gate's: 0 no gated cell lost, 1 one did, 2 the gate refused the finished run (the "
    "results file is then left as it was and the results go to <out stem>.failed.json)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `ragaudit run` options."""
    _add_scope_arguments(parser)
    _add_generation_arguments(parser)
    _add_config_arguments(parser)
    _add_outcome_arguments(parser)
    parser.epilog = EXIT_STATUS


def _add_scope_arguments(parser: argparse.ArgumentParser) -> None:
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="n=5 instances per probe")
    size.add_argument("--n", type=int, default=None, help="instances per probe (full: 25)")
    size.add_argument(
        "--preset",
        type=presets.preset_name,  # maps the deprecated `seed` to `reference`, saying so
        choices=list(presets.PRESETS),
        help="a named run size (reference: n=25, the 1.5B on A B C M T4000 for the seven "
        "answer probes: the shipped reference run's scope; default full)",
    )
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


def _add_config_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--configs",
        default=None,
        metavar="FILE.yaml",
        help="extra configs to run beside the matrix",
    )
    _add_stack_arguments(parser)
    parser.add_argument(
        "--no-extra-configs",
        action="store_true",
        help="leave out the configs both presets run beside the matrix (T4000: table_split "
        "at 4000 characters through generation)",
    )


def _add_outcome_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        default=None,
        metavar="PATH",
        help="results file (default: results/latest.json in the data folder)",
    )
    parser.add_argument(
        "--allow-failed-calls",
        action="store_true",
        help="write the results file and exit 0 even when instance records lost failed "
        "model calls (default: exit 1, and the results go to <out stem>.failed.json, the "
        "results file left as it was)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        metavar="K",
        help="rerun generation under K conditions of the generators that answer (a local "
        "model's llama.cpp thread count, a remote model's seed) and mark the instances "
        "whose verdict changes as flaky",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        metavar="FILE",
        help="after the run, gate it against this results file (ragaudit gate; its options "
        "as --gate-alpha, --gate-max-drop, --gate-pair, --gate-cells, --gate-junit, "
        "--gate-summary); its pairing is checked before any model loads",
    )
    add_gate_arguments(parser)
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="check every input, print the calls the run would make (cached, to compute, "
        "estimated time from the cache's recorded durations), call nothing, write nothing",
    )


def _add_stack_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stack",
        action="append",
        default=None,
        metavar="FILE.yaml",
        help="your stack (splitter, embedder, generator, retriever by import path) as its own "
        "column beside the matrix; repeatable",
    )
    parser.add_argument(
        "--stack-only", action="store_true", help="run the --stack files without the matrix"
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
        help="probes to generate answers for (quick: the seven answer probes; full: every probe)",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help=f"reply length cap (quick: {quick.max_tokens}; full: {full.max_tokens})",
    )
    parser.add_argument("--no-generate", action="store_true", help="retrieval and diagnostics only")
    add_workers_argument(parser)
    add_executor_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run the matrix the flags describe and write the results file; returns the exit status."""
    plan = plan_from_args(args)
    refuse_input_as_output(published_outputs("--out", plan.out), run_inputs(args), the_run=True)
    check_gate_options(args, plan.out)  # the baseline and the gate's options, before any work
    vet = None
    if args.baseline is not None:  # its pairing too, as far as the plan tells
        vet = vet_against_baseline(args, plan.out, check_baseline_before_run(args, plan))
    if getattr(args, "dry_run", False):
        from ragaudit.runner.estimate import run_estimates
        from ragaudit.runner.estimate_lines import estimate_lines

        for line in estimate_lines(run_estimates(plan, stages_for(plan, dry_run=True))):
            print(line)
        return 0

    def run_one(one: RunPlan) -> int:  # the gated file is vetted before it is replaced
        before_publish = vet if one.out == plan.out else None
        return run_plan(
            one, allow_failed_calls=args.allow_failed_calls, before_publish=before_publish
        )

    def say(line: str) -> None:
        print(line, file=sys.stderr)

    code = run_one(plan) if args.repeat is None else run_repeated(plan, args.repeat, run_one, say)
    return code if args.baseline is None else gate_after(args, plan.out, code)


def command_line() -> tuple[str, ...]:
    """This process's command line as the results file records it (`ragaudit run ...`):
    the CLI's to give, since the library records what its caller says."""
    return (Path(sys.argv[0]).name, *sys.argv[1:])


def plan_from_args(args: argparse.Namespace) -> RunPlan:
    """The plan for `ragaudit run`'s parsed flags (see ragaudit.cli.run.add_arguments)."""
    return build_plan(
        presets.chosen(args.preset, quick=args.quick),
        generate=not args.no_generate,
        extra_configs=not args.no_extra_configs,
        configs_file=args.configs,
        stacks=args.stack or (),
        argv=command_line(),
        **same_named(
            args,
            "n embedders secondary_probes generator gen_configs gen_probes "
            "max_tokens out workers stack_only executor ray_address ray_workers",
        ),
    )


def run_inputs(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """What a run reads that its --out could name: the corpus folder, the configs file,
    each stack file and the baseline."""
    read = [("corpus folder", paths.corpus_dir())]
    read += [("configs file", Path(args.configs))] if args.configs else []
    read += [("stack file", Path(stack)) for stack in args.stack or ()]
    return read + ([("baseline", Path(args.baseline))] if args.baseline is not None else [])


def run_plan(
    plan: RunPlan,
    *,
    allow_failed_calls: bool = False,
    before_publish: Callable[[dict], None] | None = None,
) -> int:
    """Carry the plan out (runner.execute), then print the summary on stderr; returns the
    exit status: 1 when an instance lost a model call (0 if `allow_failed_calls`)."""
    results, written = execute(
        plan, allow_failed_calls=allow_failed_calls, before_publish=before_publish
    )
    for line in summary_lines(results, written):
        print(line, file=sys.stderr)
    failed = failure_lines(results)
    for line in failed:
        print(line, file=sys.stderr)
    if failed and lost_instances(results) and not allow_failed_calls:
        print(
            "ragaudit run: exit 1 because model calls failed (--allow-failed-calls exits 0)",
            file=sys.stderr,
        )
        return 1
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


def lost_instances(results: dict) -> int:
    """How many instance records lost a model call (retrieval or generation)."""
    return lost_records(results)


def failure_lines(results: dict) -> list[str]:
    """``N of M calls failed: <top reasons with counts>`` and how many instance records
    that cost; nothing when no call failed."""
    conditions = results["conditions"]
    calls = conditions["calls"]
    if not calls["failed"]:
        return []
    reasons = conditions["failure_reasons"]
    named = [f"{r['calls']} × {r['kind']} {r['model']}: {r['reason']}" for r in reasons]
    if len(named) > TOP_REASONS:
        named = [*named[:TOP_REASONS], f"{len(named) - TOP_REASONS} more reasons in the file"]
    lost = lost_instances(results)
    return [
        f"{calls['failed']} of {sum(calls.values())} calls failed: {'; '.join(named)}",
        f"{lost} of {len(results['instances'])} instance records lost a model call; "
        "they count as failures in their cells' denominators"
        if lost
        else "no instance record lost its result (the calls succeeded when asked again)",
    ]
