"""`ragaudit audit CORPUS CASES --settings prod.yaml [--dilution]`: audit your own retrieval.

Exit status: 0 when every phrasing lands its expected sources in the top-k; 1 when any
case fails or a model call failed (so it can gate CI); 2 on bad input or a fatal
structural check (two cases with the same question)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from ragaudit.auditing.report import default_audit_path, publish_audit, render_table
from ragaudit.auditing.runner import AuditInputs, run_audit
from ragaudit.cli.executor import add_executor_arguments, executor_from_args
from ragaudit.cli.junit_option import add_junit_argument, write_audit_junit_when_asked
from ragaudit.cli.out_path import corpus_input, published_outputs, refuse_input_as_output
from ragaudit.cli.workers import add_workers_argument
from ragaudit.errors import RagauditError
from ragaudit.runner.lock import hold_run_lock
from ragaudit.runner.progress import Progress


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The audit command's arguments."""
    parser.add_argument("corpus", type=Path, help="folder of .txt/.md/.html files, or a .jsonl")
    parser.add_argument(
        "cases",
        type=Path,
        nargs="?",
        help="case file (YAML or JSON): intents × phrasings (optional with --dilution)",
    )
    parser.add_argument(
        "--settings", type=Path, default=None, help="retrieval settings (YAML/JSON)"
    )
    parser.add_argument(
        "--dilution",
        action="store_true",
        help="list the longest chunks with subsection-marker counts and the splitter's verdicts",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="results file (default: results/audit-latest.json in the data folder)",
    )
    parser.add_argument(
        "--rank-depth",
        type=int,
        default=100,
        help="how far down the ranking a source's rank is reported (default 100)",
    )
    parser.add_argument(
        "--allow-failed-calls",
        action="store_true",
        help="write the results file even when cases lost an embedding call (default: "
        "they go to <out stem>.failed.json and the results file is left as it was)",
    )
    add_junit_argument(parser)
    add_workers_argument(parser)
    add_executor_arguments(parser)
    parser.add_argument(
        "--stack",
        type=Path,
        default=None,
        metavar="FILE.yaml",
        help="your stack file: its splitter, retriever or embedder, and k rank the cases; the "
        "settings' slot policy (pool, threshold, cap, floor, backfill) applies on top",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="check every input, print the embedding calls the audit would make (cached, "
        "to compute, estimated time from the cache's recorded durations), call nothing, "
        "write nothing",
    )


def run(args: argparse.Namespace) -> int:
    """Run the audit, print the table, write the results file; return the exit status."""
    if args.cases is None and not args.dilution:
        raise RagauditError("give a case file, or --dilution to list the long chunks only")
    if args.rank_depth < 1:
        raise RagauditError(f"--rank-depth must be at least 1, got {args.rank_depth}")
    inputs = AuditInputs(
        args.corpus, args.cases, args.settings, args.dilution, args.rank_depth, args.workers,
        stack=args.stack, progress=Progress(),
    )  # fmt: skip
    if args.dry_run:
        from ragaudit.cli.audit_dry_run import audit_dry_run

        return audit_dry_run(inputs)
    asked = args.out or default_audit_path()
    outputs = published_outputs("--out", asked)
    outputs += [("--junit", args.junit)] if args.junit is not None else []
    read = [corpus_input(args.corpus), ("cases file", args.cases),
            ("settings file", args.settings), ("stack file", args.stack)]  # fmt: skip
    refuse_input_as_output(outputs, [(what, path) for what, path in read if path is not None])
    argv = ["audit", *sys.argv[2:]] if sys.argv[1:2] == ["audit"] else None
    # An audit with cases writes the call cache and Chroma like a run: one at a time.
    with hold_run_lock() if args.cases is not None else contextlib.nullcontext():
        with executor_from_args(args):  # the corpus's embeddings on Ray workers, if asked
            outcome = run_audit(inputs, argv=argv)
    if outcome.results is None:
        for line in outcome.structure.fatal_lines(outcome.cases_path):
            print(line, file=sys.stderr)
        return 2
    for line in render_table(outcome.results):
        print(line)
    # the last audit whose calls all answered stays where the Audit page reads it
    published = publish_audit(asked, outcome.results, allow_failed_calls=args.allow_failed_calls)
    print(f"results: {published.written}")
    for line in published.lines():
        print(line)
    write_audit_junit_when_asked(args.junit, outcome.results)
    summary = outcome.results["summary"]
    return 0 if summary["passed"] == summary["cases"] else 1  # 0 of 0 cases: dilution only
