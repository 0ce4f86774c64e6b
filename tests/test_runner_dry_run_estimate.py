"""The dry run as a library: every stage answers for its own calls (Stage.estimate, no
dispatch on what a stage happens to have), run_estimates gives them in the stages' order,
and estimate_lines prints them; the expected lines are written out by hand."""

from __future__ import annotations

import pytest
from helpers.corpus_counts import question_records

from ragaudit.runner.estimate import CallEstimate, run_estimates
from ragaudit.runner.estimate_lines import estimate_lines
from ragaudit.runner.matrix import MatrixStage
from ragaudit.runner.pipeline_stage import PipelineStage
from ragaudit.runner.plan import build_plan
from ragaudit.runner.stack_stage import StackStage
from ragaudit.runner.stage import Stage
from ragaudit.stack import presets


@pytest.mark.parametrize("stage", [MatrixStage, StackStage, PipelineStage])
def test_every_stage_tells_its_own_calls(stage):
    assert stage.estimate is not Stage.estimate


class Told(Stage):
    """A stage whose estimate is given: what it was asked with is kept."""

    def __init__(self, name: str, estimates: list[CallEstimate]) -> None:
        self.name, self.order, self.estimates, self.asked = name, 1, estimates, []

    def estimate(self, corpus, cache):
        self.asked.append((len(corpus.instances), cache))
        return self.estimates


def test_run_estimates_asks_each_stage_over_the_plans_corpus_in_order(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))  # no cache there: None
    one = CallEstimate("one", 3, 1, 2.0, "r")
    two, three = CallEstimate("two", 5, None, None, "s"), CallEstimate("three", 0, 0, 0.0)
    first, second = Told("first", [one]), Told("second", [two, three])
    plan = build_plan(presets.QUICK, n=1, out=tmp_path / "latest.json")
    assert run_estimates(plan, [first, second]) == [one, two, three]
    # --n 1: one instance of each of the shipped corpus's probes (its questions.jsonl); no
    # cache file yet
    assert first.asked == second.asked == [(len(question_records(n=1)), None)]
    assert not (tmp_path / "home").exists()


def test_the_lines_say_each_models_calls_then_the_total():
    estimates = [
        CallEstimate("matrix: embed e", 10, 4, 130.0, "mean of 8 recorded", tokens_reason="n/a",
                     cached_reason="keyed by the digest recorded for e, sha256:d"),
        CallEstimate("matrix: generate g", 6, None, None, "no recorded calls of g yet", 1234,
                     "how", True, "cached: not known before retrieval"),
        CallEstimate("pipeline p: p", 2, 2, 7200.0, "mean of 2 recorded calls", None,
                     "not counted"),
    ]  # fmt: skip
    assert estimate_lines(estimates) == [
        "matrix: embed e: 10 calls, 4 cached, 6 to compute (keyed by the digest recorded for "
        "e, sha256:d); time ~2 min (mean of 8 recorded); prompt tokens n/a",
        "matrix: generate g: 6 calls, cached: not known before retrieval; time no recorded "
        "calls of g yet; ~1,234 prompt tokens (how)",
        "pipeline p: p: 2 calls, 2 cached, 0 to compute; time ~2.0 h (mean of 2 recorded "
        "calls); prompt tokens not counted",
        "dry run: 18 calls; estimated time ~2.0 h plus the calls of 1 model(s) with no "
        "recorded time; nothing was called or written",
    ]
