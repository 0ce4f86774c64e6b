"""The report's Detectability section names the score each cell swept: a hybrid cell's row
says top1_dense_cosine and the text says why (the fused rank score is not a similarity);
the BM25 sweep has its own table; an older file's single score is worded as what it was."""

from __future__ import annotations

from helpers.detectability_fixtures import (
    FAIL_BM25,
    FAIL_COSINES,
    PASS_BM25,
    PASS_COSINES,
    hybrid_results,
)

from ragaudit.analysis import analyse
from ragaudit.report.findings import detectability_section
from ragaudit.report.render import blocks_to_markdown


def _section(results: dict) -> str:
    return blocks_to_markdown(detectability_section(results))


def _row(markdown: str, table_after: str) -> list[str]:
    """The first superseded row of the table that follows the line holding `table_after`."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if table_after in line)
    row = next(line for line in lines[start:] if line.startswith("| superseded |"))
    return [cell.strip() for cell in row.strip("|").split("|")]


def test_a_hybrid_row_names_the_dense_cosine_and_its_cut():
    results = hybrid_results(FAIL_COSINES + PASS_COSINES, FAIL_BM25 + PASS_BM25)
    analyse(results)
    markdown = _section(results)
    row = _row(markdown, "## Detectability")
    # probe, config, embedder, score, classes, cut: 0.60 lies between 0.49 and 0.71
    assert row[:6] == ["superseded", "M", "local:minilm", "top1_dense_cosine", "5 / 5", "0.600"]
    assert row[6:9] == ["5/5", "0/5", "yes"]
    assert (
        "top1_dense_cosine (top-1 dense cosine (hybrid cell: the fused rank score is not a "
        "similarity)) in 2/2 cells" in markdown
    )


def test_the_bm25_sweep_is_a_table_apart_and_says_severity_never_reads_it():
    results = hybrid_results(FAIL_COSINES + PASS_COSINES, FAIL_BM25 + PASS_BM25)
    analyse(results)
    markdown = _section(results)
    assert "### BM25 on hybrid cells" in markdown
    assert "no severity class reads it" in markdown
    row = _row(markdown, "### BM25 on hybrid cells")
    assert row[3] == "top1_bm25" and row[8] == "no"
    assert row[9] == "9.000 / 10.000"  # the hand-written BM25 means


def test_an_older_file_names_its_one_score_as_what_it_was():
    results = hybrid_results(FAIL_COSINES + PASS_COSINES, FAIL_BM25 + PASS_BM25)
    analyse(results)
    summary = results["analysis"]["detectability"]
    del summary["scores"], summary["bm25"]
    summary["score"] = "top1_score"
    for cell in results["cells"]:
        cell["detectability"]["score"] = "top1_score"
        del cell["detectability"]["bm25"]
    markdown = _section(results)
    assert "Score: top1_score (top-1 recorded score" in markdown
    assert "on a hybrid cell this is the fused rank score" in markdown
    assert "BM25 on hybrid cells" not in markdown
    assert _row(markdown, "## Detectability")[3] == "top1_score"
