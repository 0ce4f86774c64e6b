"""The report's failure-attribution section: per generated cell, how many instances failed
at retrieval, at generation, at the generator's ceiling (wrong even from the gold chunk), how
many were right and how many lost a call. Read from the cells' `attribution`; it sits
beside the severity classes and changes none of them."""

from __future__ import annotations

from ragaudit.report.render import Block
from ragaudit.results import view
from ragaudit.results.format import NOT_MEASURED, fmt_measure
from ragaudit.results.schema import ATTRIBUTIONS

EXPLANATION = (
    "Each generated instance with a gold span was asked once more, with only the chunk(s) "
    "of its own chunking that hold the gold spans (and a table row's header) as context "
    "(the oracle context: same "
    "prompt, same parameters). A wrong answer is then attributed, first match wins: "
    "failed_call (the answer's call failed, or the oracle's), ceiling (the oracle answer is "
    "wrong too: the generator cannot answer even from the gold chunk), generation (the gold "
    "was in the retrieved context, yet the answer is wrong) or retrieval (the gold was not "
    "in the retrieved context, and from the gold chunk alone the answer is right). An "
    "instance without a gold span has no oracle: answered wrongly it counts as generation, "
    "with no ceiling measured (the no-oracle column). A pipeline column without an oracle "
    "entry is read from its contexts alone (generation when the gold was in them, else "
    "retrieval), and its ceiling column says it was not measured. The severity classes are "
    "not changed by this."
)


def attribution_section(results: dict) -> list[Block]:
    """A row per generated cell: each attribution's count over the cell's n."""
    blocks: list[Block] = [("h", 2, "Failure attribution: retrieval, generation or ceiling")]
    generated = [c for c in results.get("cells") or [] if c.get("generated")]
    if not generated:
        return blocks + [("p", "Generation did not run in this results file.")]
    measured = [c for c in generated if view.cell_attribution(c) is not None]
    if not measured:
        return blocks + [("p", f"Attribution: {NOT_MEASURED} (it predates oracle contexts).")]
    rows = []
    for cell in measured:
        attribution = view.cell_attribution(cell)
        shown = {name: fmt_measure(attribution.get(name)) for name in (*ATTRIBUTIONS, "no_oracle")}
        if attribution.get("ceiling_reason"):  # a pipeline without an oracle entry
            shown["ceiling"] = attribution["ceiling_reason"]
        rows.append([cell["probe"], cell["config"], cell["embedder"], *shown.values()])
    headers = ["Probe", "Config", "Embedder", *ATTRIBUTIONS, "no oracle"]
    blocks += [("p", EXPLANATION), ("table", headers, rows)]
    unmeasured = [f"{c['probe']}/{c['config']}" for c in generated if c not in measured]
    if unmeasured:
        blocks.append(("p", f"Attribution {NOT_MEASURED} for: {', '.join(unmeasured)}."))
    return blocks
