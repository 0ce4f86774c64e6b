"""`run --dry-run`'s names as cli.run imports them. The estimate is the library's: each
stage answers for its own calls (runner.estimate.run_estimates asks Stage.estimate), and
the printed lines are runner.estimate_lines'; cli.run prints them."""

from __future__ import annotations

from ragaudit.runner.estimate import run_estimates
from ragaudit.runner.estimate_lines import estimate_lines

__all__ = ["estimate_lines", "run_estimates"]
