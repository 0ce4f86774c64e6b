"""The `--workers N` flag that `run`, `demo` and `audit` share (not a command itself)."""

from __future__ import annotations

import argparse

from ragaudit.backends.concurrency import DEFAULT_WORKERS, check_workers
from ragaudit.errors import RagauditError


def add_workers_argument(parser: argparse.ArgumentParser) -> None:
    """Add `--workers N`: requests in flight at once to a remote model server."""
    parser.add_argument(
        "--workers",
        type=_workers,
        default=DEFAULT_WORKERS,
        metavar="N",
        help="requests in flight at once to an Ollama or OpenAI-compatible server, for "
        f"embeddings and generation (default {DEFAULT_WORKERS}); local models run one at a "
        "time; results, the call cache and failure counts are those of --workers 1",
    )


def _workers(text: str) -> int:
    try:
        return check_workers(int(text))
    except (ValueError, RagauditError):
        raise argparse.ArgumentTypeError(f"{text!r}: need a whole number, at least 1") from None
