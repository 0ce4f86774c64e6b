"""`ragaudit audit --dry-run`: the estimate (auditing.estimate: every input checked, then
the embedding calls the audit would make) printed as `run --dry-run` prints it; nothing
embedded, nothing written, exit 0. A fatal structural check is printed and exits 2, as the
audit does."""

from __future__ import annotations

import sys

from ragaudit.auditing.estimate import audit_estimates
from ragaudit.auditing.runner import AuditInputs
from ragaudit.runner.estimate_lines import estimate_lines


def audit_dry_run(inputs: AuditInputs) -> int:
    """Check `inputs`, print the calls; the exit status."""
    estimate = audit_estimates(inputs)
    if estimate.estimates is None:
        for line in estimate.structure.fatal_lines(estimate.cases_path):
            print(line, file=sys.stderr)
        return 2
    for line in estimate_lines(estimate.estimates):
        print(line)
    return 0
