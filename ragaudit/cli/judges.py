"""`ragaudit judges`: how often each LLM-judge metric misses a planted fault.

Every metric named by --metric runs through its real library (RAGAS, DeepEval) on a sample
of the results file's generated records, against the judge: `local:qwen2.5-1.5b` (or
-0.5b), a llama.cpp server started and stopped here, or `openai:<model>` on any
OpenAI-compatible server (--base-url, key in OPENAI_API_KEY). Every judge call goes
through the recording proxy and the call cache, so a rerun replays. The scorecard
(judges.scorecard) is written to the data folder's results/judges.json unless --out says.
Exit 0: scored; 1: judge calls failed (this run in `<out stem>.failed.json`, the earlier
scorecard kept; rerun to resume); 2: bad input, before any work.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import NoReturn

from ragaudit import paths
from ragaudit.backends.cache import CallCache
from ragaudit.backends.retry import RetryPolicy
from ragaudit.backends.weights import sha256_of
from ragaudit.cli.out_path import published_outputs, refuse_input_as_output
from ragaudit.cli.results_file import add_results_argument, results_file
from ragaudit.cli.workers import add_workers_argument
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable, now_iso
from ragaudit.judges import environment
from ragaudit.judges.metrics import METRICS, metric_named
from ragaudit.judges.samples import choose_samples
from ragaudit.judges.scorecard import (
    build,
    computing_seconds,
    default_path,
    plan_id,
    publish,
    read_sessions,
    record_session,
    write_in_progress,
)
from ragaudit.results.io import load_results

DEFAULT_JUDGE = "local:qwen2.5-1.5b"
DEFAULT_TIMEOUT = 600.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `ragaudit judges`."""
    add_results_argument(parser)
    parser.add_argument(
        "--metric",
        action="append",
        default=None,
        help=f"a metric to score (repeatable; default all): {', '.join(METRICS)}",
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
    from ragaudit.judges.server import check_spec

    if args.report_from is not None:
        return _report(args.report_from, args.out_md)

    names = list(dict.fromkeys(args.metric or METRICS))
    metrics = [metric_named(name) for name in names]
    versions = environment.library_versions(sorted({m.library for m in metrics}))
    check_spec(args.judge, args.base_url)
    limits = (("--stability", args.stability, 0), ("--max-records", args.max_records, 1))
    for flag, value, least in (*limits, ("--timeout", args.timeout, 1)):
        if value is not None and value < least:
            raise RagauditError(f"{flag} {value:g}: give {least} or more")
    path = results_file(args)
    out = args.out or default_path()
    read = [("results file", path)] + ([("carried scorecard", args.carry)] if args.carry else [])
    refuse_input_as_output(published_outputs("--out", out), read)
    results = load_results(path)
    samples = choose_samples(results, args.per_group, args.seed)
    samples = samples[: args.max_records] if args.max_records else samples
    check_writable(out, "--out")
    plan = {
        "judge": args.judge,
        "base_url": args.base_url,
        "metrics": names,
        "per_group": args.per_group,
        "seed": args.seed,
        "stability": args.stability,
        "max_records": args.max_records,
        "results_sha256": sha256_of(path),
    }
    source = {
        "results": str(path),
        "sha256": plan["results_sha256"],
        "created_at": results.get("created_at"),
        "records_available": len(_generated(results)),
    }
    return _judge(args, metrics, versions, plan, source, samples, out)


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


def _generated(results: dict) -> list:
    from ragaudit.judges.samples import judged_records

    return judged_records(results)


def _carry(carry: Path | None, plan: dict, tasks: list, out: Path) -> tuple[list[dict], list]:
    """The evaluations a shipped scorecard carries in, and the tasks still to run."""
    if carry is None:
        return [], tasks
    from ragaudit.judges.carry import carried_evaluations, carry_sessions

    carried = carried_evaluations(carry, plan, {task.id for task in tasks})
    carry_sessions(carry, out, plan)
    done_ids = {(e["key"], e["metric"], e["repetition"]) for e in carried}
    print(f"carried {len(carried)} evaluations from {carry}", file=sys.stderr)
    return carried, [task for task in tasks if task.id not in done_ids]


def _retry_policy(timeout: float) -> RetryPolicy:
    """The environment's retry policy with this run's per-call timeout."""
    return dataclasses.replace(RetryPolicy.from_env(), timeout=timeout)


def _judge(args, metrics, versions, plan, source, samples, out: Path) -> int:
    environment.prepare(paths.data_dir() / "judges")
    from ragaudit.judges.proxy import RecordingProxy
    from ragaudit.judges.runner import describe, quiet_libraries, run_tasks, tasks_for
    from ragaudit.judges.server import start_judge

    quiet_libraries()
    tasks = tasks_for(samples, metrics, min(plan["stability"], len(samples)))
    carried, tasks = _carry(args.carry, plan, tasks, out)
    cache = CallCache()
    started_at, started = now_iso(), time.monotonic()
    retry = _retry_policy(args.timeout)
    client_timeout = args.timeout * (retry.retries + 1) + 60  # the proxy ends a call first
    print(
        f"judging {len(samples)} records x {len(metrics)} metrics"
        f" (the first {min(plan['stability'], len(samples))} twice) with {args.judge}: "
        f"{len(tasks)} evaluations" + (f" to run ({len(carried)} carried)" if carried else ""),
        file=sys.stderr,
    )
    running = start_judge(args.judge, args.base_url, args.workers, retry)
    evaluations: list[dict] = list(carried)
    judge = _judge_entry(args, running)

    def document(complete: bool) -> dict:
        conditions = _conditions(cache, args, started_at, time.monotonic() - started, plan)
        return build(
            source=source, judge=judge, metrics=metrics, versions=versions, plan=plan,
            samples=samples, evaluations=evaluations, conditions=conditions, complete=complete,
        )  # fmt: skip

    def done(task, record) -> None:
        evaluations.append(record)
        print(
            f"[{len(evaluations)}/{len(tasks) + len(carried)}] {describe(record)}", file=sys.stderr
        )
        write_in_progress(out, document(False))

    def end_session() -> None:
        seconds = time.monotonic() - started
        _end_session(out, cache, plan, started_at, seconds, len(samples), running.settings)

    try:
        with RecordingProxy(running.judge, cache, running.upstream) as proxy:
            run_tasks(tasks, proxy, workers=args.workers, timeout=client_timeout, on_done=done)
    except KeyboardInterrupt:
        end_session()
        _leave_on_interrupt(len(evaluations) - len(carried), out)
    except BaseException:
        end_session()
        running.stop()
        raise
    end_session()  # before the stop: the session counts even if the stop never returns
    running.stop()
    return _finish(out, document, evaluations, cache)


def _judge_entry(args, running) -> dict:
    """The scorecard's `judge`: what was asked, the model that answered, its settings."""
    return {
        "spec": args.judge,
        "model": running.judge.model,
        "base_url": args.base_url,
        "digest": running.judge.digest,
        "digest_reason": running.judge.digest_reason,
        "settings": running.settings,
    }


def _leave_on_interrupt(finished: int, out: Path) -> NoReturn:
    """End the process at once on Ctrl-C, the session already in the ledger.

    Freeing a llama.cpp server with a call in flight never returns (its destructor waits for
    the call, whose reply the stopped server never sends: measured, a run hung idle for
    minutes after Ctrl-C), and the library's thread would hold the exit for that call. Every
    finished evaluation is already in the partial file and every finished call in the cache,
    so nothing is lost by leaving the server to the operating system."""
    partial = out.with_name(out.stem + ".partial" + out.suffix)
    print(
        f"ragaudit judges: interrupted; {finished} evaluation(s) finished this session are in "
        f"{partial} and their calls in the call cache (rerun to resume)",
        file=sys.stderr,
    )
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(130)


def _conditions(cache: CallCache, args, started_at: str, seconds: float, plan: dict) -> dict:
    sessions = read_sessions(args.out or default_path())
    return {
        "calls": cache.stats(),
        "failures": cache.failures(),
        "workers": args.workers,
        "timeout_seconds": args.timeout,
        "started_at": started_at,
        "elapsed_seconds": round(seconds, 1),
        "sessions": [s for s in sessions if s.get("plan_id") == plan_id(plan)],
        "computing_seconds": computing_seconds(sessions, plan_id(plan))
        + (round(seconds, 1) if _counts_apart(sessions, started_at, cache) else 0.0),
    }


def _counts_apart(sessions: list[dict], started_at: str, cache: CallCache) -> bool:
    """Whether this session's time is added to the ledger's: once it has computed a call,
    until it is in the ledger (the final scorecard is built after the session is written,
    and counting it twice overstated a computing session's time)."""
    written = any(entry.get("started_at") == started_at for entry in sessions)
    return bool(cache.stats()["computed"]) and not written


def _end_session(out: Path, cache: CallCache, plan, started_at, seconds, records, settings) -> None:
    stats = cache.stats()
    entry = {"plan_id": plan_id(plan), "started_at": started_at, "seconds": round(seconds, 1),
             "records": records, "judge_settings": settings, **stats}  # fmt: skip
    record_session(out, [*read_sessions(out), entry])


def _finish(out: Path, document, evaluations: list[dict], cache: CallCache) -> int:
    from ragaudit.report.judges import scorecard_table

    final = document(True)
    failed = [e for e in evaluations if e["outcome"] == "judge_failed"]
    print(scorecard_table(final))
    published = publish(out, final)  # a run with failed calls: its own file, the good one kept
    if failed:
        reasons = sorted({e["reason"] for e in failed})
        print(
            f"{len(failed)} of {len(evaluations)} evaluations failed at the judge "
            f"({cache.stats()['failed']} calls): {reasons[0]}"
            + (f" (and {len(reasons) - 1} other reasons)" if len(reasons) > 1 else "")
            + "; rerun to resume (finished calls replay)",
            file=sys.stderr,
        )
    for line in published.lines():
        print(line, file=sys.stderr)
    print(f"wrote {published.written}", file=sys.stderr)
    return 1 if failed else 0
