"""`ragaudit demo`: the main job on the embedded offline default.

Runs the quick planted-fault matrix (retrieval on both embedded embedders, generation on
the embedded generator) unless a complete results file is already there, then opens the
inspector over it. A rerun replays from the model cache, so it is fast after the first.
"""

from __future__ import annotations

import argparse

from ragaudit import paths


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--results", default=None, help="results file (default data/results/latest.json)"
    )
    parser.add_argument(
        "--rerun", action="store_true", help="run the matrix again even if results exist"
    )
    parser.add_argument(
        "--no-app", action="store_true", help="run the matrix only; do not open the inspector"
    )
    parser.add_argument("--port", type=int, default=8501)


def _complete(path) -> bool:
    from ragaudit.errors import RagauditError
    from ragaudit.results.io import load_results

    if not path.exists():
        return False
    try:
        return bool(load_results(path).get("complete"))
    except RagauditError as error:
        print(f"ragaudit demo: {error}; running the matrix again")
        return False


def run(args: argparse.Namespace) -> int:
    from ragaudit.cli import app as app_cli
    from ragaudit.cli import run as matrix_run

    results = paths.Path(args.results) if args.results else paths.default_results_path()
    if args.rerun or not _complete(results):
        run_parser = argparse.ArgumentParser(prog="ragaudit run")
        matrix_run.add_arguments(run_parser)
        status = matrix_run.run(run_parser.parse_args(["--quick", "--out", str(results)]))
        if status:
            return status
    else:
        print(f"ragaudit demo: using the complete results in {results} (--rerun to run again)")
    if args.no_app:
        return 0
    app_parser = argparse.ArgumentParser(prog="ragaudit app")
    app_cli.add_arguments(app_parser)
    return app_cli.run(app_parser.parse_args(["--results", str(results), "--port", str(args.port)]))
