"""`ragaudit demo`: the main job on the embedded offline default.

Runs the quick planted-fault matrix (retrieval on both embedded embedders, generation on
the embedded generator) unless a complete results file is already there, then opens the
inspector over it. A rerun replays from the model cache, so it is fast after the first.
When ragaudit ships a recorded reference run (results.reference) and no complete local run
exists, the inspector opens on the reference at once, and the quick run starts in the
background (the Runs page follows it).
"""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

from ragaudit import paths
from ragaudit.backends.qwen import WEIGHTS, QwenWeights, missing_extra, weights_for
from ragaudit.cli.app import check_port, launch
from ragaudit.cli.run import command_line, run_plan
from ragaudit.cli.workers import add_workers_argument
from ragaudit.errors import RagauditError
from ragaudit.results.io import load_results
from ragaudit.results.reference import shipped_reference
from ragaudit.runner.plan import build_plan
from ragaudit.stack import presets
from ragaudit.ui.runs import end_started_run, reap_when_done, start_run
from ragaudit.ui.server_child import FORWARDED


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `ragaudit demo` options."""
    parser.add_argument(
        "--results",
        default=None,
        help="results file (default: results/latest.json in the data folder)",
    )
    parser.add_argument(
        "--rerun", action="store_true", help="run the matrix again even if results exist"
    )
    parser.add_argument(
        "--no-app", action="store_true", help="run the matrix only; do not open the inspector"
    )
    parser.add_argument(
        "--port", type=int, default=8501, help="inspector port on 127.0.0.1 (default 8501)"
    )
    add_workers_argument(parser)


def _complete(path: Path) -> bool:
    if not path.exists():
        return False
    try:
        return bool(load_results(path).get("complete"))
    except RagauditError as error:
        print(f"ragaudit demo: {error}; running the matrix again")
        return False


def _reference_instead(args: argparse.Namespace, results: Path) -> tuple[Path, int | None] | None:
    """The shipped reference run, to open at once when no complete local run exists and
    the command asked for neither a run (--rerun, --no-app) nor a file of its own. The
    main job still runs: the quick matrix starts in the background, writing `results`
    (the Runs page follows it). Returns the reference and the background run's pid."""
    reference = shipped_reference()
    if reference is None or args.rerun or args.no_app or args.results:
        return None
    outcome, pid = _start_quick_run(args, results)
    print(
        f"ragaudit demo: no complete local run yet; opening the recorded reference run "
        f"({reference}) at once; {outcome}."
    )
    return reference, pid


def _start_quick_run(
    args: argparse.Namespace, results: Path, weights: dict[str, QwenWeights] = WEIGHTS
) -> tuple[str, int | None]:
    """Start the quick run in the background; returns what became of it, for one line,
    and its pid (None when not started). `weights`: where the generator's packages are
    looked up (a test names absent ones)."""
    generator = presets.QUICK.generator
    # a core install lacks the generator: say so here, not in a background log
    if missing := missing_extra(generator, weights_for(generator, weights)):
        return f"the quick run was not started: {missing}", None
    try:
        pid = start_run(["--quick", "--workers", str(args.workers)], results)
    except RuntimeError as refused:  # one run at a time: say so, still open the reference
        return f"the quick run was not started: {refused}", None
    reap_when_done(pid)  # no zombie once it finishes while the inspector is up
    started = f"the quick run is computing in the background (pid {pid}; the Runs page "
    return started + f"shows its progress) and writes {results}", pid


def _serve_beside(reference: Path, port: int, pid: int | None) -> int:
    """Serve the inspector until interrupted; then end the background run too (its work
    so far is in the call cache: the next `ragaudit demo` resumes it), so no process
    outlives the demo's Ctrl-C, SIGTERM or SIGHUP."""
    try:
        return launch(reference, port)
    finally:
        if pid is not None:
            # a second Ctrl-C (or SIGTERM, SIGHUP): still clean up; then the caller's
            # handlers again (a caller in the same process, e.g. a test, would otherwise
            # start children that ignore them)
            previous = {s: signal.signal(s, signal.SIG_IGN) for s in FORWARDED}
            try:
                if end_started_run(pid):
                    print(
                        f"ragaudit demo: stopped the background quick run (pid {pid}); the "
                        "next `ragaudit demo` resumes it from the call cache"
                    )
            finally:
                for signum, handler in previous.items():
                    signal.signal(signum, handler)


def run(args: argparse.Namespace) -> int:
    """Run the quick matrix unless its results are complete, then serve the inspector."""
    results = Path(args.results) if args.results else paths.default_results_path()
    if not args.no_app:
        check_port(args.port)
    if args.rerun or not _complete(results):
        if (opened := _reference_instead(args, results)) is not None:
            return _serve_beside(*opened[:1], args.port, opened[1])
        plan = build_plan(presets.QUICK, out=results, workers=args.workers, argv=command_line())
        status = run_plan(plan)
        if status:
            return status
    else:
        print(f"ragaudit demo: using the complete results in {results} (--rerun to run again)")
    if args.no_app:
        return 0
    return launch(results, args.port)
