"""`ragaudit gate --baseline BASE.json --results NEW.json`: a paired regression gate for
pull requests. Exit 0 when no gated cell lost, 1 when one did (the lost instances named),
2 when the two files cannot be paired or an input is bad (nothing is written then)."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from ragaudit.cli.out_path import refuse_input_as_output
from ragaudit.comparison.agreement import agreement
from ragaudit.comparison.pairing import default_pairs, parse_pair
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable, write_text_atomic
from ragaudit.gating.cells import choose, paired_cells
from ragaudit.gating.inputs import check_gate_fields
from ragaudit.gating.junit import write_gate_junit
from ragaudit.gating.summary import cell_lines, flaky_lines, markdown, one_line
from ragaudit.gating.under_test import changes_under_test
from ragaudit.gating.verdict import GateVerdict, decide
from ragaudit.results.io import load_results

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `ragaudit gate`."""
    parser.add_argument("--baseline", type=Path, required=True, metavar="BASE.json")
    parser.add_argument("--results", type=Path, required=True, metavar="NEW.json")
    parser.add_argument("--alpha", default="0.05", help="significance level (default 0.05)")
    parser.add_argument(
        "--cells",
        nargs="+",
        default=[],
        metavar="PROBE:CONFIG",
        help="gate only these cells (default: every cell both files can be paired on)",
    )
    parser.add_argument(
        "--max-drop",
        default="10",
        metavar="POINTS",
        help="fail a cell whose pass rate drops by more than this many points (default 10)",
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
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    inside = (value > low if open_low else value >= low) and value <= high
    if not math.isfinite(value) or not inside:
        bound = "(" if open_low else "["
        raise RagauditError(f"{flag} {text!r}: give a number in {bound}{low:g}, {high:g}]")
    return value


def paired_or_refused(baseline: dict, new: dict, args: argparse.Namespace) -> list[str]:
    """The pairing check: refuse (exit 2) naming what differs; else what it checked."""
    checked = agreement(baseline, new)
    where = f"{args.baseline} and {args.results}"
    if checked.differs:
        raise RagauditError(f"cannot pair {where}: {'; '.join(checked.differs)}")
    if not checked.checked:
        raise RagauditError(f"cannot pair {where}: {checked.notes[-1]}")
    return list(checked.notes)


def gate(args: argparse.Namespace) -> tuple[GateVerdict, list[str], list[str]]:
    """Every check, then the verdict, with the summary's header lines and notes."""
    number(args.alpha, "--alpha", 0, 0.5, open_low=True)
    number(args.max_drop, "--max-drop", 0, 100, open_low=False)
    baseline = load_results(args.baseline, allow_partial=False)
    new = load_results(args.results, allow_partial=False)
    return gate_documents(baseline, new, args)


def gate_documents(
    baseline: dict, new: dict, args: argparse.Namespace
) -> tuple[GateVerdict, list[str], list[str]]:
    """`gate` on two documents already read (`args` names their files in its messages):
    every refusal the gate can make of them, then the verdict. `run --baseline` asks it of
    the finished run's results before they replace any file."""
    alpha = number(args.alpha, "--alpha", 0, 0.5, open_low=True)
    max_drop = number(args.max_drop, "--max-drop", 0, 100, open_low=False)
    check_gate_fields(args.baseline, baseline)
    check_gate_fields(args.results, new)
    notes = paired_or_refused(baseline, new, args)
    pairs = [parse_pair(text, baseline, new) for text in args.pair] or default_pairs(baseline, new)
    cells = choose(paired_cells(baseline, new, pairs), args.cells)
    if not cells:
        raise RagauditError(
            f"{args.baseline} and {args.results} share no cell with paired instances: "
            "name the columns with --pair A_CONFIG=B_CONFIG"
        )
    notes += changes_under_test(baseline, new, pairs)
    header = [f"baseline: `{args.baseline}`", f"new: `{args.results}`"]
    return decide(baseline, new, cells, alpha, max_drop), header, notes


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
    verdict, header, notes = gate(args)
    text = markdown(verdict, header, notes)
    for line in [*notes, *cell_lines(verdict), *flaky_lines(verdict), one_line(verdict)]:
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
