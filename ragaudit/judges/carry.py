"""Carrying an earlier session's evaluations into a run of the same plan.

A judge run on this CPU spans sessions, and the call cache that lets a rerun replay lives
in the data folder, which a new machine or checkout does not have. The scorecard itself
holds every finished evaluation (its score, outcome, replies and token counts), so a run
given `--carry SCORECARD` keeps those evaluations and asks the judge only for the rest.
Only a scorecard of the same plan (judge, metrics, sampling, seed, stability and results
file) is carried; a failed evaluation is asked again. The earlier sessions' wall time goes
into the ledger, so the scorecard's computing time stays the sum over every session.
"""

from __future__ import annotations

from pathlib import Path

from ragaudit.errors import RagauditError
from ragaudit.judges.scorecard import load_scorecard, plan_id, read_sessions, record_session


def carried_evaluations(path: Path, plan: dict, task_ids: set[tuple]) -> list[dict]:
    """The evaluations of the scorecard at `path` that this plan would run, failures left out
    (one line, exit 2, when the scorecard is of another plan)."""
    document = load_scorecard(path)
    theirs = (document.get("sampling") or {}).get("plan_id")
    if theirs != plan_id(plan):
        raise RagauditError(
            f"--carry {path}: a scorecard of another plan ({theirs}, this run's is "
            f"{plan_id(plan)}): the judge, metrics, --per-group, --seed, --stability and the "
            "results file must be the same"
        )
    return [
        evaluation
        for evaluation in document.get("evaluations", [])
        if evaluation.get("outcome") != "judge_failed"
        and (evaluation.get("key"), evaluation.get("metric"), evaluation.get("repetition"))
        in task_ids
    ]


def carry_sessions(path: Path, out: Path, plan: dict) -> None:
    """Add the carried scorecard's computing sessions of this plan to `out`'s ledger (each
    once, by its start time)."""
    document = load_scorecard(path)
    ledger = read_sessions(out)
    seen = {entry.get("started_at") for entry in ledger}
    theirs = (document.get("conditions") or {}).get("sessions") or []
    new = [
        entry
        for entry in theirs
        if isinstance(entry, dict)
        and entry.get("plan_id") == plan_id(plan)
        and entry.get("started_at") not in seen
    ]
    if new:
        record_session(out, [*new, *ledger])
