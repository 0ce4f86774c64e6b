"""`ragaudit report`: print the probe x config tables and write the Markdown / HTML report,
all rendered from one results file."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ragaudit import paths
from ragaudit.cli.out_path import refuse_input_as_output
from ragaudit.cli.results_file import add_results_argument, results_file
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable, write_text_atomic
from ragaudit.report.document import render_html, render_markdown, render_terminal
from ragaudit.results.io import load_results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `ragaudit report`."""
    add_results_argument(parser)
    parser.add_argument("--format", choices=("md", "html", "both"), default="both")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for report.md / report.html (default: beside the results; for a "
        "shipped or read-only results file, the data folder's results/)",
    )
    parser.add_argument(
        "--out-md",
        type=Path,
        default=None,
        metavar="FILE.md",
        help="write only the Markdown report, to this file (e.g. docs/reference-run.md)",
    )
    parser.add_argument(
        "--judges", type=Path, default=None, metavar="SCORECARD",
        help="add the judges section of this scorecard (ragaudit judges) at the end",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Render the report; print the tables and the paths written. Everything is rendered
    before anything is printed or written, so a file the renderer cannot read leaves no
    half-written report."""
    path = results_file(args)
    out, why = (args.out, None) if args.out else _default_out(Path(path))
    stem = "report" if why is None else f"report-{_stem(Path(path))}"
    targets = [out / f"{stem}.{suffix}" for suffix in _SUFFIXES[args.format]]
    flag = "--out"
    if getattr(args, "out_md", None) is not None:  # one named Markdown file, nothing else
        targets, flag = [_markdown_target(args.out_md)], "--out-md"
    refuse_input_as_output([(flag, t) for t in targets], [("results file", Path(path))])
    results = load_results(path)
    _require_analysis(results, path)
    for target in targets:
        check_writable(target, "--out")
    tables, documents = _render(results, path, targets)
    if getattr(args, "judges", None) is not None:
        documents = _with_judges(args.judges, targets, results)
    print(tables, end="")
    if why and not getattr(args, "out_md", None):
        print(f"{path} {why}: the report goes to the data folder's results/")
    for target, text in zip(targets, documents, strict=True):
        try:
            write_text_atomic(target, text)
        except OSError as error:
            raise RagauditError(f"{target}: cannot write the report ({error.strerror})") from None
        print(f"wrote {target}")
    return 0


def _default_out(path: Path) -> tuple[Path, str | None]:
    """Beside the results file, unless that is inside the installed package (the shipped
    reference: site-packages on a wheel) or its folder is read-only; then the data folder's
    results/, with the reason."""
    folder = path.resolve().parent
    if folder.is_relative_to(paths.PACKAGE_DIR):
        return paths.results_dir(), "ships with ragaudit"
    if not os.access(folder, os.W_OK):
        return paths.results_dir(), "is in a read-only folder"
    return path.parent, None


def _stem(path: Path) -> str:
    # reference.json.gz -> reference: names the report after the file it renders, so it
    # never replaces the report of the data folder's own latest.json
    return path.name.split(".")[0]


_SUFFIXES = {"md": ("md",), "html": ("html",), "both": ("md", "html")}
_RENDERERS = {"md": render_markdown, "html": render_html}


def _render(results: dict, path: Path, targets: list[Path]) -> tuple[str, list[str]]:
    """The tables and each target's text. The loader checked the top-level fields; a value
    deeper in the file of a type the schema does not allow (a count that is a string, a
    cell that is a list) would surface here as a Python error: it becomes one line naming
    the file and what the renderer met."""
    try:
        tables = render_terminal(results)
        return tables, [_RENDERERS[t.suffix[1:]](results) for t in targets]
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError) as error:
        detail = " ".join(f"{type(error).__name__}: {error}".split())[:200]
        raise RagauditError(
            f"{path}: cannot render a report: a field is missing or holds a value the "
            f"results schema (docs/results-schema.md) does not allow ({detail})"
        ) from None


def _with_judges(scorecard_path: Path, targets: list[Path], results: dict) -> list[str]:
    """Each target's text with the scorecard's judges section after the report's own."""
    from ragaudit.judges.scorecard import load_scorecard
    from ragaudit.report.document import report_blocks
    from ragaudit.report.judges import judges_blocks
    from ragaudit.report.render import blocks_to_html, blocks_to_markdown

    blocks = report_blocks(results) + judges_blocks(load_scorecard(scorecard_path))
    return [
        blocks_to_markdown(blocks)
        if target.suffix == ".md"
        else blocks_to_html(blocks, title="ragaudit report")
        for target in targets
    ]


def _markdown_target(path: Path) -> Path:
    if path.suffix != ".md":
        raise RagauditError(f"--out-md {path}: name a Markdown file ending in .md")
    return path


def _require_analysis(results: dict, path: Path) -> None:
    if "severity_rules" not in results or not results.get("cells"):
        raise RagauditError(f"{path}: cannot render a report: it has no analysed cells")
