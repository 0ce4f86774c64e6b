"""`ragaudit drift PRODUCTION EVALUATION [--map FILE] [--junit FILE] [--out FILE]`: compare
the retrieval constants production runs with against those the test or eval script uses,
one by one, the looser side named. Each file is source (Python, JavaScript/TypeScript,
YAML/JSON, `.env`: constants found by name, each with file:line) or, when both are,
ragaudit settings files (the `audit --settings` format). Exit status 0 when they agree,
1 when any constant differs or is set on one side only, 2 on bad input (one line naming
the file, line or field; no constant found in either file)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragaudit.cli.out_path import refuse_input_as_output
from ragaudit.drift.compare import compare_constants
from ragaudit.drift.mode import is_settings_file
from ragaudit.drift.namemap import load_name_map
from ragaudit.drift.output import code_document, default_drift_path, junit_cases, settings_document
from ragaudit.drift.read import by_constant, read_constants
from ragaudit.drift.report import render_rows
from ragaudit.drift.settings import compare, render
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable, write_json_atomic
from ragaudit.report.junit import write_junit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The drift command's arguments."""
    parser.add_argument(
        "production", type=Path, help="what production runs: source file or settings YAML"
    )
    parser.add_argument(
        "evaluation", type=Path, help="what the test or eval script uses: source or settings"
    )
    parser.add_argument(
        "--map",
        type=Path,
        default=None,
        help="YAML of the project's own names -> constants (NAME: backfill_range; null skips)",
    )
    parser.add_argument("--junit", type=Path, default=None, help="write a JUnit XML file here")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="results file (default: results/drift.json in the data folder)",
    )


def _compared(args: argparse.Namespace) -> tuple[list[str], dict]:
    """The printed lines and the results document, in the mode the two files call for."""
    if is_settings_file(args.production) and is_settings_file(args.evaluation):
        compared, differences = compare(args.production, args.evaluation)
        lines = render(args.production, args.evaluation, compared, differences)
        return lines, settings_document(args.production, args.evaluation)
    names = load_name_map(args.map)
    production = by_constant(read_constants(args.production, names))
    evaluation = by_constant(read_constants(args.evaluation, names))
    if not production and not evaluation:
        raise RagauditError(
            f"no retrieval constants found in {args.production} or {args.evaluation}: "
            "name the project's own with --map FILE"
        )
    rows = compare_constants(production, evaluation)
    lines = render_rows(args.production, args.evaluation, rows)
    return lines, code_document(args.production, args.evaluation, rows)


def run(args: argparse.Namespace) -> int:
    """Print every constant compared, write the results (and JUnit) file; 1 on any
    difference."""
    out = args.out or default_drift_path()
    targets = [("--out", out)] + ([("--junit", args.junit)] if args.junit is not None else [])
    inputs = [("production file", args.production), ("evaluation file", args.evaluation)]
    if args.map is not None:
        inputs.append(("name map", args.map))
    refuse_input_as_output(targets, inputs)
    check_writable(out, "--out")
    if args.junit is not None:
        check_writable(args.junit, "--junit")
    lines, document = _compared(args)
    for line in lines:
        print(line)
    write_json_atomic(out, document, trailing_newline=True)
    print(f"results: {out}")
    if args.junit is not None:
        write_junit(args.junit, "ragaudit drift", junit_cases(document))
        print(f"junit: {args.junit}")
    summary = document["summary"]
    return 1 if summary["differ"] or summary["one_side_only"] else 0
