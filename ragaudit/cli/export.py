"""`ragaudit export`: every instance record of a results file as one flat table (one row
per record, the diagnostics and the verdict in columns; docs/export.md), CSV or Parquet."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragaudit.cli.out_path import refuse_input_as_output
from ragaudit.cli.results_file import add_results_argument, results_file
from ragaudit.errors import RagauditError
from ragaudit.export.table import FORMATS, export_bytes, records_frame
from ragaudit.fileio import check_writable, write_bytes_atomic
from ragaudit.results.io import load_results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `ragaudit export`."""
    add_results_argument(parser)
    parser.add_argument("--format", choices=FORMATS, default="csv")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="file to write (default: <results stem>.records.<format> beside the results)",
    )
    parser.add_argument(
        "--judges", type=Path, default=None, help="a judges scorecard: add each metric's columns"
    )


def default_out(results_path: Path, fmt: str) -> Path:
    """Where the export goes without --out: `latest.json` -> `latest.records.csv` beside it."""
    return results_path.with_name(f"{results_path.stem}.records.{fmt}")


def run(args: argparse.Namespace) -> int:
    """Write the export; print one line naming the rows and the file. The table is built
    before anything is written, so a file it cannot flatten leaves nothing half-written."""
    path = results_file(args)
    target = args.out or default_out(path, args.format)
    refuse_input_as_output([("--out", target)], [("results file", path)])
    results = load_results(path)
    check_writable(target, "--out")
    frame = records_frame(results)
    if getattr(args, "judges", None) is not None:
        from ragaudit.export.judges import add_judge_columns
        from ragaudit.judges.scorecard import load_scorecard

        frame = add_judge_columns(frame, load_scorecard(args.judges))
    data = export_bytes(frame, args.format)
    try:
        write_bytes_atomic(target, data)
    except OSError as error:
        raise RagauditError(f"{target}: cannot write the export ({error.strerror})") from None
    total = len(results.get("instances") or [])
    # a mutate file's mutants without records (not applicable, robust) follow the records
    unrecorded = len(frame) - total
    mutants = f", then {unrecorded} mutants without records" if unrecorded else ""
    partial = "" if results.get("complete") else " (a partial file: the run has not finished)"
    print(f"wrote {target}: {total} of {total} instance records, one a row{mutants}{partial}")
    return 0
