"""`ragaudit cases DOCS --out cases.yaml [--max N] [--generator SPEC | --no-generate]
[--all-kinds] [--seed N] [--dry-run]`: mine cases from your own documents, phrase them in
the documents' language and verify each (ragaudit.casemining).

Exit status: 0 when cases were kept and every call answered; 1 when a generator call
failed (its facts are listed as unverified) or no case was kept (the file is still written,
with every rejection and its reason); 2 on bad input (nothing written)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ragaudit.api.mined import cases
from ragaudit.backends.specs import check_generator_spec
from ragaudit.casemining.run import DEFAULT_CASES_GENERATOR, DEFAULT_MAX_CASES, MAX_PER_DOCUMENT
from ragaudit.cli.out_path import corpus_input, refuse_input_as_output
from ragaudit.cli.workers import add_workers_argument
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable
from ragaudit.report.cases import cases_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "exit status: 0 when cases were kept; 1 when a generator call failed (its facts go "
        "to unverified:) or none was kept; 2 on bad input (nothing written)"
    )
    parser.add_argument("documents", type=Path, help="folder of .txt/.md/.html files, or a .jsonl")
    parser.add_argument("--out", type=Path, required=True, help="the cases file to write (YAML)")
    parser.add_argument(
        "--max", type=int, default=DEFAULT_MAX_CASES, metavar="N", dest="max_cases",
        help=f"stop once N cases are kept (default {DEFAULT_MAX_CASES})",
    )  # fmt: skip
    model = parser.add_mutually_exclusive_group()
    model.add_argument(
        "--generator", default=None,
        help=f"generator that phrases and checks (default {DEFAULT_CASES_GENERATOR})",
    )  # fmt: skip
    model.add_argument(
        "--no-generate", action="store_true",
        help="template phrasings, no model: the oracle and closed-book checks are not run",
    )  # fmt: skip
    parser.add_argument(
        "--per-document", type=int, default=MAX_PER_DOCUMENT, metavar="N",
        help=f"at most N facts from one document (default {MAX_PER_DOCUMENT}): the cases "
        "spread over the corpus",
    )  # fmt: skip
    parser.add_argument(
        "--all-kinds", action="store_true",
        help="also check values whose cases read by hand were often invalid (versions, "
        "counts, durations, dates, names, table cells, settings named in plain words); by "
        "default only a setting's value named by an option or setting name is checked",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="the mining seed (default 0)")
    parser.add_argument(
        "--dry-run", action="store_true",
        help="mine the facts, then print the calls the checks would make and a time "
        "estimate; nothing is generated or written",
    )  # fmt: skip
    add_workers_argument(parser)


def run(args: argparse.Namespace) -> int:
    if args.max_cases < 1:
        raise RagauditError(f"--max {args.max_cases}: give a number of cases of 1 or more")
    if args.per_document < 1:
        raise RagauditError(f"--per-document {args.per_document}: give 1 or more")
    if not args.no_generate:
        check_generator_spec(args.generator or DEFAULT_CASES_GENERATOR)
    if args.dry_run:
        from ragaudit.casemining.estimate import estimate_lines

        for line in estimate_lines(args.documents, args.max_cases, not args.no_generate,
                                   args.generator, args.seed, args.per_document,
                                   args.all_kinds):  # fmt: skip
            print(line)
        return 0
    refuse_input_as_output([("--out", args.out)], [corpus_input(args.documents)])
    check_writable(args.out, "--out")
    mined = cases(
        args.documents, max_cases=args.max_cases, generate=not args.no_generate,
        generator=args.generator, seed=args.seed, workers=args.workers,
        max_per_document=args.per_document, all_kinds=args.all_kinds,
        argv=["cases", *sys.argv[2:]], out=args.out,
    )  # fmt: skip
    for line in cases_lines(mined.document):
        print(line)
    print(f"cases: {args.out}")
    counts = mined.document["counts"]
    if not counts["kept"]:
        print("no case was kept: see rejected: in the file for each reason", file=sys.stderr)
    return 1 if counts["unverified"] or not counts["kept"] else 0
