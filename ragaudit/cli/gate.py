"""`ragaudit gate --baseline BASE.json --results NEW.json`: a paired regression gate for
pull requests. Exit 0 when no gated cell lost, 1 when one did (the lost instances named),
2 when the two files cannot be paired or an input is bad (nothing is written then). The
gate itself is gating.gate's; this module parses its options and prints its verdict."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from pathlib import Path

from ragaudit.cli.out_path import refuse_input_as_output
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable, write_text_atomic
from ragaudit.gating.gate import ALPHA_BOUNDS, MAX_DROP_BOUNDS, Bounds, GateOptions, gate
from ragaudit.gating.junit import write_gate_junit
from ragaudit.gating.summary import log_lines, markdown

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `ragaudit gate`."""
    parser.add_argument("--baseline", type=Path, required=True, metavar="BASE.json")
    parser.add_argument("--results", type=Path, required=True, metavar="NEW.json")
    parser.add_argument(
        "--alpha", default=None, help=f"significance level (default {GateOptions.alpha:g})"
    )
    parser.add_argument(
        "--cells",
        nargs="+",
        default=[],
        metavar="PROBE:CONFIG",
        help="gate only these cells (default: every cell both files can be paired on)",
    )
    parser.add_argument(
        "--max-drop",
        default=None,
        metavar="POINTS",
        help="fail a cell whose pass rate drops by more than this many points "
        f"(default {GateOptions.max_drop:g})",
    )
    parser.add_argument(
        "--pair",
        action="append",
        default=[],
        metavar="A_CONFIG[@EMBEDDER]=B_CONFIG[@EMBEDDER]",
        help="gate this column of the baseline against this column of the new run "
        "(repeatable; default: each column both files hold, with itself)",
    )
    parser.add_argument("--junit", type=Path, default=None, help="write JUnit here")
    parser.add_argument("--summary", type=Path, default=None, help="write the Markdown here")


def number(text: str, flag: str, low: float, high: float, *, open_low: bool) -> float:
    """A finite number in (low, high] or [low, high]; one line naming the flag otherwise."""
    return _bounded(text, flag, Bounds(low, high, open_low))


def _bounded(text: str, flag: str, bounds: Bounds) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not bounds.holds(value):
        raise RagauditError(f"{flag} {text!r}: give a number in {bounds}")
    return value


def gate_options(
    alpha: str | None,
    max_drop: str | None,
    pairs: Sequence[str] = (),
    cells: Sequence[str] = (),
    *,
    prefix: str = "--",
) -> GateOptions:
    """The gate's options as given on a command line (None: the default), each number
    checked in one line naming its flag (`--alpha`, or `--gate-alpha` under prefix
    `--gate-`)."""
    numbers = {}
    if alpha is not None:
        numbers["alpha"] = _bounded(alpha, f"{prefix}alpha", ALPHA_BOUNDS)
    if max_drop is not None:
        numbers["max_drop"] = _bounded(max_drop, f"{prefix}max-drop", MAX_DROP_BOUNDS)
    return GateOptions(**numbers, pairs=tuple(pairs), cells=tuple(cells))


def options(args: argparse.Namespace) -> GateOptions:
    """`ragaudit gate`'s arguments as the library's options."""
    return gate_options(args.alpha, args.max_drop, args.pair, args.cells)


def run(args: argparse.Namespace) -> int:
    """Gate; print each cell's reasoning and the one-line verdict; write the summary and
    the JUnit file when asked (after every check)."""
    step_summary = os.environ.get(STEP_SUMMARY_ENV) or None
    targets = [(f, t) for f, t in (("--junit", args.junit), ("--summary", args.summary)) if t]
    if step_summary:
        targets.append((STEP_SUMMARY_ENV, Path(step_summary)))
    inputs = [("baseline", args.baseline), ("results file", args.results)]
    refuse_input_as_output(targets, inputs)
    for flag, target in targets:
        if flag != STEP_SUMMARY_ENV:
            check_writable(target, flag)
    verdict = gate(args.baseline, args.results, options(args))
    text = markdown(verdict)
    for line in log_lines(verdict):
        print(line)
    if args.summary is not None:
        write_text_atomic(args.summary, text)
    if args.junit is not None:
        write_gate_junit(args.junit, verdict)
    if step_summary:
        try:
            with open(step_summary, "a", encoding="utf-8") as out:
                out.write(text + "\n")
        except OSError as error:
            print(f"ragaudit gate: {STEP_SUMMARY_ENV}={step_summary}: {error.strerror}")
    return 1 if verdict.failed else 0
