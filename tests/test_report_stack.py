"""The report on a run with the user's stack: a "Your stack" section naming its components
and its approximate spans, and its column beside the built-in configs in the tables, even
though its embedder is not the primary. Expected values are counted by hand from
tests/helpers/stack_results.py."""

from __future__ import annotations

import copy

from helpers.stack_results import PRIMARY, STACK_EMBEDDER, stack_results

from ragaudit.report.document import render_html, render_markdown, report_blocks

STACK_LABEL = f"mine ({STACK_EMBEDDER})"


def _table_after(blocks: list, heading: str) -> tuple[list, list]:
    """(headers, rows) of the first table after the heading whose text is `heading`."""
    start = next(i for i, b in enumerate(blocks) if b[0] == "h" and b[2] == heading)
    table = next(b for b in blocks[start:] if b[0] == "table")
    return table[1], table[2]


def _section(blocks: list, heading: str) -> list:
    """The blocks from the level-2 heading `heading` up to the next level-2 heading."""
    start = next(i for i, b in enumerate(blocks) if b[:3] == ("h", 2, heading))
    end = next((i for i, b in enumerate(blocks) if i > start and b[:2] == ("h", 2)), len(blocks))
    return blocks[start:end]


def test_your_stack_names_its_components_and_approximate_spans():
    markdown = render_markdown(stack_results())
    assert "## Your stack" in markdown
    assert "Stack file my_stack.yaml (sha256 " + "ab" * 32 + ")" in markdown
    assert (
        "- splitter: `llama_index.core.node_parser.SentenceSplitter(chunk_size=400, "
        "chunk_overlap=40)`" in markdown
    )
    assert (
        f"- embedder: {STACK_EMBEDDER} at http://127.0.0.1:8090/v1, API key read from "
        "$EMBED_KEY" in markdown
    )
    assert "- generator: the run's (local:qwen2.5-0.5b)" in markdown
    assert "- retriever: none: ragaudit's dense retrieval over the stack's chunks" in markdown
    # 2 of the stack's 12 chunks are approximate: 2/12 = 16.7% -> 17%
    assert "Approximate spans: 17% 2/12 chunks of stack-mine" in markdown
    assert f"No controls are recorded under {STACK_EMBEDDER}" in markdown


def test_the_stack_column_stands_beside_the_configs_in_the_tables():
    blocks = report_blocks(stack_results())
    headers, rows = _table_after(blocks, f"Gold in context, {PRIMARY}")  # under the primary
    assert headers == ["Probe", "Layer", "B", "C", STACK_LABEL]
    assert rows == [["boundary", "architectural", "40% 2/5", "60% 3/5", "80% 4/5"]]
    headers, rows = _table_after(blocks, f"Correct answers, {PRIMARY}")
    assert headers[-1] == STACK_LABEL
    boundary = next(r for r in rows if r[0] == "boundary")
    assert boundary[2:] == ["20% 1/5", "not run", "60% 3/5"]  # C did not generate
    # the stack's own embedder gets no table of its own: its column is already there
    retrieval = _section(blocks, "Retrieval: did the evidence reach the model")
    assert [b[2] for b in retrieval if b[:2] == ("h", 3)] == [f"Gold in context, {PRIMARY}"]
    severity = _section(blocks, "Severity")
    (table,) = [b for b in severity if b[0] == "table"]
    assert table[1][-1] == STACK_LABEL
    assert next(r for r in table[2] if r[0] == "control")[-1] == "not run"


def test_the_stack_section_tables_its_own_cells():
    headers, rows = _table_after(
        report_blocks(stack_results()),
        "mine: my stack: llama-index SentenceSplitter 400/40, k=3",
    )
    assert headers == ["Probe", "Layer", "gold in context", "span preserved", "correct"]
    assert rows == [["boundary", "architectural", "80% 4/5", "80% 4/5", "60% 3/5"]]


def test_a_file_without_a_stack_reads_as_before():
    results = stack_results(with_stack=False)
    blocks = report_blocks(results)
    assert not any(b[:3] == ("h", 2, "Your stack") for b in blocks)
    headers, _ = _table_after(blocks, PRIMARY)
    assert headers == ["Probe", "Layer", "B", "C"]


def test_a_stack_index_without_the_count_says_not_measured():
    results = stack_results()
    del results["run"]["indexes"][1]["approximate_spans"]
    assert "approximate spans of stack-mine: not measured in this file" in render_markdown(results)


def test_a_stack_with_its_own_retriever_and_no_embedder():
    results = stack_results()
    factory = "mypkg.rank:bm25_then_dense"
    stack = results["configs"][2]["stack"]
    stack["embedder"] = None
    stack["retriever"] = {"factory": factory, "args": {"depth": 20}}
    for row in results["cells"] + results["instances"]:
        if row["config"] == "mine":
            row["embedder"] = f"retriever:{factory}"
    results["run"]["indexes"][1].update(
        embedder=f"retriever:{factory}",
        over_window=None,
        over_window_reason="their retriever embeds the chunks itself",
    )
    markdown = render_markdown(copy.deepcopy(results))
    assert "- embedder: none: its retriever ranks" in markdown
    assert f"- retriever: `{factory}(depth=20)`" in markdown
    assert (
        f"- 12 chunks of stack-mine not measured against retriever:{factory}'s input window: "
        "their retriever embeds the chunks itself" in markdown
    )
    assert "- generator: the run's (local:qwen2.5-0.5b)" in markdown
    headers, rows = _table_after(report_blocks(results), f"Gold in context, {PRIMARY}")
    assert headers[-1] == f"mine (retriever:{factory})"
    assert rows[0][-1] == "80% 4/5"
    assert "<th>mine (retriever:mypkg.rank:bm25_then_dense)</th>" in render_html(results)
