"""`ragaudit compare A.json B.json`: two runs' cells side by side (both rates, the paired
flips each way, exact McNemar), printed as Markdown and written as compare.md / .html. The
comparison itself is comparison.compare's; this module parses, prints and writes."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragaudit.cli.out_path import refuse_input_as_output
from ragaudit.comparison.compare import Comparison, compare_runs, read_runs
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable, write_text_atomic

_SUFFIXES = {"md": ("md",), "html": ("html",), "both": ("md", "html")}
_RENDERERS = {"md": Comparison.markdown, "html": Comparison.html}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `ragaudit compare`."""
    parser.add_argument("a", type=Path, metavar="A.json", help="the run before (A)")
    parser.add_argument("b", type=Path, metavar="B.json", help="the run after (B)")
    parser.add_argument("--format", choices=("md", "html", "both"), default="both")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for compare.md / compare.html (default: beside B)",
    )
    parser.add_argument(
        "--pair",
        action="append",
        default=[],
        metavar="A_CONFIG[@EMBEDDER]=B_CONFIG[@EMBEDDER]",
        help="compare these two columns (repeatable; default: every config and embedder "
        "both files hold, each with itself), e.g. --pair C=my_stack",
    )


def run(args: argparse.Namespace) -> int:
    """Compare the two files; print the Markdown and the paths written. Every input is
    checked and everything rendered before anything is written."""
    out = args.out or args.b.parent
    targets = [out / f"compare.{suffix}" for suffix in _SUFFIXES[args.format]]
    inputs = [("run A", args.a), ("run B", args.b)]
    refuse_input_as_output([("--out", t) for t in targets], inputs)
    runs = read_runs(args.a, args.b, args.pair)
    for target in targets:
        check_writable(target, "--out")
    comparison = compare_runs(runs)
    documents = [_RENDERERS[t.suffix[1:]](comparison) for t in targets]
    print(comparison.markdown(), end="")
    for target, text in zip(targets, documents, strict=True):
        try:
            write_text_atomic(target, text)
        except OSError as error:
            raise RagauditError(
                f"{target}: cannot write the comparison ({error.strerror})"
            ) from None
        print(f"wrote {target}")
    return 0
