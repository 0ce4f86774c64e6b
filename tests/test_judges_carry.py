"""`ragaudit judges --carry`: an earlier session's scorecard (here a frozen copy of the first
interim reference scorecard, tests/data/judges_6_records.json.gz: 6 records x 4 metrics,
each run twice: 48 evaluations, all scored, one computing session of 2,995.6 s) is carried
into a run of the same plan, and refused for another plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragaudit.errors import RagauditError
from ragaudit.judges.carry import carried_evaluations, carry_sessions
from ragaudit.judges.scorecard import computing_seconds, load_scorecard, read_sessions

# frozen: the shipped scorecard grows as the reference run goes on
SHIPPED = Path(__file__).resolve().parent / "data" / "judges_6_records.json.gz"
# The reference scorecard's plan, as written in docs/judges.md's command (max_records aside).
PLAN = {
    "judge": "local:qwen2.5-1.5b",
    "base_url": None,
    "metrics": [
        "ragas:faithfulness",
        "ragas:context_recall",
        "deepeval:faithfulness",
        "deepeval:contextual_recall",
    ],
    "per_group": 3,
    "seed": 0,
    "stability": 8,
    "max_records": 48,
    "results_sha256": "bbf558711887ba6b2038ee2d230f592c02c442e3efeea2f218ee87231d4c0a31",
}


def _ids(document: dict) -> set[tuple]:
    return {(e["key"], e["metric"], e["repetition"]) for e in document["evaluations"]}


def test_the_same_plan_carries_the_evaluations_this_run_would_make() -> None:
    ids = _ids(load_scorecard(SHIPPED))
    assert len(ids) == 48
    kept = carried_evaluations(SHIPPED, PLAN, ids)
    assert len(kept) == 48
    # only what this run would ask: drop the stability reruns from the wanted set
    first = {i for i in ids if i[2] == 1}
    assert len(carried_evaluations(SHIPPED, PLAN, first)) == 24


@pytest.mark.parametrize("field, value", [("seed", 1), ("per_group", 2), ("judge", "x")])
def test_another_plan_is_refused_naming_the_flag(field: str, value, tmp_path: Path) -> None:
    with pytest.raises(RagauditError, match=r"--carry .*another plan"):
        carried_evaluations(SHIPPED, {**PLAN, field: value}, set())


def test_a_failed_evaluation_is_asked_again(tmp_path: Path) -> None:
    import gzip

    document = json.loads(gzip.decompress(SHIPPED.read_bytes()))
    document["evaluations"][0]["outcome"] = "judge_failed"
    path = tmp_path / "judges.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert len(carried_evaluations(path, PLAN, _ids(document))) == 47


def test_the_carried_sessions_join_the_ledger_once(tmp_path: Path) -> None:
    out = tmp_path / "judges.json"
    carry_sessions(SHIPPED, out, PLAN)
    carry_sessions(SHIPPED, out, PLAN)
    sessions = read_sessions(out)
    assert len(sessions) == 1
    plan_id = load_scorecard(SHIPPED)["sampling"]["plan_id"]
    assert computing_seconds(sessions, plan_id) == 2995.6
