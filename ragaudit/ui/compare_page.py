"""Compare: two runs' cells side by side (both rates, the paired flips each way, exact
McNemar), and a flipped instance under both runs. The two files are chosen among those
ui.compare_files lists; a URL never names one."""

from __future__ import annotations

from pathlib import Path

from ragaudit.comparison.document import HEADERS, READING, ran_somewhere, table_row
from ragaudit.comparison.pairing import (
    MEASURES,
    CellComparison,
    ColumnPair,
    column_records,
    compare_cells,
    default_pairs,
    resolve_column,
)
from ragaudit.comparison.provenance import Provenance, provenance
from ragaudit.results.view import embedder_specs, is_mutation_audit, matrix_columns
from ragaudit.ui.compare_files import comparable_files, default_choice
from ragaudit.ui.compare_mutants import render_mutation_compare
from ragaudit.ui.compare_side import render_side
from ragaudit.ui.data import load

SAME = "each column with itself"
CHOSEN = "a column of A with a column of B"
FLIPS_KEY = "compare_flips"


def render() -> None:
    """Draw the Compare page."""
    import streamlit as st

    st.title("Compare two runs")
    files = comparable_files()
    if len(files) < 2:
        st.write(
            f"Comparing needs two results files; found {len(files)} (the results folder's, "
            "the one given to `ragaudit app --results`, and the shipped reference run)."
        )
        return
    default_a, default_b = default_choice(files)
    a, b = _choose_file("A", files, default_a), _choose_file("B", files, default_b)
    if a is None or b is None:
        return
    if is_mutation_audit(a[1]) or is_mutation_audit(b[1]):
        render_mutation_compare(a, b)  # mutants paired by id, or why not
        return
    checked = provenance(a[1], b[1])
    _render_provenance(checked)
    pairs = _choose_pairs(a[1], b[1])
    measure = st.selectbox(
        "Measure", list(MEASURES), key="compare_measure", format_func=MEASURES.get
    )
    compared = compare_cells(a[1], b[1], pairs, measure, paired=checked.paired)
    comparisons = [c for c in compared if ran_somewhere(c)]
    if not comparisons:
        st.write(f"Neither run measured {MEASURES[measure]} on these columns.")
        return
    st.caption(READING)
    rows = [dict(zip(HEADERS, table_row(c), strict=True)) for c in comparisons]
    if len(pairs) == 1:  # one pair: named once above the table, so the figures fit beside it
        st.markdown(f"**{pairs[0].label}**")
        rows = [{k: v for k, v in row.items() if k != HEADERS[1]} for row in rows]
    st.dataframe(rows, hide_index=True, width="stretch")
    _render_flips(a, b, comparisons)


def _choose_file(side: str, files: list[Path], default: int) -> tuple[str, dict] | None:
    """A selectbox over the comparable files; (the file's name, its results), or None
    after saying why it cannot be read."""
    import streamlit as st

    options = [str(p) for p in files]
    chosen = st.selectbox(
        f"Run {side} ({'before' if side == 'A' else 'after'})",
        options,
        index=min(default, len(options) - 1),
        key=f"compare_file_{side.lower()}",
        format_func=lambda p: Path(p).name,
    )
    loaded = load(Path(chosen))
    if loaded.results is None:
        st.error(f"Run {side} cannot be read: {loaded.problem}")
        return None
    return Path(chosen).name, loaded.results


def _render_provenance(checked: Provenance) -> None:
    import streamlit as st

    notes = "".join(f"\n- {note}" for note in checked.notes)
    if checked.paired:
        st.success(checked.lead + notes)
    else:
        st.warning(checked.lead + notes)


def _column_options(results: dict) -> list[str]:
    """Every column of a file as `CONFIG@EMBEDDER` (pairing.resolve_column's words)."""
    seen = []
    for embedder in embedder_specs(results):
        for column in matrix_columns(results, embedder):
            option = f"{column.config}@{column.embedder}"
            if option not in seen:
                seen.append(option)
    return seen


def _choose_pairs(a: dict, b: dict) -> list[ColumnPair]:
    """Every shared column with itself, or one column of each run chosen by the person."""
    import streamlit as st

    same = default_pairs(a, b)
    modes = [SAME, CHOSEN] if same else [CHOSEN]
    mode = st.radio("Compare", modes, key="compare_mode", horizontal=True)
    if mode == SAME:
        return same
    left, right = st.columns(2)
    with left:
        column_a = st.selectbox("Column of A", _column_options(a), key="compare_column_a")
    with right:
        column_b = st.selectbox("Column of B", _column_options(b), key="compare_column_b")
    return [ColumnPair(resolve_column(a, column_a, "A"), resolve_column(b, column_b, "B"))]


def _flip_rows(comparisons: list[CellComparison]) -> list[tuple[CellComparison, str, bool]]:
    """(cell, instance id, gained) for every flipped instance, cell by cell."""
    rows = []
    for c in comparisons:
        rows += [(c, i, True) for i in c.gains] + [(c, i, False) for i in c.losses]
    return rows


def _render_flips(a: tuple[str, dict], b: tuple[str, dict], comparisons) -> None:
    """The flipped instances as a table; a clicked row opens it under both runs."""
    import streamlit as st

    flips = _flip_rows(comparisons)
    st.subheader(f"Flipped instances ({len(flips)})")
    if not flips:
        st.write("No instance flipped between the runs on these cells.")
        return
    table = st.dataframe(
        [
            {
                "probe": c.probe,
                "instance": i,
                "column (A → B)": c.pair.label,
                "flip": "gained (A no → B yes)" if gained else "lost (A yes → B no)",
            }
            for c, i, gained in flips
        ],
        hide_index=True,
        width="stretch",
        key=FLIPS_KEY,
        on_select="rerun",
        selection_mode="single-row",
    )
    rows = list(((table or {}).get("selection") or {}).get("rows") or [])
    if not rows or rows[0] >= len(flips):
        st.caption("Click a row to see that instance under both runs, side by side.")
        return
    cell, instance_id, _gained = flips[rows[0]]
    _render_both(a, b, cell, instance_id)


def _render_both(a: tuple[str, dict], b: tuple[str, dict], cell: CellComparison, instance_id):
    import streamlit as st

    record_a = column_records(a[1], cell.probe, cell.pair.a).get(instance_id)
    record_b = column_records(b[1], cell.probe, cell.pair.b).get(instance_id)
    st.subheader(f"{instance_id} under both runs")
    question = (record_a or record_b or {}).get("question")
    st.markdown(f"**Question.** {question}")
    left, right = st.columns(2)
    with left:
        render_side("A", a[0], a[1], cell.pair.a, record_a)
    with right:
        render_side("B", b[0], b[1], cell.pair.b, record_b)
