"""The report of a mutation audit's file (issue 38, item 5): one count per operator, the
score killed / applicable with its interval, none of the matrix's "N% failed" lines or
per-probe tables, no "None" where the matrix header reads the instances per probe, and
the control row under both measures: the answer span in the context (mutate's) and an
expected source in the top k (the audit's). The file is written by `ragaudit mutate
--no-generate` through a word-overlap retriever (no model; test_mutate_discriminates)."""

from __future__ import annotations

import json
import re

from test_mutate_discriminates import mutate, workspace  # noqa: F401 (a fixture)

from ragaudit.cli.main import main
from ragaudit.report.mutation import mutation_lines

# "63% 5/8 [31–86%] failed": a matrix cell's failure rate, as the what-failed list writes it
FAILED_RATE = re.compile(r"\d+% \d+/\d+( \[[^\]]*\])? failed")


def test_the_report_of_a_mutate_file_counts_mutants_once_per_operator(workspace, capsys):  # noqa: F811
    # LangChain 400/0 and the plain overlap retriever: the new revision never gets through,
    # 0 of 2 supersede mutants killed (test_mutate_discriminates); a boundary phrasing whose
    # sentence is cut has its gold out of the context, a failed matrix cell that the
    # matrix's what-failed list would print as "N% n/m failed" beside the killed count
    results = mutate(workspace, "plain", "supersede", 400, 0)  # writes plain.json
    stack, out = workspace / "plain.yaml", workspace / "both.json"
    assert main(["mutate", str(workspace / "corpus"), str(workspace / "cases.yaml"),
                 "--stack", str(stack), "--operators", "supersede", "boundary",
                 "--no-generate", "--out", str(out)]) == 1  # fmt: skip
    assert len(results["survivors"]) == 2
    cells = json.loads(out.read_text(encoding="utf-8"))["cells"]
    assert any(c["probe"] == "boundary" and c["failures"]
               and c["severity"]["class"] != "none" for c in cells)  # fmt: skip
    capsys.readouterr()
    folder = workspace / "report"
    assert main(["report", "--results", str(out), "--out", str(folder)]) == 0
    printed = capsys.readouterr().out
    markdown = (folder / "report.md").read_text(encoding="utf-8")
    html = (folder / "report.html").read_text(encoding="utf-8")
    # Wilson 95% for 0/2: upper bound 1.96² / (2 + 1.96²) = 0.658
    for text in (printed, markdown):
        assert "| supersede | 0% 0/2 [0–66%] | 0 | 0 |" in text
        assert "Control row: 100% 2/2 unmutated phrasings pass (answer span in context)" in text
        assert text.count("| boundary |") == 1  # one count for the operator
        assert not FAILED_RATE.search(text) and "| Probe | Layer |" not in text
        assert "None" not in text
    assert "<td>supersede</td><td>0% 0/2 [0–66%]</td>" in html and "None" not in html
    # the header says what was mutated: 2 intents asked once each, one mutant per operator
    assert "2 phrasings of 2 intents, 4 mutants of supersede, boundary (seed 0)." in markdown
    assert "instances per probe" not in markdown and "What failed" not in markdown


def _section(control: dict, basis: str = "retrieval") -> dict:
    """A mutation section with one operator and the given control row, as a results file
    holds it (docs/results-schema.md, "The mutation audit's file")."""
    return {
        "configs": [{"name": "mine"}],
        "mutation": {
            "basis": basis, "unmeasured": None, "operators": ["dilute"], "control": control,
            "excluded_cases": [], "survivors": [], "mutants": [], "top_score_drop": None,
            "scores": [{"operator": "dilute", "killed": 3, "applicable": 4, "score": 0.75,
                        "score_reason": None, "wilson": [0.3006, 0.9544], "not_applicable": 0,
                        "not_measured": 0}],
        },
    }  # fmt: skip


def test_the_control_row_prints_the_span_and_the_source_measures_side_by_side():
    control = {"cases": 24, "passed": 18, "source_in_top_k": 24, "span_in_context": 18}
    lines = mutation_lines(_section(control))
    # 18/24 = 0.75
    assert lines[2] == (
        "Control row: 75% 18/24 unmutated phrasings pass (answer span in context). 18 of 24 "
        "have the answer span in the context (mutate's measure); 24 of 24 have an expected "
        "source in the top k (audit's measure: a source can rank without the chunk holding "
        "the answer)."
    )
    # with generation a phrasing passes on its answer: 17/28 = 0.607 reads 61%
    control = {"cases": 28, "passed": 17, "source_in_top_k": 28, "span_in_context": 25}
    assert mutation_lines(_section(control, "answer"))[2].startswith(
        "Control row: 61% 17/28 unmutated phrasings pass (answered correctly). 25 of 28 have "
        "the answer span in the context (mutate's measure); 28 of 28 have an expected source"
    )
    # the score row beside it: 3/4 with the recorded interval [30–95%]
    assert "| dilute | 75% 3/4 [30–95%] | 0 | 0 | 0 | 0 |" in lines


def test_a_file_without_the_two_control_measures_prints_the_pass_count_alone():
    lines = mutation_lines(_section({"cases": 2, "passed": 1}))
    assert lines[2] == "Control row: 50% 1/2 unmutated phrasings pass (answer span in context)."


def test_robust_credits_the_closed_book_row_builds_and_windows_are_printed_apart():
    control = {"cases": 6, "passed": 3, "failed_unmutated": 1, "failed_call": 1,
               "known_without_context": 1, "source_in_top_k": 6, "span_in_context": 4}  # fmt: skip
    results = _section(control)
    section = results["mutation"]
    section["scores"].append(
        {"operator": "boundary", "killed": 0, "applicable": 0, "score": None,
         "score_reason": "no mutant of this operator applies", "wilson": None, "robust": 5,
         "not_applicable": 3, "not_applicable_reasons": {"two forms": 1, "one word": 2},
         "not_measured": 0, "excluded": 0, "closed_book": 0}
    )  # fmt: skip
    section["closed_book"] = {"summary": "known 1 of 6 phrasings; 0 of 3 intents wholly",
                              "wholly_known": []}  # fmt: skip
    results["run"] = {
        "builds": {"kind": "overlay", "mutants": [{"texts_embedded": 4}, {"texts_embedded": 3}]},
        "indexes": [{"chunks": 40, "over_window": 10, "embedder": "local:minilm",
                     "window_tokens": 256}],
    }  # fmt: skip
    text = "\n".join(mutation_lines(results))
    assert ("Left out of their mutants' denominators: 1 failed unmutated, 1 lost a call (not "
            "measured), 1 known without context (closed book).") in text  # fmt: skip
    # robust credits in their own column, never inside the score's interval
    assert ("| boundary | — (every mutant it could make is robust: shown, not tried) | 5 | 0 | "
            "0 | 3 (two forms: 1; one word: 2) |") in text  # fmt: skip
    assert "known 1 of 6 phrasings; 0 of 3 intents wholly" in text
    assert "Builds: 1 base index; 2 mutants ranked over it plus their own change (7 texts" in text
    # 10/40 = 25%
    assert "Input windows: 25% 10/40 chunks run past local:minilm's 256-token window" in text
