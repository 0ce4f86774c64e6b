"""`ragaudit mutate --dry-run`: the builds and the calls of a prepared run
(mutation.estimate), printed as `run --dry-run` prints them (runner.estimate_lines);
nothing is embedded or written, exit 0."""

from __future__ import annotations

from ragaudit.mutation.estimate import mutate_estimates
from ragaudit.mutation.runner import Prepared
from ragaudit.runner.estimate import open_cache
from ragaudit.runner.estimate_lines import estimate_lines


def mutate_dry_run(ready: Prepared, generate: bool, generator: str) -> int:
    """Print the calls, the builds and the estimated time; exit 0."""
    estimate = mutate_estimates(ready, generate, generator, open_cache())
    print(estimate.builds)
    for line in estimate_lines(estimate.estimates):
        print(line)
    return 0
