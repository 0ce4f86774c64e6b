"""Judge columns beside the exported records: for each metric of a judges scorecard, the
score, outcome and flag of the record's first run (`judge_<library>_<metric>_score`, …),
null for a record the scorecard did not judge. `ragaudit export --judges FILE` adds them."""

from __future__ import annotations

from typing import Any

FIELDS = (("score", "Float64"), ("outcome", "string"), ("flagged", "boolean"))


def column_name(metric: str, field: str) -> str:
    """`deepeval:faithfulness`, `score` -> `judge_deepeval_faithfulness_score`."""
    return f"judge_{metric.replace(':', '_')}_{field}"


def add_judge_columns(frame: Any, scorecard: dict) -> Any:
    """`frame` (export.table.records_frame) with three columns per metric, matched by key."""
    import pandas as pd

    firsts = {(e["key"], e["metric"]): e for e in scorecard["evaluations"] if e["repetition"] == 1}
    keys = list(frame["key"])
    for metric in (m["name"] for m in scorecard["metrics"]):
        for field, dtype in FIELDS:
            values = [(firsts.get((key, metric)) or {}).get(field) for key in keys]
            frame[column_name(metric, field)] = pd.array(values, dtype=dtype)
    frame.attrs["ragaudit_judges_created_at"] = str(scorecard.get("created_at"))
    return frame
