"""Benchmarks: scripts that print a figure and its ratio to a baseline measured in the same
run. `python -m ragaudit.bench NAME` or `ragaudit bench NAME`; each NAME is a module here
exposing `main(argv) -> int`."""

from __future__ import annotations

import argparse
import importlib

BENCHES = {
    "backends": "ragaudit.bench.backends",
    "matrix": "ragaudit.bench.matrix",
    "generation": "ragaudit.bench.generation",
    "prefix": "ragaudit.bench.prefix",
    "concurrency": "ragaudit.bench.concurrency",
    "ui": "ragaudit.bench.ui",
    "ray": "ragaudit.bench.ray_fanout",
    "ray-scaling": "ragaudit.bench.ray_scaling",
    "gate": "ragaudit.bench.gate",
    "judges": "ragaudit.bench.judges",
    "mutate": "ragaudit.bench.mutate",
    "pipeline": "ragaudit.bench.pipeline",
    "pipeline_n25": "ragaudit.bench.pipeline_n25",
    "install_size": "ragaudit.bench.install_size",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=sorted(BENCHES))
    parser.add_argument("rest", nargs=argparse.REMAINDER)


def run(args: argparse.Namespace) -> int:
    return importlib.import_module(BENCHES[args.name]).main(args.rest)
