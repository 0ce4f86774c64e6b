"""Matrix: the probe × config heatmap for one measure and embedder; a click opens the cell."""

from __future__ import annotations

from ragaudit.results.format import (
    fmt_cell,
    fmt_model_calls_brief,
    fmt_stack_certification,
    percent,
)
from ragaudit.results.view import (
    Column,
    certification,
    column_cells,
    column_probes,
    embedder_specs,
    is_mutation_audit,
    matrix_columns,
    probe_layers,
    wilson_confidence,
)
from ragaudit.ui import links
from ragaudit.ui.attribution import render_attribution
from ragaudit.ui.attribution_bars import beside_attribution_bars
from ragaudit.ui.charts import clicked_cell, heatmap_figure
from ragaudit.ui.common import PAGES, current_results, link_params, results_or_stop
from ragaudit.ui.downloads import render_cell_download
from ragaudit.ui.failures_first import render_failures_first
from ragaudit.ui.mutation_view import render_mutation_view
from ragaudit.ui.table_wide import render_table_wide
from ragaudit.ui.windows import render_matrix_windows

MEASURE_LABELS = {
    "gold_in_context": "gold in context",
    "span_preserved": "span preserved",
    "correct": "answer correct",
    "abstained": "abstained",
    "trap_taken": "trap taken",
    "empty": "empty reply",
    "failed_call": "generation call failed",
    "retrieval_failed_call": "retrieval call failed",
}

CHART_KEY = "matrix_heatmap"


def _header(results: dict) -> None:
    import streamlit as st

    run = results.get("run", {})
    generator = (results.get("generator") or {}).get("spec", "none")
    st.caption(
        f"Results written {results.get('created_at')} · preset {run.get('preset', '?')} · "
        f"corpus seed {results['corpus'].get('seed')}, n={results['corpus'].get('n')} · "
        f"generator {generator} · {fmt_model_calls_brief(results.get('conditions') or {})}"
    )


def render() -> None:
    """Draw the Matrix page."""
    import streamlit as st

    st.title("Matrix")
    results = results_or_stop("matrix")
    if is_mutation_audit(results):  # operators scored per mutant, not probes per phrasing
        render_mutation_view(results, current_results().path)
        return
    _header(results)
    if results.get("cells"):
        render_failures_first(results)  # what failed, before any chart

    embedders = embedder_specs(results)
    measures = list(MEASURE_LABELS)
    col_embedder, col_measure = st.columns(2)
    links.bind("matrix_embedder", "embedder", embedders)
    links.bind("matrix_measure", "measure", measures, "gold_in_context")
    with col_embedder:
        embedder = st.selectbox("Embedder", embedders, key="matrix_embedder")
    with col_measure:
        measure = st.selectbox(
            "Measure", measures, key="matrix_measure", format_func=MEASURE_LABELS.get
        )
    links.publish("matrix_embedder", "embedder")
    links.publish("matrix_measure", "measure")

    _certification_warning(results, embedder)
    columns = matrix_columns(results, embedder)  # the user's stack beside the configs
    for column in (c for c in columns if c.stack and c.embedder != embedder):
        verdict = certification(results, column.embedder)
        st.caption(f"{column.label}: {fmt_stack_certification(verdict, column.embedder)}")
    probes = column_probes(results, columns)
    if not probes:
        st.write(f"No records for {embedder} in this file.")
        return
    if results["cells"]:
        caption = (
            f"{MEASURE_LABELS[measure]}: rate and count/n per cell; hover for the "
            f"{_interval_name(results)}. Click a cell to open its instances."
        )
        with beside_attribution_bars(results, probes, columns, embedder, caption):
            _heatmap(results, probes, columns, measure, embedder)  # the bars at its right
        _cells_table(results, probes, columns, measure)
    else:
        st.info(
            f"No cells in this file yet: {len(results['instances'])} instance records are "
            "written, and the analysis stage adds the cells at the end of the run. Open the "
            "records below."
        )
    render_matrix_windows(results, embedder)
    probe, config = _open_cell(probes, columns, embedder)
    render_attribution(results, embedder, probe, config)  # a stack's cell under its own
    render_cell_download(results, embedder, probe, config)  # its records, CSV/Parquet
    render_table_wide(results)  # T4000: table_split at 4000 characters, beside the matrix


def _certification_warning(results: dict, embedder: str) -> None:
    """Warn when the controls do not certify `embedder`, or none ran under it."""
    import streamlit as st

    role = next((e for e in results["embedders"] if e["spec"] == embedder), {})
    verdict = certification(results, embedder)
    if verdict is not None and not verdict.get("certified"):
        st.warning(
            f"Uncertified: the controls do not certify {embedder} "
            f"({verdict.get('reason') or 'no reason recorded'})."
        )
    elif verdict is None and "control" not in role.get("probes", []):
        st.warning(
            f"Uncertified: no controls were run under {embedder}, so nothing here certifies "
            "the instrument that produced these cells."
        )


def _interval_name(results: dict) -> str:
    confidence = wilson_confidence(results)
    return "Wilson interval" if confidence is None else f"{percent(confidence)}% Wilson interval"


def _heatmap(results, probes, columns: list[Column], measure: str, embedder: str) -> None:
    import streamlit as st

    labels = [c.label for c in columns]
    cells = column_cells(results, probes, columns)
    scopes = {c.label: list(c.probes) for c in columns if c.probes}

    fig = heatmap_figure(probes, labels, cells, measure, probe_layers(results), scopes)
    event = st.plotly_chart(
        fig,
        key=CHART_KEY,
        on_select="rerun",
        selection_mode="points",
        config={"displayModeBar": False},
    )
    target = clicked_cell(event)
    by_label = {c.label: c.config for c in columns}
    if target and target[1] in by_label:
        config = by_label[target[1]]  # the Instance page finds a stack's own embedder
        st.switch_page(
            PAGES["instance"],
            query_params=link_params(probe=target[0], config=config, embedder=embedder),
        )


def _cells_table(results, probes, columns: list[Column], measure: str) -> None:
    import streamlit as st

    labels = [c.label for c in columns]
    cells = column_cells(results, probes, columns)
    with st.expander("The same cells as a table"):
        rows = []
        for probe in probes:
            row = {"probe": probe}
            for label in labels:
                row[label] = fmt_cell(cells[(probe, label)], measure, interval=True)
            rows.append(row)
        st.dataframe(rows, hide_index=True, width="stretch")


def _open_cell(probes: list[str], columns: list[Column], embedder: str) -> tuple[str, str]:
    """A keyboard-reachable way into a cell, besides the click; returns the chosen cell."""
    import streamlit as st

    labels = {c.config: c.label for c in columns}

    col_probe, col_config, col_go = st.columns([2, 2, 1])
    with col_probe:
        probe = st.selectbox("Probe", probes, key="matrix_open_probe")
    with col_config:
        config = st.selectbox(
            "Config", list(labels), key="matrix_open_config", format_func=labels.get
        )
    with col_go:
        st.write("")
        if st.button("Open cell", key="matrix_open_cell"):
            st.switch_page(
                PAGES["instance"],
                query_params=link_params(probe=probe, config=config, embedder=embedder),
            )
    return probe, config
