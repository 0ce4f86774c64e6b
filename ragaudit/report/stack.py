"""The report's "Your stack" section: the user's stack (`ragaudit run --stack`) as its file
names it, how many of its chunks could not be located exactly, and its cells.

Its column also stands beside the built-in configs in every probe x config table (see
results.view.matrix_columns); this section says what that column is. Every figure is read
from the results file.
"""

from __future__ import annotations

from ragaudit.report.render import Block
from ragaudit.results import view
from ragaudit.results.format import (
    fmt_approximate_spans,
    fmt_cell,
    fmt_stack_certification,
    fmt_stack_component,
)

HEADING = "Your stack"
MEASURES = ("gold_in_context", "span_preserved", "correct")
"""The stack's cells shown in its own table: retrieval, the cut, the answer."""


def stack_section(results: dict) -> list[Block]:
    """A heading and, per stack config, its components, approximate spans and cells; no
    blocks at all when the file holds no stack (none ran)."""
    stacks = view.stack_configs(results)
    if not stacks:
        return []
    blocks: list[Block] = [("h", 2, HEADING)]
    for config in stacks:
        blocks += _one_stack(results, config)
    return blocks


def _retrieval_default(config: dict) -> str:
    fusion = " fused with BM25 (reciprocal-rank)" if config.get("hybrid") else ""
    return f"none: ragaudit's dense retrieval over the stack's chunks{fusion}"


def _one_stack(results: dict, config: dict) -> list[Block]:
    stack = config.get("stack") or {}
    column = view.column_for(results, config["name"], view.stack_embedder(config))
    run_generator = (results.get("generator") or {}).get("spec") or "none: generation was not run"
    components = [
        fmt_stack_component("splitter", stack.get("splitter"), "none recorded"),
        fmt_stack_component("embedder", stack.get("embedder"), "none: its retriever ranks"),
        fmt_stack_component("generator", stack.get("generator"), f"the run's ({run_generator})"),
        fmt_stack_component("retriever", stack.get("retriever"), _retrieval_default(config)),
    ]
    probes = ", ".join(config.get("probes") or []) or "every probe"
    chunking = view.chunking_of(config)
    return [
        ("h", 3, f"{config['name']}: {config.get('description') or chunking}"),
        (
            "p",
            f"Stack file {stack.get('file')} (sha256 {stack.get('sha256')}); chunking "
            f"{chunking}, k={config.get('k')}; probes: {probes}. Its column, "
            f"`{column.label}`, stands beside the built-in configs in every probe x config "
            "table, whatever embedder the table is for.",
        ),
        (
            "p",
            fmt_stack_certification(view.certification(results, column.embedder), column.embedder),
        ),
        ("ul", components),
        ("p", fmt_approximate_spans(view.approximate_spans(results, config), chunking) + "."),
        _cells_table(results, column),
    ]


def _cells_table(results: dict, column: view.Column) -> Block:
    """The stack's own cells: one row per probe, one column per measure."""
    probes = view.column_probes(results, [column])
    cells = view.column_cells(results, probes, [column])
    layers = view.probe_layers(results)
    rows = [
        [probe, layers[probe]]
        + [fmt_cell(cells[(probe, column.label)], measure) for measure in MEASURES]
        for probe in probes
    ]
    return ("table", ["Probe", "Layer", *(m.replace("_", " ") for m in MEASURES)], rows)
