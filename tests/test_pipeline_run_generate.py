"""`ragaudit run` end to end with generation on a tiny slice: n=1 per probe, the primary
embedder, one generated config and probe on the embedded 0.5B generator."""

from __future__ import annotations

import argparse

import pytest

from ragaudit.cli import run as matrix_run
from ragaudit.results.io import load_results


@pytest.mark.slow
def test_run_generates_only_where_asked_then_grades_and_analyses(ragaudit_home):
    out = ragaudit_home / "results" / "latest.json"
    parser = argparse.ArgumentParser()
    matrix_run.add_arguments(parser)
    args = parser.parse_args(
        [
            "--n",
            "1",
            "--embedders",
            "local:minilm",
            "--generator",
            "local:qwen2.5-0.5b",
            "--gen-configs",
            "A",
            "--gen-probes",
            "control",
            "--out",
            str(out),
        ]
    )
    assert matrix_run.run(args) == 0
    results = load_results(out, allow_partial=False)
    assert results["run"]["preset"] == "custom" and results["corpus"]["n"] == 1
    generated = [r for r in results["instances"] if r["generation"]]
    assert [(r["probe"], r["config"]) for r in generated] == [("control", "A")]
    record = generated[0]
    assert record["generation"]["status"] == "ok" and isinstance(record["generation"]["reply"], str)
    assert record["grade"]["verdict"] and record["grade"]["branch"]
    assert record["citation_check"]["outcome"]
    others = [r for r in results["instances"] if not r["generation"]]
    assert all(r["grade"] is None for r in others)
    assert {m["kind"] for m in results["models"]} == {"embedder", "generator"}
    assert results["generator"] == {"spec": "local:qwen2.5-0.5b"}
    assert results["cells"] and results["severity_rules"]
    calls = results["conditions"]["calls_by_model"]
    # two prompts: the record's own and its oracle prompt (only the chunk holding the gold)
    assert calls["local:qwen2.5-0.5b"]["computed"] + calls["local:qwen2.5-0.5b"]["replayed"] == 2
    assert record["oracle"]["generation"]["status"] == "ok" and record["oracle"]["grade"]
    assert record["attribution"] in {"correct", "retrieval", "generation", "ceiling"}
