"""`ragaudit report`: print the probe x config tables and write the Markdown / HTML report,
all rendered from one results file."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragaudit.errors import RagauditError
from ragaudit.paths import default_results_path
from ragaudit.report.document import render_html, render_markdown, render_tables
from ragaudit.results.io import load_results, write_text_atomic


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `ragaudit report`."""
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="results file (default: data/results/latest.json)",
    )
    parser.add_argument("--format", choices=("md", "html", "both"), default="both")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for report.md / report.html (default: beside the results)",
    )


def run(args: argparse.Namespace) -> int:
    """Render the report; print the tables and the paths written."""
    path = args.results or default_results_path()
    results = load_results(path)
    _require_analysis(results, path)
    out = args.out or Path(path).parent
    print(render_tables(results), end="")
    written = []
    if args.format in ("md", "both"):
        target = out / "report.md"
        write_text_atomic(target, render_markdown(results))
        written.append(target)
    if args.format in ("html", "both"):
        target = out / "report.html"
        write_text_atomic(target, render_html(results))
        written.append(target)
    for target in written:
        print(f"wrote {target}")
    return 0


def _require_analysis(results: dict, path: Path) -> None:
    if "severity_rules" not in results or not results.get("cells"):
        raise RagauditError(f"{path}: cannot render a report: it has no analysed cells")
