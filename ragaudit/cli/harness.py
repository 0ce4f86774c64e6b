"""`ragaudit harness-check PATH... [--waivers FILE] [--junit FILE] [--out FILE]`: look in
evaluation and benchmark scripts for failure handling that hides failures.

Exit status: 0 when every finding is waived (or there is none); 1 when any is not; 2 on
bad input (a missing path, a file that does not parse, a bad waivers file)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragaudit.cli.out_path import refuse_input_as_output
from ragaudit.fileio import check_writable, write_json_atomic
from ragaudit.harness.output import check_document, default_check_path, junit_cases, render_lines
from ragaudit.harness.scan import collect_files, run_check
from ragaudit.harness.waivers import load_waivers
from ragaudit.report.junit import write_junit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The harness-check command's arguments."""
    parser.add_argument(
        "paths", type=Path, nargs="+", help="scripts or folders (.py, .js/.cjs/.mjs, .ts/.tsx)"
    )
    parser.add_argument(
        "--waivers",
        type=Path,
        default=None,
        help="YAML of accepted findings: rule, file[:line], reason",
    )
    parser.add_argument("--junit", type=Path, default=None, help="write a JUnit XML file here")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="results file (default: results/harness-check.json in the data folder)",
    )


def run(args: argparse.Namespace) -> int:
    """Scan, print every finding, write the results (and JUnit) file; 1 on any not waived."""
    out = args.out or default_check_path()
    targets = [("--out", out)] + ([("--junit", args.junit)] if args.junit is not None else [])
    inputs = [("script", path) for path in collect_files(args.paths)]
    if args.waivers is not None:
        inputs.append(("waivers file", args.waivers))
    refuse_input_as_output(targets, inputs)
    check_writable(out, "--out")
    if args.junit is not None:
        check_writable(args.junit, "--junit")
    waivers = load_waivers(args.waivers) if args.waivers is not None else []
    check = run_check(args.paths, waivers)
    for line in render_lines(check):
        print(line)
    write_json_atomic(out, check_document(check), trailing_newline=True)
    print(f"results: {out}")
    if args.junit is not None:
        write_junit(args.junit, "ragaudit harness-check", junit_cases(check))
        print(f"junit: {args.junit}")
    return 1 if check.not_waived else 0
