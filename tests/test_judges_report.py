"""The judges report section from a scorecard built by hand: the summary row, the findings
and the wrong answers a metric passed, each figure worked out from the records below."""

from __future__ import annotations

from ragaudit.cli.main import main
from ragaudit.fileio import write_json_atomic
from ragaudit.judges.metrics import METRICS
from ragaudit.judges.samples import Sample
from ragaudit.judges.scorecard import build
from ragaudit.report.judges import findings, render_judges_markdown, summary_rows


def _sample(key, probe, verdict, correct) -> Sample:
    return Sample(key, probe, "B", "q?", f"answer {key}", ("ctx",), "ref", verdict, correct,
                  f"branch-{key}", True)  # fmt: skip


def _evaluation(key, outcome, score, repetition=1) -> dict:
    return {
        "key": key, "metric": "ragas:faithfulness", "repetition": repetition,
        "outcome": outcome, "score": score, "flagged": score is not None and score < 0.5,
        "reason": None, "judge_replies": ["{}"], "calls": 2, "replayed": 0, "computed": 2,
        "failed": 0, "prompt_tokens": 2000, "completion_tokens": 100, "tokens_unreported": 0,
        "seconds": 30.0,
    }  # fmt: skip


def scorecard(replace: dict | None = None) -> dict:
    """superseded: 2 wrong, 1 flagged (0.0), 1 passed (1.0); negation: 1 wrong, flagged;
    control: 1 correct, a parse failure. superseded-1 run twice: 1.0 then 0.0 (changed)."""
    samples = [
        _sample("superseded-1", "superseded", "trap_taken", False),
        _sample("superseded-2", "superseded", "trap_taken", False),
        _sample("negation-1", "negation", "trap_taken", False),
        _sample("control-1", "control", "correct", True),
    ]
    evaluations = [
        _evaluation("superseded-1", "scored", 1.0),
        _evaluation("superseded-2", "scored", 0.0),
        _evaluation("negation-1", "scored", 0.0),
        _evaluation("control-1", "parse_failure", None),
        _evaluation("superseded-1", "scored", 0.0, repetition=2),
    ]
    evaluations = [(replace or {}).get((e["key"], e["repetition"]), e) for e in evaluations]
    return build(
        source={"results": "r", "sha256": "s", "created_at": "2026-01-01", "records_available": 9},
        judge={"spec": "local:qwen2.5-1.5b", "model": "qwen", "base_url": None,
               "digest": "c" * 64, "digest_reason": None, "settings": {"server": "llama.cpp"}},
        metrics=[METRICS["ragas:faithfulness"]], versions={"ragas": "0.4.3"},
        plan={"per_group": 3, "seed": 0, "stability": 1, "max_records": None},
        samples=samples, evaluations=evaluations,
        conditions={"calls": {"replayed": 0, "computed": 10, "failed": 0}, "workers": 1,
                    "computing_seconds": 3900.0},
        complete=True,
    )  # fmt: skip


def test_the_summary_row_reads_the_figures():
    (row,) = summary_rows(scorecard())
    assert row[3] == "67% 2/3"  # recall: superseded-2 and negation-1 flagged
    assert row[4] == "0% 0/1"  # the parse failure is not flagged
    assert row[6] == "1/4: 1 parse failure"
    assert row[7] == "0% 0/1 same outcome, mean score change 1.00"
    assert row[8] == "2.0 (source: 2)"
    assert row[9] == "2,000 in + 100 out"


def test_findings_name_the_probe_and_the_empty_verdicts():
    lines = findings(scorecard())
    assert lines[0].startswith("`ragas:faithfulness` passes wrong answers most often on")
    assert "**superseded**" in lines[0] and "50% 1/2" in lines[0]
    # over every evaluation the judge made, the stability rerun included: 1 of 5
    assert "20% 1/5" in lines[1] and "1 parse failure" in lines[1]
    assert "`ragas:faithfulness`, the same outcome on 0% 0/1" in lines[2]


def test_the_section_lists_the_passed_wrong_answer_and_the_wall_time(tmp_path, capsys):
    text = render_judges_markdown(scorecard())
    assert "| `ragas:faithfulness` | `superseded-1` | trap_taken (`branch-superseded-1`)" in text
    assert "1 h 05 min" in text
    path = tmp_path / "judges.json"
    write_json_atomic(path, scorecard())
    out = tmp_path / "judges.md"
    assert main(["judges", "--report-from", str(path), "--out-md", str(out)]) == 0
    assert out.read_text() == text + "\n"


def test_the_calls_are_summed_over_the_run_s_sessions_beside_this_one():
    card = scorecard()
    # no ledger: this session's calls only
    assert "Judge calls this session: 10 computed, 0 replayed, 0 failed;" in (
        render_judges_markdown(card)
    )
    # a scorecard built by carrying two computing sessions' evaluations computed nothing
    card["conditions"]["calls"] = {"replayed": 0, "computed": 0, "failed": 0}
    card["conditions"]["sessions"] = [
        {"started_at": "a", "seconds": 2995.6, "computed": 105, "replayed": 3, "failed": 0},
        {"started_at": "b", "seconds": 1067.9, "computed": 15, "replayed": 18, "failed": 1},
        {"started_at": "c", "seconds": 3.3, "computed": 0, "replayed": 0, "failed": 0},
    ]
    # by hand: 105 + 15 + 0 computed, 0 + 1 + 0 failed
    assert (
        "Judge calls over the run's 3 recorded sessions: 120 computed, 1 failed "
        "(this session: 0 computed, 0 replayed, 0 failed);"
    ) in render_judges_markdown(card)


def test_a_wrong_answer_with_no_verdict_is_not_said_to_have_passed():
    # superseded-2's verdict becomes a parse failure: of superseded's 2 wrong answers, none
    # is flagged; superseded-1 passed (1.0), superseded-2 gave no verdict
    silent = _evaluation("superseded-2", "parse_failure", None)
    lines = findings(scorecard({("superseded-2", 1): silent}))
    assert lines[0] == (
        "`ragas:faithfulness` passes wrong answers most often on **superseded**: it flags "
        "0% 0/2 of them (1 passed as faithful, 1 with no verdict)."
    )


def test_ragaudit_report_adds_the_section_after_its_own(tmp_path, monkeypatch):
    from pathlib import Path

    reference = (
        Path(__file__).resolve().parent.parent / "ragaudit/assets/reference/reference.json.gz"
    )
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    path = tmp_path / "judges.json"
    write_json_atomic(path, scorecard())
    out = tmp_path / "out"
    assert (
        main(["report", "--results", str(reference), "--judges", str(path), "--out", str(out)]) == 0
    )
    markdown = (out / "report.md").read_text()
    assert markdown.index("# ragaudit report") < markdown.index("## LLM judges: how often")
    assert "`superseded-1`" in markdown
    assert "LLM judges: how often" in (out / "report.html").read_text()
