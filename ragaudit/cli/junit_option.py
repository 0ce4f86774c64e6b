"""`--junit FILE`: the option of the commands whose results become JUnit test cases
(`ragaudit audit`, `ragaudit mutate`), and the audit's file written when it was given."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragaudit.report.audit_junit import write_audit_junit


def add_junit_argument(parser: argparse.ArgumentParser) -> None:
    """`--junit FILE` on a command whose results become JUnit test cases."""
    parser.add_argument(
        "--junit", type=Path, default=None, help="also write the results as JUnit XML here (CI)"
    )


def write_audit_junit_when_asked(path: Path | None, results: dict) -> None:
    """Write the audit's JUnit file and say where when `--junit` was given; nothing
    otherwise."""
    if path is not None:
        write_audit_junit(path, results)
        print(f"junit: {path}")
