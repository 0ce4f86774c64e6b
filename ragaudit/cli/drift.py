"""`ragaudit drift prod.yaml eval.yaml`: compare two retrieval settings files constant by
constant. Exit status 0 when they agree, 1 when any constant differs (each listed with the
looser side named), 2 on a file that does not validate."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragaudit.audit.drift import compare, render


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The drift command's arguments."""
    parser.add_argument("production", type=Path, help="settings production runs with")
    parser.add_argument("evaluation", type=Path, help="settings the test or eval script uses")


def run(args: argparse.Namespace) -> int:
    """Print every differing constant; non-zero when there is any."""
    compared, differences = compare(args.production, args.evaluation)
    for line in render(args.production, args.evaluation, compared, differences):
        print(line)
    return 1 if differences else 0
