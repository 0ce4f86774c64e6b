"""`ragaudit mutate CORPUS CASES [--stack FILE | --settings FILE] [--operators ...] [--seed N]
[--no-generate]`: plant known faults in your own corpus and score your stack on them.

Exit status, as mutmut and PIT users expect: without --fail-under, 1 when a mutant survives;
with --fail-under SCORE, 1 only when some operator's mutation score is below SCORE (the
survivors are still listed; an operator with no measured mutant has no score to fall
short). Either way 1 when a model call failed (a record lost a call), and 2 on bad input
(one line naming the file, the field or the value; nothing written)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ragaudit import paths
from ragaudit.api.verbs import mutate
from ragaudit.auditing.report import corpus_lines
from ragaudit.backends.specs import check_generator_spec
from ragaudit.cli.junit_option import add_junit_argument
from ragaudit.cli.out_path import corpus_input, published_outputs, refuse_input_as_output
from ragaudit.cli.workers import add_workers_argument
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable
from ragaudit.mutation.junit import write_mutation_junit
from ragaudit.mutation.operators import operator_names
from ragaudit.mutation.publish import publish_mutation
from ragaudit.mutation.runner import DEFAULT_GENERATOR, MutateInputs
from ragaudit.mutation.score import failed_call
from ragaudit.report.mutation import mutation_lines
from ragaudit.targets.stackfile import load_stack


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The mutate command's arguments."""
    parser.epilog = (
        "exit status: without --fail-under, 1 when any mutant survives; with --fail-under "
        "SCORE, 1 only when an operator's score (killed / applicable) is below SCORE; 1 "
        "also when a model call failed (the results then go to <out stem>.failed.json and "
        "the results file is left as it was); 2 on bad input. A mutant that is not applicable, "
        "not measured (remove_answer under --no-generate, something retrieved) or excluded "
        "by the control row never fails."
    )
    parser.add_argument("corpus", type=Path, help="folder of .txt/.md/.html files, or a .jsonl")
    parser.add_argument(
        "cases", type=Path, nargs="?", default=None,
        help="mutation case file: intents with answer: (none: cases are mined from CORPUS and "
        "verified first, as `ragaudit cases` does, and a copy written beside the results)",
    )  # fmt: skip
    column = parser.add_mutually_exclusive_group()
    column.add_argument("--settings", type=Path, default=None, help="retrieval settings file")
    column.add_argument("--stack", type=Path, default=None, help="your stack file")
    parser.add_argument(
        "--operators", nargs="+", default=None, metavar="NAME",
        help=f"operators to run (default all: {', '.join(operator_names())})",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="the operators' seed (default 0)")
    parser.add_argument(
        "--no-generate", action="store_true",
        help="retrieval-side measures only (no generator loads)",
    )  # fmt: skip
    parser.add_argument(
        "--generator", default=None, help=f"generator spec (default {DEFAULT_GENERATOR})"
    )
    parser.add_argument(
        "--fail-under", type=float, default=None, metavar="SCORE",
        help="exit 1 only when an operator's mutation score is below SCORE (0 to 1), not on "
        "every survivor (survivors are still listed); without it, any survivor exits 1",
    )  # fmt: skip
    parser.add_argument(
        "--out", type=Path, default=None,
        help="results file (default: results/mutate-latest.json in the data folder)",
    )  # fmt: skip
    parser.add_argument(
        "--allow-failed-calls", action="store_true",
        help="write the results file even when records lost a model call (default: they go "
        "to <out stem>.failed.json and the results file is left as it was); exit 1 still",
    )  # fmt: skip
    parser.add_argument(
        "--dry-run", action="store_true",
        help="check every input and build every mutant, then print the calls, the builds "
        "and a time estimate; nothing is embedded or written",
    )  # fmt: skip
    add_junit_argument(parser)
    add_workers_argument(parser)


def _dry_run(args: argparse.Namespace) -> int:
    from ragaudit.cli.mutate_dry_run import mutate_dry_run
    from ragaudit.mutation.runner import prepare

    if args.cases is None:  # the mutants are built on cases that are not mined yet
        from ragaudit.casemining.estimate import estimate_lines
        from ragaudit.casemining.run import DEFAULT_MAX_CASES

        for line in estimate_lines(args.corpus, DEFAULT_MAX_CASES, True, args.generator, args.seed):
            print(line)
        print("mutate: the mutants and their calls are told once the cases are mined (run "
              "`ragaudit cases` first, or pass a case file, to see them)")  # fmt: skip
        return 0
    chosen = tuple(args.operators) if args.operators else None
    inputs = MutateInputs(args.corpus, args.cases, args.settings, args.stack, chosen, args.seed)
    generator = args.generator or DEFAULT_GENERATOR
    return mutate_dry_run(prepare(inputs), not args.no_generate, generator)


def failed_call_lines(results: dict) -> list[str]:
    """``N of M calls failed: <reasons>`` and the records that lost one (their mutants are
    not measured: outside the score, never survivors); nothing when no call failed."""
    calls = results["conditions"]["calls"]
    if not calls["failed"]:
        return []
    named = [
        f"{r['calls']} × {r['kind']} {r['model']}: {r['reason']}"
        for r in results["conditions"]["failure_reasons"][:3]
    ]
    lost = sum(1 for r in results["instances"] if failed_call(r))
    return [
        f"{calls['failed']} of {sum(calls.values())} calls failed: {'; '.join(named)}",
        f"{lost} of {len(results['instances'])} records lost a call: their mutants are "
        "not measured (failed call), outside the scores",
    ]


def run(args: argparse.Namespace) -> int:
    """Check every input, run the mutation audit, print the section, write the files."""
    if args.fail_under is not None and not 0 <= args.fail_under <= 1:
        raise RagauditError(f"--fail-under {args.fail_under}: give a score from 0 to 1")
    if args.operators is not None and not args.operators:
        raise RagauditError("--operators: name at least one operator")
    if not args.no_generate:
        check_generator_spec(args.generator or DEFAULT_GENERATOR)
    elif args.stack is not None and load_stack(args.stack).pipeline is not None:
        # its chunks are its own: without its answers no operator can be measured
        raise RagauditError(
            f"--no-generate with {args.stack}: a pipeline's chunks are its own, so only "
            "its answers can measure a mutant; run without --no-generate"
        )
    if args.dry_run:
        return _dry_run(args)
    out = args.out or paths.results_dir() / "mutate-latest.json"
    outputs = published_outputs("--out", out)
    outputs += [("--junit", args.junit)] if args.junit is not None else []
    read = [corpus_input(args.corpus), ("cases file", args.cases),
            ("settings file", args.settings), ("stack file", args.stack)]  # fmt: skip
    if args.cases is None:  # the mined cases' copy is written beside the results
        outputs.append(("--out's cases copy", out.with_name(f"{out.stem}.cases.yaml")))
    refuse_input_as_output(outputs, [(what, path) for what, path in read if path is not None])
    check_writable(out, "--out")
    if args.junit is not None:
        check_writable(args.junit, "--junit")
    results = mutate(
        args.corpus, args.cases, args.stack, settings=args.settings, operators=args.operators,
        generate=not args.no_generate, generator=args.generator, seed=args.seed,
        workers=args.workers, argv=["mutate", *sys.argv[2:]], cases_beside=out,
    ).document  # fmt: skip
    for line in mutation_lines(results):
        print(line)
    if results["corpus"]["skipped"]:  # listed as audit lists them, never dropped unnamed
        print("\n".join(corpus_lines(results["corpus"])), file=sys.stderr)
    for line in failed_call_lines(results):
        print(line, file=sys.stderr)
    published = publish_mutation(out, results, allow_failed_calls=args.allow_failed_calls)
    print(f"results: {published.written}")
    for line in published.lines():
        print(line, file=sys.stderr)
    write_mutation_junit(args.junit, results)
    return exit_status(results, args.fail_under)


def exit_status(results: dict, fail_under: float | None) -> int:
    """1 on a survivor (or, with --fail-under, a score below it) or a failed call, else 0."""
    section = results["mutation"]
    if fail_under is None:
        failed = bool(section["survivors"])
    else:  # the threshold replaces "any survivor fails", as PIT's mutationThreshold does
        low = [
            s["operator"] for s in section["scores"]
            if s["score"] is not None and s["score"] < fail_under
        ]  # fmt: skip
        if low:
            print(f"below --fail-under {fail_under}: {', '.join(low)}", file=sys.stderr)
        failed = bool(low)
    return 1 if failed or results["conditions"]["failed_calls"] else 0
