"""`ragaudit judges`: how often each LLM-judge metric misses a planted fault.

Every metric named by --metric runs through its real library (RAGAS, DeepEval) on a sample
of the results file's generated records, against the judge: `local:qwen2.5-1.5b` (or
-0.5b), a llama.cpp server started and stopped here, or `openai:<model>` on any
OpenAI-compatible server (--base-url, key in OPENAI_API_KEY). Every judge call goes
through the recording proxy and the call cache, so a rerun replays. The run is
judges.run's; this module parses its flags and prints. The scorecard (judges.scorecard) is
written to the data folder's results/judges.json unless --out says.
Exit 0: scored; 1: judge calls failed (this run in `<out stem>.failed.json`, the earlier
scorecard kept; rerun to resume); 2: bad input, before any work.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn

from ragaudit.cli.options import same_named
from ragaudit.cli.out_path import published_outputs, refuse_input_as_output
from ragaudit.cli.results_file import add_results_argument, results_file
from ragaudit.cli.workers import add_workers_argument
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable
from ragaudit.judges.metrics import metric_names
from ragaudit.judges.run import (
    DEFAULT_JUDGE,
    DEFAULT_TIMEOUT,
    Judged,
    JudgeOptions,
    JudgingInterrupted,
    check_options,
    plan_judging,
    run_judging,
)
from ragaudit.judges.scorecard import publish


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `ragaudit judges`."""
    add_results_argument(parser)
    parser.add_argument(
        "--metric",
        action="append",
        default=None,
        help=f"a metric to score (repeatable; default all): {', '.join(metric_names())}",
    )
    parser.add_argument("--judge", default=DEFAULT_JUDGE, help=f"default {DEFAULT_JUDGE}")
    parser.add_argument("--base-url", default=None, help="the server of an openai:<model> judge")
    add_workers_argument(parser)
    for flag, kind, default, helptext in (
        ("--per-group", int, 3, "records per (probe, verdict) group (default 3)"),
        ("--stability", int, 0, "run the first N sampled records twice (default 0)"),
        ("--max-records", int, None, "judge only the first N sampled records (a slice)"),
        ("--seed", int, 0, "the sampling seed (default 0)"),
        ("--timeout", float, DEFAULT_TIMEOUT, "seconds one judge call may take (default 600)"),
    ):
        parser.add_argument(flag, type=kind, default=default, metavar="N", help=helptext)
    parser.add_argument("--out", type=Path, default=None, help="the scorecard to write")
    parser.add_argument("--carry", type=Path, default=None, metavar="SCORECARD",
                        help="keep this earlier scorecard's evaluations (same plan)")  # fmt: skip
    parser.add_argument("--report-from", type=Path, default=None, metavar="SCORECARD",
                        help="run nothing: render this scorecard's report section")  # fmt: skip
    parser.add_argument("--out-md", type=Path, default=None, metavar="FILE.md",
                        help="with --report-from: write the section here")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Check everything, run the evaluations, write the scorecard; see the module doc."""
    if args.report_from is not None:
        return _report(args.report_from, args.out_md)

    options = judge_options(args)
    checked = check_options(options)
    out = options.scorecard_path()
    read = [("results file", options.results)]
    read += [("carried scorecard", options.carry)] if options.carry else []
    refuse_input_as_output(published_outputs("--out", out), read)
    judging = plan_judging(options, checked)
    try:
        judged = run_judging(judging, _say)
    except JudgingInterrupted as stopped:
        _leave_on_interrupt(stopped.finished, stopped.partial)
    return _finish(out, judged)


def judge_options(args: argparse.Namespace) -> JudgeOptions:
    """`ragaudit judges`'s flags as the run's options."""
    return JudgeOptions(
        results=results_file(args),
        metrics=tuple(args.metric or ()),
        **same_named(
            args,
            "judge base_url workers per_group stability max_records seed timeout out carry",
        ),
    )


def _say(line: str) -> None:
    print(line, file=sys.stderr)


def _report(path: Path, out_md: Path | None) -> int:
    """Render a scorecard's report section (docs/judges.md is written this way)."""
    from ragaudit.fileio import write_text_atomic
    from ragaudit.judges.scorecard import load_scorecard
    from ragaudit.report.judges import render_judges_markdown

    if out_md is not None:
        refuse_input_as_output([("--out-md", out_md)], [("scorecard", path)])
    text = render_judges_markdown(load_scorecard(path))
    if out_md is None:
        print(text)
        return 0
    if out_md.suffix != ".md":
        raise RagauditError(f"--out-md {out_md}: name a Markdown file ending in .md")
    check_writable(out_md, "--out-md")
    write_text_atomic(out_md, text + "\n")
    print(f"wrote {out_md}", file=sys.stderr)
    return 0


def _leave_on_interrupt(finished: int, partial: Path) -> NoReturn:
    """End the process at once on Ctrl-C, the session already in the ledger.

    Freeing a llama.cpp server with a call in flight never returns (its destructor waits for
    the call, whose reply the stopped server never sends: measured, a run hung idle for
    minutes after Ctrl-C), and the library's thread would hold the exit for that call. Every
    finished evaluation is already in the partial file and every finished call in the cache,
    so nothing is lost by leaving the server to the operating system."""
    print(
        f"ragaudit judges: interrupted; {finished} evaluation(s) finished this session are in "
        f"{partial} and their calls in the call cache (rerun to resume)",
        file=sys.stderr,
    )
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(130)


def _finish(out: Path, judged: Judged) -> int:
    from ragaudit.report.judges import scorecard_table

    print(scorecard_table(judged.scorecard))
    published = publish(out, judged.scorecard)  # failed calls: their own file, the good one kept
    if judged.failed:
        reasons = sorted({e["reason"] for e in judged.failed})
        print(
            f"{len(judged.failed)} of {judged.evaluations} evaluations failed at the judge "
            f"({judged.failed_calls} calls): {reasons[0]}"
            + (f" (and {len(reasons) - 1} other reasons)" if len(reasons) > 1 else "")
            + "; rerun to resume (finished calls replay)",
            file=sys.stderr,
        )
    for line in published.lines():
        print(line, file=sys.stderr)
    print(f"wrote {published.written}", file=sys.stderr)
    return 1 if judged.failed else 0
