"""`ragaudit export --judges FILE`: each metric's score, outcome and flag beside the records
it judged, null beside the others; a file that is not a scorecard is one line, exit 2."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd

from ragaudit.cli.main import main
from ragaudit.fileio import write_json_atomic

REFERENCE = Path(__file__).resolve().parent.parent / "ragaudit/assets/reference/reference.json.gz"


def _scorecard(path: Path, keys: list[str]) -> None:
    evaluations = [
        {"key": keys[0], "metric": "ragas:faithfulness", "repetition": 1, "outcome": "scored",
         "score": 0.25, "flagged": True},
        {"key": keys[0], "metric": "ragas:faithfulness", "repetition": 2, "outcome": "scored",
         "score": 0.75, "flagged": False},
        {"key": keys[1], "metric": "ragas:faithfulness", "repetition": 1, "outcome": "nan",
         "score": None, "flagged": False},
    ]  # fmt: skip
    write_json_atomic(
        path,
        {
            "kind": "judges-scorecard",
            "schema_version": 1,
            "created_at": "2026-01-01T00:00:00+00:00",
            "judge": {},
            "metrics": [{"name": "ragas:faithfulness"}],
            "sampling": {},
            "samples": [],
            "evaluations": evaluations,
            "summary": {},
            "conditions": {},
        },  # fmt: skip
    )


def test_export_carries_each_metrics_first_run(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path))
    records = json.load(gzip.open(REFERENCE))["instances"]
    keys = [records[0]["key"], records[1]["key"]]
    _scorecard(tmp_path / "judges.json", keys)
    out = tmp_path / "records.csv"
    code = main(["export", "--results", str(REFERENCE), "--judges", str(tmp_path / "judges.json"),
                 "--out", str(out)])  # fmt: skip
    assert code == 0
    frame = pd.read_csv(out, keep_default_na=False, na_values=[""])  # "nan" is an outcome
    by_key = frame.set_index("key")
    assert by_key.loc[keys[0], "judge_ragas_faithfulness_score"] == 0.25  # run 1, not run 2
    assert bool(by_key.loc[keys[0], "judge_ragas_faithfulness_flagged"]) is True
    assert by_key.loc[keys[1], "judge_ragas_faithfulness_outcome"] == "nan"
    assert pd.isna(by_key.loc[keys[1], "judge_ragas_faithfulness_score"])
    assert frame["judge_ragas_faithfulness_score"].notna().sum() == 1
    assert len(frame) == len(records)


def test_a_file_that_is_not_a_scorecard_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path))
    (tmp_path / "other.json").write_text('{"kind": "audit"}')
    out = tmp_path / "records.csv"
    code = main(["export", "--results", str(REFERENCE), "--judges", str(tmp_path / "other.json"),
                 "--out", str(out)])  # fmt: skip
    assert code == 2
    assert "not a judges scorecard file" in capsys.readouterr().err
    assert not out.exists()
