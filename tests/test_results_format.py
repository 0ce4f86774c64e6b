"""One cell reads the same in `ragaudit report` and in the inspector: rates rounded half up,
against figures worked out by hand (5/8 = 62.5% reads 63%, never 62%)."""

from __future__ import annotations

import json

import pytest
from helpers.analysis_fixtures import analysed_results
from helpers.ui_fixtures import build_results, chart_specs, open_app, texts

from ragaudit.cli.main import main as cli_main
from ragaudit.results.format import (
    fmt_cell,
    fmt_generation_tokens,
    fmt_interval,
    fmt_measure,
    fmt_model_calls_brief,
    fmt_p,
    fmt_ratio,
)

# count, n, the recorded Wilson 95% interval, and how a person should read them, by hand:
# 5/8 = 62.5% -> 63%; 1/8 = 12.5% -> 13%; 2/3 = 66.7% -> 67%; 19/25 = 76%.
# Wilson bounds for 5/8 at z = 1.96: centre (0.625 + 0.2401) / 1.4802 = 0.5845, half-width
# 1.96 * sqrt(0.029297 + 0.015006) / 1.4802 = 0.2787 -> [0.3057, 0.8632] -> [31–86%].
HAND = {
    "A": (5, 8, [0.3057, 0.8632], "63% 5/8", "[31–86%]"),
    "B": (1, 8, [0.0224, 0.4709], "13% 1/8", "[2–47%]"),
    "C": (2, 3, [0.2077, 0.9385], "67% 2/3", "[21–94%]"),
    "M": (19, 25, [0.5657, 0.885], "76% 19/25", "[57–89%]"),
}


def _measure(count: int, n: int, wilson: list[float]) -> dict:
    return {"count": count, "n": n, "rate": count / n, "wilson": wilson}


def _plant(results: dict, probe: str, embedder: str) -> dict:
    """Give `probe`'s gold_in_context cells under configs A, B, C, M the HAND figures."""
    for cell in results["cells"]:
        if (cell["probe"], cell["embedder"]) == (probe, embedder) and cell["config"] in HAND:
            count, n, wilson, _, _ = HAND[cell["config"]]
            cell["measures"]["gold_in_context"] = _measure(count, n, wilson)
    return results


def test_the_formatter_rounds_halves_up():
    for count, n, wilson, text, interval in HAND.values():
        assert fmt_measure(_measure(count, n, wilson)) == text
        assert fmt_measure(_measure(count, n, wilson), interval=True) == f"{text} {interval}"
    assert fmt_ratio(19, 25) == "76% 19/25"
    assert fmt_interval([0.125, 0.625]) == "[13–63%]"  # both bounds at a half
    assert fmt_interval([0.245, 0.835]) == "[25–84%]"  # halves as written, not 24.4999…
    assert fmt_p(0.03125) == "0.0313"  # exact McNemar 2/64; `:.4f` gives 0.0312
    assert fmt_p(0.00001) == "< 0.0001"


def test_absent_values_have_one_wording():
    assert fmt_measure(None) == "n/a"
    assert fmt_ratio(0, 0) == "n/a 0/0"
    assert fmt_p(None) == "n/a"
    assert fmt_interval(None) == "n/a"
    assert fmt_cell(None, "gold_in_context") == "not run"
    ungenerated = {"generated": False, "measures": {"correct": None, "gold_in_context": None}}
    assert fmt_cell(ungenerated, "correct") == "not run"
    # retrieval ran; the probe has no gold span to find
    assert fmt_cell(ungenerated, "gold_in_context") == "n/a: no gold to retrieve"
    assert fmt_cell(ungenerated, "span_preserved") == "n/a: no gold to retrieve"
    assert fmt_cell({"generated": True, "measures": {"correct": None}}, "correct") == "n/a"


@pytest.fixture
def report_results():
    results = _plant(analysed_results(), "boundary", "local:minilm")
    (comparison,) = [c for c in results["comparisons"] if c["name"] == "A->B"]
    comparison.update(
        from_count=5, to_count=1, n=8, from_wilson=HAND["A"][2], to_wilson=HAND["B"][2]
    )
    # 4 losses, no gains: exact McNemar p = 2 * (1/2)^4 = 0.125
    comparison.update(gains=[], losses=[f"boundary-00{i}" for i in range(4)], mcnemar_p=0.125)
    return results


def test_report_prints_and_writes_the_hand_figures(report_results, tmp_path, capsys):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(report_results), encoding="utf-8")
    assert cli_main(["report", "--results", str(path), "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    row = "| boundary | architectural | 63% 5/8 | 13% 1/8 | 67% 2/3 | 76% 19/25 |"
    assert row in printed and row in markdown
    assert "| 63% 5/8 [31–86%] | 13% 1/8 [2–47%] | 0 | 4 | 0.1250 |" in markdown
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<td>63% 5/8</td><td>13% 1/8</td><td>67% 2/3</td><td>76% 19/25</td>" in html


@pytest.fixture
def inspector_file(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    results = _plant(build_results(n=5), "boundary", "local:minilm")
    results["analysis"] = {"wilson_confidence": 0.95}
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(results, allow_nan=False), encoding="utf-8")
    return path


def test_matrix_page_shows_the_hand_figures(inspector_file):
    at = open_app(inspector_file)
    assert not at.exception
    overlay = chart_specs(at)[0]["data"][1]
    shown = {
        (y, x): (text, hover)
        for x, y, text, hover in zip(
            overlay["x"], overlay["y"], overlay["text"], overlay["hovertext"], strict=True
        )
    }
    assert "hover for the 95% Wilson interval" in texts(at)
    for config, (_, _, _, text, interval) in HAND.items():
        label, hover = shown[("boundary", config)]
        assert label == text.replace(" ", "<br>")
        assert f"<br>{text}<br>Wilson interval {interval}" in hover
    (table,) = [frame.value for frame in at.dataframe]
    row = table[table["probe"] == "boundary"].iloc[0]
    assert [row[c] for c in HAND] == [
        "63% 5/8 [31–86%]",
        "13% 1/8 [2–47%]",
        "67% 2/3 [21–94%]",
        "76% 19/25 [57–89%]",
    ]


def test_instance_page_heads_the_cell_with_the_same_figure(inspector_file):
    at = open_app(inspector_file, page="pages/instance.py", probe="boundary", config="A")
    assert not at.exception
    assert "gold in context 63% 5/8" in texts(at)


def test_generation_tokens_read_as_counts_with_their_share_evaluated():
    counts = {"prompts": 4, "tokens": {"prompts_measured": 3, "prompt_tokens": 2000}}
    counts["tokens"] |= {"prompt_tokens_evaluated": 500, "generated_tokens": 1234}
    # 500/2000 = 25%; thousands separated; 3 of the 4 prompts measured
    assert fmt_generation_tokens(counts) == (
        "Generation: 4 distinct prompts; 2,000 prompt tokens, 500 of them evaluated "
        "(25% 500/2000; the rest reused from the previous prompt's prefix); 1,234 generated "
        "(measured for 3 of 4 prompts)."
    )
    counts["tokens"]["warm_up_tokens_evaluated"] = 3300
    assert "1,234 generated; 3,300 more evaluated to rebuild reuse segments where a run " in (
        fmt_generation_tokens(counts)
    )
    unmeasured = {"prompts": 4, "tokens": {"prompts_measured": 0}}
    assert fmt_generation_tokens(unmeasured) == "Generation tokens: not measured in this file."
    assert fmt_generation_tokens({"prompts": 4}) == "Generation tokens: not measured in this file."


def test_the_matrix_header_counts_a_resumed_runs_calls_over_its_sessions():
    one = {"calls": {"replayed": 120, "computed": 30, "failed": 1}}
    assert fmt_model_calls_brief(one) == "model calls: replayed 120, computed 30, failed 1"
    # resumed: the last session replayed what the earlier ones computed; 2,130 + 1,871 + 87
    sessions = [{"computed": 2130}, {"computed": 1871}, {"computed": 87}]
    resumed = {"calls": {"replayed": 4001, "computed": 87, "failed": 0}, "sessions": sessions}
    assert fmt_model_calls_brief(resumed) == "model calls: 4,088 computed over 3 sessions, failed 0"
