"""`ragaudit run --repeat K` and `ragaudit run --baseline FILE`, around one run.

--repeat K runs generation under K conditions (runner.repeat: the run as asked, then K-1
reruns, each generator that answers under another condition; the results file then marks
every instance whose verdict changed as flaky, which the gate leaves out). A rerun that
asked only the first run's calls is refused (exit 2): it could find nothing flaky.

--baseline FILE gates the finished run against FILE (`ragaudit gate`), its exit status
the command's when the run itself succeeded (FILE's pairing is checked before the run, and
the finished results before they are published: cli.baseline). The gate's own options
pass through as `--gate-alpha`, `--gate-max-drop`, `--gate-pair`, `--gate-cells`,
`--gate-junit` and `--gate-summary` (each is `ragaudit gate`'s option of the same name,
checked before the run; $GITHUB_STEP_SUMMARY is appended to as by `ragaudit gate`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from ragaudit.cli.out_path import refuse_input_as_output
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable
from ragaudit.results.io import load_results
from ragaudit.results.publish import failed_path, previous_path
from ragaudit.runner import repeat
from ragaudit.runner.plan import RunPlan


def run_repeated(
    plan: RunPlan, k: int, run_one: Callable[[RunPlan], int], say: Callable[[str], None]
) -> int:
    """`--repeat K`: runner.repeat.run_repeated with K as its options."""
    return repeat.run_repeated(plan, repeat.RepeatOptions(count=k), run_one, say)


GATE_OPTIONS = {
    "gate_alpha": "--alpha",
    "gate_max_drop": "--max-drop",
    "gate_pair": "--pair",
    "gate_cells": "--cells",
    "gate_junit": "--junit",
    "gate_summary": "--summary",
}
"""`ragaudit run`'s gate options (argparse dest) -> `ragaudit gate`'s option."""


def add_gate_arguments(parser: argparse.ArgumentParser) -> None:
    """`ragaudit run`'s `--gate-…` options: `ragaudit gate`'s, for the gate --baseline runs."""
    group = parser.add_argument_group(
        "the gate after the run (with --baseline FILE; each as in ragaudit gate)"
    )
    group.add_argument("--gate-alpha", default=None, metavar="ALPHA", help="default 0.05")
    group.add_argument("--gate-max-drop", default=None, metavar="POINTS", help="default 10")
    group.add_argument(
        "--gate-pair",
        action="append",
        default=None,
        metavar="A_CONFIG[@EMBEDDER]=B_CONFIG[@EMBEDDER]",
        help="a baseline column against a column of this run (repeatable)",
    )
    group.add_argument("--gate-cells", nargs="+", default=None, metavar="PROBE:CONFIG")
    group.add_argument("--gate-junit", type=Path, default=None, metavar="FILE")
    group.add_argument("--gate-summary", type=Path, default=None, metavar="FILE")


def gate_argv(args: argparse.Namespace, results: Path) -> list[str]:
    """`ragaudit gate`'s arguments for the run's results against args.baseline."""
    argv = ["--baseline", str(args.baseline), "--results", str(results)]
    for dest, flag in GATE_OPTIONS.items():
        value = getattr(args, dest, None)
        if value is None:
            continue
        if dest == "gate_pair":
            argv += [item for text in value for item in (flag, text)]
        elif dest == "gate_cells":
            argv += [flag, *value]
        else:
            argv += [flag, str(value)]
    return argv


def check_gate_options(args: argparse.Namespace, out: Path) -> None:
    """Before any work: the `--gate-…` options need --baseline, their numbers and cells are
    well formed, and the files they write are writable and are neither the baseline nor
    the run's results file. The baseline is read here, so a bad one is refused too."""
    given = [dest for dest in GATE_OPTIONS if getattr(args, dest, None) is not None]
    if args.baseline is None:
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise RagauditError(
                f"{flag} is an option of the gate after the run: give --baseline FILE"
            )
        return
    from ragaudit.cli.gate import number
    from ragaudit.gating.cells import parse_cell

    load_results(args.baseline, allow_partial=False)
    if args.gate_alpha is not None:
        number(args.gate_alpha, "--gate-alpha", 0, 0.5, open_low=True)
    if args.gate_max_drop is not None:
        number(args.gate_max_drop, "--gate-max-drop", 0, 100, open_low=False)
    for text in args.gate_cells or []:
        parse_cell(text)
    targets = [("--gate-junit", args.gate_junit), ("--gate-summary", args.gate_summary)]
    targets = [(flag, target) for flag, target in targets if target is not None]
    run_files = [("results file", out), ("run's previous good run", previous_path(out)),
                 ("run's failed-run file", failed_path(out))]  # fmt: skip
    refuse_input_as_output(targets, [("baseline", args.baseline)], run_files)
    for flag, target in targets:
        check_writable(target, flag)


def gate_after(args: argparse.Namespace, results: Path, code: int) -> int:
    """Gate the finished run against `args.baseline` when the run succeeded, with the
    `--gate-…` options."""
    if code != 0:
        return code
    from ragaudit.cli import gate

    parser = argparse.ArgumentParser(prog="ragaudit gate")
    gate.add_arguments(parser)
    return gate.run(parser.parse_args(gate_argv(args, results)))
