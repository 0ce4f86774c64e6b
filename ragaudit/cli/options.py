"""Parsed flags handed on as keyword arguments of the same names (not a command itself).

A command's flags and the library's options share their names (`--max-records` is
`max_records`), so a command names the flags it hands on once, as one string, rather than
writing out `x=args.x` for each."""

from __future__ import annotations

import argparse
from typing import Any


def same_named(args: argparse.Namespace, names: str) -> dict[str, Any]:
    """The parsed values of the flags `names` (space-separated destinations, as in
    ``"seed out workers"``), keyed by those names, to pass on as keyword arguments."""
    return {name: getattr(args, name) for name in names.split()}
