"""The `--results PATH` flag that `report` and `export` share (not a command itself): the
results file they read, by default the data folder's results/latest.json."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragaudit.paths import default_results_path


def add_results_argument(parser: argparse.ArgumentParser) -> None:
    """Add `--results PATH`: the results file the command reads."""
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="results file (default: data/results/latest.json)",
    )


def results_file(args: argparse.Namespace) -> Path:
    """The results file `--results` names, else the data folder's results/latest.json."""
    return Path(args.results or default_results_path())
