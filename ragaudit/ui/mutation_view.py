"""The Matrix page on a mutation audit's file (`ragaudit mutate`): the mutation score per
operator as a heatmap, operator × one column per file (the open one, and any other mutate
files of the results folder chosen beside it), paired by mutant id where the corpus and the
cases agree; a click on a cell lists that operator's mutants in that file by status; then
each file's control row, closed-book row and score table. The planted-fault matrix's
measures, certification and what-failed list do not apply: their rates count phrasings,
the score counts mutants."""

from __future__ import annotations

from pathlib import Path

from ragaudit.results.format import fmt_model_calls_brief
from ragaudit.results.mutation import column_name
from ragaudit.ui import links
from ragaudit.ui.charts import clicked_cell
from ragaudit.ui.mutation_chart import mutation_figure
from ragaudit.ui.mutation_files import AuditColumn, load_columns, mutate_files
from ragaudit.ui.mutation_lists import plain, render_file_rows, render_mutant_list

CHART_KEY = "mutation_heatmap"
FILES_KEY = "mutation_files"
OPERATOR_KEY = "mutation_operator"
COLUMN_KEY = "mutation_column"
_LAST_CLICK = "_mutation_last_click"


def _header(results: dict) -> None:
    import streamlit as st

    corpus, run = results.get("corpus") or {}, results.get("run") or {}
    section = results.get("mutation") or {}
    basis = "graded answers" if section.get("basis") == "answer" else "retrieval-side measures"
    st.subheader(plain(f"Mutation audit: {column_name(results)} ({basis})"))
    st.caption(plain(
        f"Results written {results.get('created_at')} · corpus {corpus.get('path')} "
        f"({corpus.get('documents')} documents) · cases {run.get('cases_file')} · seed "
        f"{run.get('seed')} · {fmt_model_calls_brief(results.get('conditions') or {})}"
    ))  # fmt: skip


def _choose_files(results: dict, opened: Path | None) -> list[AuditColumn]:
    """The open file and the mutate files chosen beside it; says which pair and why."""
    import streamlit as st

    offered = mutate_files(opened)
    names = {str(p): p.name for p in offered}
    if offered:
        chosen = st.multiselect(
            "Mutate files beside this one (from the results folder)",
            list(names),
            key=FILES_KEY,
            format_func=names.get,
            help="Each file is a column; files of the same corpus and cases pair by mutant id.",
        )
    else:
        chosen = []
        st.caption("No other mutate file in the results folder to put beside this one.")
    columns, problems = load_columns(results, opened, [Path(p) for p in chosen])
    for problem in problems:
        st.warning(plain(f"Not shown: {problem}"))
    for column in columns[1:]:
        if column.paired:
            st.success(plain(f"{column.label} is paired by mutant id with {columns[0].label}: "
                             f"{column.pairing}"))  # fmt: skip
        else:
            st.warning(plain(f"{column.label} stands beside {columns[0].label} unpaired: "
                             f"{column.pairing}."))  # fmt: skip
    return columns


def _operators(columns: list[AuditColumn]) -> list[str]:
    """Every operator any file scored, in the files' operator order."""
    ordered: dict[str, None] = {}
    for column in columns:
        for score in column.results["mutation"].get("scores") or []:
            ordered.setdefault(score["operator"])
    return list(ordered)


def _heatmap(columns: list[AuditColumn], operators: list[str]) -> None:
    """The chart; a click on a cell selects its operator and column below."""
    import streamlit as st

    labels = [c.label for c in columns]
    scores = {
        (s["operator"], c.label): s
        for c in columns
        for s in c.results["mutation"].get("scores") or []
    }
    st.caption(
        "Mutation score per operator: killed / applicable with its 95% Wilson interval; "
        "robust credits (shown, not tried) and the mutants outside the score beside it, "
        "never inside the interval. Click a cell to list its mutants."
    )
    event = st.plotly_chart(
        mutation_figure(operators, labels, scores),
        key=CHART_KEY,
        on_select="rerun",
        selection_mode="points",
        config={"displayModeBar": False},
    )
    target = clicked_cell(event)
    if target == st.session_state.get(_LAST_CLICK):
        return  # a selection already applied stays: the selectors below may have moved on
    st.session_state[_LAST_CLICK] = target  # None once deselected: a new click applies
    if target is None:
        return
    if target[0] in operators and target[1] in labels:
        st.session_state[OPERATOR_KEY], st.session_state[COLUMN_KEY] = target


def _choose_cell(columns: list[AuditColumn], operators: list[str]) -> tuple[str, AuditColumn]:
    """The operator and column selectors (what a click sets; reachable by keyboard)."""
    import streamlit as st

    by_label = {c.label: c for c in columns}
    links.bind(OPERATOR_KEY, "probe", operators, _first_survivor(columns[0], operators))
    if st.session_state.get(COLUMN_KEY) not in by_label:
        st.session_state[COLUMN_KEY] = columns[0].label
    left, right = st.columns(2)
    with left:
        operator = st.selectbox("Operator", operators, key=OPERATOR_KEY)
    with right:
        label = st.selectbox("Column", list(by_label), key=COLUMN_KEY)
    links.publish(OPERATOR_KEY, "probe")
    return operator, by_label[label]


def _first_survivor(column: AuditColumn, operators: list[str]) -> str | None:
    """The operator the list opens on: the first with a survivor, else the first."""
    survived = {s["operator"] for s in column.results["mutation"].get("survivors") or []}
    return next((op for op in operators if op in survived), operators[0] if operators else None)


def render_mutation_view(results: dict, opened: Path | None) -> None:
    """Draw the mutation view of the mutate file `results` (read from `opened`)."""
    import streamlit as st

    _header(results)
    section = results.get("mutation")
    if not section:
        st.info("This mutate file holds no mutation section yet: the run writes it at the end.")
        return
    columns = _choose_files(results, opened)
    operators = _operators(columns)
    if not operators:
        st.write("No operator was scored in this file.")
        return
    _heatmap(columns, operators)
    operator, column = _choose_cell(columns, operators)
    render_mutant_list(column, operator, columns)
    st.subheader("Control row and closed-book row")
    if len(columns) == 1:
        render_file_rows(columns[0], 0)
        return
    tabs = st.tabs([c.label for c in columns])
    for index, (tab, column) in enumerate(zip(tabs, columns, strict=True)):
        with tab:
            render_file_rows(column, index)
