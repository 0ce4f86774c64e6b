"""The report on a run with a `pipeline:` column without an oracle entry: its attribution
row's ceiling column says "ceiling: not measured (no oracle entry)" (the cell's
`ceiling_reason`), not a count of 0; and the Conditions section says how many of its
contexts matched no document ("N of M contexts match no document (rewritten by the
pipeline)", `run.indexes[].unmatched_line`). The file is tests/helpers/stack_results.py's
with a pipeline column added by hand."""

from __future__ import annotations

from helpers.stack_results import stack_results

from ragaudit.report.document import render_markdown

PIPELINE = "pipeline:words"


def _measure(count: int, n: int = 5) -> dict:
    return {"count": count, "n": n, "rate": count / n, "wilson": [0.1, 0.9]}


def pipeline_results() -> dict:
    results = stack_results()
    results["run"]["indexes"].append({
        "embedder": PIPELINE, "chunking": "stack-words", "chunks": 9, "contexts": 15,
        "unmatched_contexts": 3,
        "unmatched_line": "3 of 15 contexts match no document (rewritten by the pipeline)",
    })  # fmt: skip
    boundary = next(c for c in results["cells"] if (c["probe"], c["config"]) == ("boundary", "B"))
    boundary["attribution"] = {
        "n": 5, "retrieval": _measure(3), "generation": _measure(0), "ceiling": _measure(1),
        "correct": _measure(1), "failed_call": _measure(0), "no_oracle": _measure(0),
    }  # fmt: skip
    results["cells"].append({
        "probe": "boundary", "layer": "architectural", "config": "words", "embedder": PIPELINE,
        "n": 5, "generated": True,
        "measures": {"gold_in_context": _measure(4), "correct": _measure(2)},
        "severity": {"class": "medium", "branch": "x"},
        "detectability": {"measurable": False, "min_class_size": 3, "score": "top1_cosine"},
        "attribution": {
            "n": 5, "retrieval": _measure(1), "generation": _measure(2), "ceiling": _measure(0),
            "correct": _measure(2), "failed_call": _measure(0), "no_oracle": _measure(5),
            "ceiling_reason": "ceiling: not measured (no oracle entry)",
        },
    })  # fmt: skip
    return results


def _section(markdown: str, heading: str) -> str:
    return markdown.split(f"\n## {heading}")[1].split("\n## ")[0]


def test_the_attribution_table_says_the_pipelines_ceiling_was_not_measured():
    section = _section(render_markdown(pipeline_results()), "Failure attribution")
    rows = {
        tuple(c.strip() for c in line.strip("|").split("|"))[:3]: [
            c.strip() for c in line.strip("|").split("|")
        ][3:]
        for line in section.splitlines()
        if line.startswith("| boundary |")
    }
    # retrieval, generation, ceiling, correct, failed_call, no oracle
    assert rows[("boundary", "words", PIPELINE)] == [
        "20% 1/5", "40% 2/5", "ceiling: not measured (no oracle entry)", "40% 2/5", "0% 0/5",
        "100% 5/5",
    ]  # fmt: skip
    assert rows[("boundary", "B", "local:minilm")][2] == "20% 1/5"  # a measured ceiling


def test_the_conditions_say_how_many_contexts_matched_no_document():
    conditions = _section(render_markdown(pipeline_results()), "Conditions")
    assert (
        "pipeline:words: 3 of 15 contexts match no document (rewritten by the pipeline)."
        in conditions
    )
    assert "match no document" not in _section(render_markdown(stack_results()), "Conditions")
