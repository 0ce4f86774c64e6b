"""The judges run as a library (judges.run), before any judge is asked: its options are
checked in one line, and its plan and sample are fixed from the results file without
writing anything. The run itself, the scorecard and the printing are test_judges_cli's."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from ragaudit.errors import RagauditError
from ragaudit.judges.run import JudgeOptions, check_options, plan_judging

REFERENCE = Path(__file__).resolve().parent.parent / "ragaudit/assets/reference/reference.json.gz"
JUDGE = {"judge": "openai:scripted-judge", "base_url": "http://127.0.0.1:9/v1"}


def test_a_limit_out_of_range_is_refused_in_one_line():
    options = JudgeOptions(results=REFERENCE, stability=-1, **JUDGE)
    with pytest.raises(RagauditError) as refused:
        check_options(options)
    assert str(refused.value) == "--stability -1: give 0 or more"


def test_metrics_named_twice_run_once_with_their_pinned_libraries():
    metrics = ("deepeval:faithfulness", "ragas:faithfulness", "deepeval:faithfulness")
    checked = check_options(JudgeOptions(results=REFERENCE, metrics=metrics, **JUDGE))
    assert checked.names == ["deepeval:faithfulness", "ragas:faithfulness"]
    assert [m.name for m in checked.metrics] == checked.names
    assert checked.versions == {"deepeval": "4.3.1", "ragas": "0.4.3"}  # the pins


def test_the_plan_names_the_results_file_and_the_sample_is_one_per_group(tmp_path):
    out = tmp_path / "judges.json"
    options = JudgeOptions(
        results=REFERENCE, metrics=("ragas:faithfulness",), per_group=1, max_records=5,
        out=out, **JUDGE,
    )  # fmt: skip
    judging = plan_judging(options, check_options(options))
    records = json.load(gzip.open(REFERENCE))["instances"]
    judged = [
        r for r in records if (r.get("generation") or {}).get("status") == "ok" and r.get("grade")
    ]
    sha = hashlib.sha256(REFERENCE.read_bytes()).hexdigest()
    assert judging.plan == {
        "judge": "openai:scripted-judge", "base_url": "http://127.0.0.1:9/v1",
        "metrics": ["ragas:faithfulness"], "per_group": 1, "seed": 0, "stability": 0,
        "max_records": 5, "results_sha256": sha,
    }  # fmt: skip
    assert judging.source["results"] == str(REFERENCE)
    assert judging.source["sha256"] == sha
    assert judging.source["records_available"] == len(judged)
    assert len(judging.samples) == 5  # the slice of one record per (probe, verdict)
    assert len({(s.probe, s.verdict) for s in judging.samples}) == 5
    assert list(tmp_path.iterdir()) == []  # nothing written before the judge is asked
