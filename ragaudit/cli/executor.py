"""The `--executor local|ray`, `--ray-address` and `--ray-workers` flags that `run` and
`audit` share (not a command itself)."""

from __future__ import annotations

import argparse
from contextlib import AbstractContextManager

from ragaudit.backends.executors import EXECUTORS, RAY_EXTRA, executor_scope


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the flags that choose where model calls are computed."""
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="local",
        help="where embeddings and generation are computed: in this process (local, the "
        "default) or on Ray workers that each load the model once (ray; needs "
        f"{RAY_EXTRA}); this process still writes the call cache and the results, so resume, "
        "replay and the counts are the same",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="join this Ray cluster (e.g. ray://head:10001 or auto); default: start a local "
        "one for the command",
    )
    parser.add_argument(
        "--ray-workers",
        type=int,
        default=None,
        metavar="N",
        help="Ray workers per model (default: one per CPU of the cluster)",
    )


def executor_from_args(args: argparse.Namespace) -> AbstractContextManager:
    """The executor the flags name, open for a `with` block (local: nothing opened)."""
    return executor_scope(
        getattr(args, "executor", "local"),
        getattr(args, "ray_address", None),
        getattr(args, "ray_workers", None),
    )
