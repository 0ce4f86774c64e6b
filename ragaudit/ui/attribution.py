"""The inspector's failure attribution: on the Instance page the oracle context's chunk ids,
its reply and verdict and the attribution in words; on the Matrix page each generated
cell's counts. Text is built by plain functions (tested without Streamlit); the render
functions only draw it."""

from __future__ import annotations

from ragaudit.results.format import NOT_MEASURED, fmt_attribution, fmt_measure
from ragaudit.results.schema import ATTRIBUTIONS
from ragaudit.results.view import (
    cell_attribution,
    cell_index,
    column_cells,
    column_for,
    column_probes,
    matrix_columns,
)

_WORDS = {
    "correct": "correct: the answer is right.",
    "retrieval": (
        "a retrieval failure: the gold was not in the retrieved context, and from the gold "
        "chunk alone the generator answers correctly."
    ),
    "generation": (
        "a generation failure: the gold was in the retrieved context, yet the answer is "
        "wrong (from the gold chunk alone it is right)."
    ),
    "ceiling": (
        "the generator's ceiling: the answer is wrong even when the context is only the gold "
        "chunk, so better retrieval alone would not fix it."
    ),
    "failed_call": "a failed model call: the failure cannot be attributed (it stays in n).",
}
_NO_GOLD = (
    "a generation failure: the question has no answer in the corpus and the reply did not "
    "abstain (no oracle, so no ceiling is measured)."
)
_FROM_CONTEXTS = {  # a pipeline's record without an `oracle:` entry: read from its contexts
    "retrieval": "a retrieval failure: the gold was not in the retrieved context",
    "generation": "a generation failure: the gold was in the retrieved context, yet the "
    "answer is wrong",
}


def _unmeasured_ceiling(record: dict) -> str | None:
    """`ceiling: not measured (no oracle entry)` for a pipeline record with gold spans and no
    oracle entry (its record says why), else None."""
    if record.get("ceiling") and record.get("gold_spans") and not record.get("oracle"):
        return f"ceiling: {record['ceiling']}"
    return None


def attribution_words(record: dict) -> str:
    """The record's attribution in words; why there is none when there is none."""
    if not record.get("generation"):
        return "none: generation did not run for this record."
    name = record.get("attribution")
    if name is None:
        return f"{NOT_MEASURED}."
    ceiling = _unmeasured_ceiling(record)
    if ceiling is not None and name in _FROM_CONTEXTS:
        return f"{_FROM_CONTEXTS[name]}; {ceiling}, so whether the gold alone fixes it is unknown."
    if name == "generation" and not record.get("oracle"):
        return _NO_GOLD
    return _WORDS.get(name, name)


def oracle_lines(record: dict) -> list[str]:
    """Markdown lines for the record's oracle context: its chunk ids, reply and verdict."""
    if "oracle" not in record:
        return [f"**Oracle context**: {NOT_MEASURED}."]
    oracle = record["oracle"]
    if not oracle:
        why = "retrieval failed" if record.get("retrieval_error") else "it has no gold span"
        why = _unmeasured_ceiling(record) or why
        return [f"**Oracle context**: none, {why}."]
    ids = ", ".join(f"`{chunk_id}`" for chunk_id in oracle.get("chunk_ids") or [])
    lines = [
        "**Oracle context** (only the chunks holding the gold spans and a table row's "
        f"header): {ids}"
    ]
    generation = oracle.get("generation") or {}
    if generation.get("status") == "failed_call":
        lines.append(f"The oracle call failed: {generation.get('error')} (counted as failed_call)")
    grade = oracle.get("grade")
    if grade:
        lines.append(
            f"**Oracle verdict** `{grade['verdict']}` (correct: {grade.get('correct')}) · "
            f"branch `{grade.get('branch')}`"
        )
    return lines


def render_oracle(results: dict, record: dict) -> None:
    """The Instance page's oracle block: chunk ids, chunk texts, reply, verdict, attribution."""
    import streamlit as st

    if not record.get("generation"):
        return
    lines = oracle_lines(record)
    st.markdown(lines[0])
    oracle = record.get("oracle") or {}
    chunks = results.get("chunks") or {}
    for chunk_id in oracle.get("chunk_ids") or []:
        with st.expander(f"oracle chunk {chunk_id}"):
            st.text((chunks.get(chunk_id) or {}).get("text") or "chunk text not in the file")
    reply = (oracle.get("generation") or {}).get("reply")
    if oracle.get("generation"):
        st.code(reply if reply else "(empty reply)", language=None, wrap_lines=True)
    for line in lines[1:]:
        st.markdown(line)
    st.markdown(f"**Attribution**: {attribution_words(record)}")


def attribution_rows(results: dict, embedder: str) -> list[dict]:
    """One row per generated cell in `embedder`'s columns (the user's stack under its own
    embedder, beside the configs) that records an attribution: each attribution's count
    over the cell's n."""
    columns = matrix_columns(results, embedder)
    probes = column_probes(results, columns)
    cells = column_cells(results, probes, columns)
    rows = []
    for probe in probes:
        for column in columns:
            cell = cells[(probe, column.label)] or {}
            attribution = cell_attribution(cell) if cell.get("generated") else None
            if attribution:
                row = {"probe": probe, "config": column.label}
                row.update({name: fmt_measure(attribution.get(name)) for name in ATTRIBUTIONS})
                if attribution.get("ceiling_reason"):  # a pipeline without an oracle entry
                    row["ceiling"] = attribution["ceiling_reason"]
                rows.append(row)
    return rows


def render_attribution(results: dict, embedder: str, probe: str, config: str) -> None:
    """The Matrix page's attribution under `embedder`'s table: the chosen cell's counts (a
    stack's under its own embedder), then every generated cell of the table's columns."""
    import streamlit as st

    cell_embedder = column_for(results, config, embedder).embedder
    cell = cell_index(results).get((probe, config, cell_embedder))
    reason = (cell_attribution(cell) or {}).get("ceiling_reason")
    shown = fmt_attribution(cell) + (f" ({reason})" if reason else "")
    st.markdown(f"**Failure attribution, {probe} × {config}**: {shown}")
    rows = attribution_rows(results, embedder)
    with st.expander("Failure attribution of every generated cell"):
        if rows:
            st.dataframe(rows, hide_index=True, width="stretch")
        else:
            st.write(f"Attribution: {NOT_MEASURED} (or generation did not run).")
