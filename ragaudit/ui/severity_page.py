"""Severity & detectability: each cell's class and branch, its detectability, citation outcomes."""

from __future__ import annotations

from ragaudit.grading.citation_check import OUTCOMES as CITATION_OUTCOMES
from ragaudit.results.format import NOT_RUN, fmt_p
from ragaudit.results.swept_scores import NOT_MEASURED, score_label
from ragaudit.results.view import (
    Column,
    cell_index,
    column_cells,
    column_for,
    column_probes,
    config_names,
    embedder_specs,
    is_mutation_audit,
    matrix_columns,
)
from ragaudit.ui import links
from ragaudit.ui.charts import detectability_figure, sweep_figure
from ragaudit.ui.common import results_or_stop
from ragaudit.ui.severity_grid import render_cell_instances_link, render_severity_grid

_NO_CELLS = (
    "No cells in this file yet: severity and detectability are computed by the analysis "
    "stage at the end of a run."
)
MUTATION_AUDIT = (
    "This file is a mutation audit (`ragaudit mutate`). Severity classes and detectability "
    "are the planted matrix's: they class a probe's failed instances under one config. A "
    "mutation audit is scored per operator instead, killed / applicable over its mutants "
    "(the Matrix page), so the classes do not apply to this file and none is shown."
)
# The rollup's columns: the check's outcomes, then the failures they are counted over.
CITATION_COLUMNS = (*CITATION_OUTCOMES, "failures")


def swept_points(detect: dict, field: str = "score") -> tuple[list[float], list[float]]:
    """(passing values, failing values) of `field` as the analysis stage recorded them per
    instance (`detectability.by_instance`): "score" is the score the sweep used, "bm25" a
    hybrid cell's BM25 score. Unscored instances are left out, as the sweep did."""
    passing: list[float] = []
    failing: list[float] = []
    for point in (detect.get("by_instance") or {}).values():
        if point.get(field) is not None:
            (failing if point["failed"] else passing).append(point[field])
    return passing, failing


def render() -> None:
    """Draw the Severity & detectability page."""
    import streamlit as st

    st.title("Severity & detectability")
    results = results_or_stop("severity")
    if is_mutation_audit(results):
        st.info(MUTATION_AUDIT)
        return
    embedders = embedder_specs(results)
    links.bind("severity_embedder", "embedder", embedders)
    embedder = st.selectbox("Embedder", embedders, key="severity_embedder")
    links.publish("severity_embedder", "embedder")
    index = cell_index(results)
    columns = matrix_columns(results, embedder)  # the user's stack beside the configs
    labels = {c.config: c.label for c in columns}
    configs = list(labels)
    probes = column_probes(results, columns)
    if not results["cells"]:
        st.info(_NO_CELLS)
    _render_severity_table(results, probes, columns)

    st.subheader("Detectability of one cell")
    links.bind("severity_probe", "probe", probes)
    links.bind("severity_config", "config", configs)
    col_probe, col_config = st.columns(2)
    with col_probe:
        probe = st.selectbox("Probe", probes, key="severity_probe")
    with col_config:
        config = st.selectbox("Config", configs, key="severity_config", format_func=labels.get)
    links.publish("severity_probe", "probe")
    links.publish("severity_config", "config")
    cell_embedder = column_for(results, config, embedder).embedder  # a stack's own
    _render_detectability(index.get((probe, config, cell_embedder)), probe, config, cell_embedder)
    render_cell_instances_link(probe, config, embedder)  # the cell's records
    _render_permutations(results, probes, columns)
    _render_citation_rollup(results, config_names(results))


def _render_severity_table(results: dict, probes: list[str], columns: list[Column]) -> None:
    """Class and branch of every cell in the embedder's columns (a stack's under its own
    embedder): the grid with the rules beside it, then the same as a table."""
    import streamlit as st

    st.subheader("Severity per cell (class · branch)")
    render_severity_grid(results, probes, columns)
    cells = column_cells(results, probes, columns)
    rows = []
    for probe in probes:
        row = {"probe": probe}
        for column in columns:
            severity = (cells[(probe, column.label)] or {}).get("severity")
            label = column.label
            row[label] = f"{severity['class']} · {severity['branch']}" if severity else NOT_RUN
        rows.append(row)
    with st.expander("The same classes as a table (class · branch)"):
        st.dataframe(rows, hide_index=True, width="stretch")


def _render_permutations(results: dict, probes: list[str], columns: list[Column]) -> None:
    """Every cell of the embedder's columns (a stack's under its own) with a permutation."""
    import streamlit as st

    st.subheader("Permutation p-values")
    p_rows = []
    for (p, label), cell in column_cells(results, probes, columns).items():
        perm = ((cell or {}).get("detectability") or {}).get("permutation")
        if perm:
            p_rows.append(
                {
                    "probe": p,
                    "config": label,
                    "score": cell["detectability"].get("score") or NOT_MEASURED,
                    "p_value": fmt_p(perm.get("p_value")),
                    "mean fail": perm.get("mean_fail"),
                    "mean pass": perm.get("mean_pass"),
                    "reshuffles": perm.get("reshuffles"),
                    "seed": perm.get("seed"),
                }
            )
    if p_rows:
        st.dataframe(p_rows, hide_index=True, width="stretch")
    else:
        st.write(
            "No cell under this embedder had both classes large enough for a permutation test."
        )


def _render_citation_rollup(results: dict, configs: list[str]) -> None:
    import streamlit as st

    st.subheader("Citation-check outcomes per config")
    rollup = results.get("citation_rollup") or {}
    if rollup:
        st.dataframe(
            [
                {"config": c, **{o: rollup[c].get(o) for o in CITATION_COLUMNS}}
                for c in configs
                if c in rollup
            ],
            hide_index=True,
            width="stretch",
        )
        st.caption(
            "caught: cited chunk lacks the asserted value; abstentions get no credit as catches."
        )
    else:
        st.write("No citation checks: generation did not run in this results file.")


def _render_detectability(cell: dict | None, probe: str, config: str, embedder: str) -> None:
    import streamlit as st

    if cell is None:
        st.write(f"{probe} × {config} was not run under {embedder}.")
        return
    detect = cell.get("detectability") or {}
    severity = cell.get("severity") or {}
    st.markdown(
        f"**{probe} × {config}**: severity `{severity.get('class')}` via branch "
        f"`{severity.get('branch')}` · "
        f"failures {detect.get('failures')} · successes {detect.get('successes')} · "
        f"measurable: {detect.get('measurable')}"
        + (f" ({detect['reason']})" if detect.get("reason") else "")
    )
    basis = cell.get("failure_basis")
    _render_sweep(detect, detect, "score", "severity", basis)
    bm25 = detect.get("bm25")
    if bm25:
        st.markdown(
            "**The same chunk's BM25 score, reported apart** (no severity class reads it): "
            f"failures {bm25.get('failures')} · successes {bm25.get('successes')} · "
            f"measurable: {bm25.get('measurable')}"
            + (f" ({bm25['reason']})" if bm25.get("reason") else "")
        )
        _render_sweep(bm25, detect, "bm25", "severity_bm25", basis)


def _render_sweep(block: dict, detect: dict, field: str, key: str, basis: str | None) -> None:
    """One sweep block: the score it swept, named; its cut and test; its plots. The points
    are `field` of the cell's `by_instance`."""
    import streamlit as st

    label = score_label(block.get("score"))
    unscored = block.get("unscored")
    st.markdown(
        f"Score swept: `{block.get('score') or NOT_MEASURED}`, {label}"
        + (f" · unscored {unscored}" if unscored else "")
        + (f" ({block['unscored_reason']})" if block.get("unscored_reason") else "")
    )
    threshold = block.get("threshold")
    if threshold:
        st.markdown(
            f"Recorded threshold {threshold.get('cut')}: catches "
            f"{threshold.get('catches')}/{threshold.get('failures')}"
            " failures with "
            f"{threshold.get('false_positives')}/{threshold.get('successes')} false positives"
            f" · separable: {threshold.get('separable')} · "
            f"{threshold.get('label', 'in-sample diagnostic')}"
        )
    perm = block.get("permutation")
    if perm:
        st.markdown(
            f"Permutation test: p = {fmt_p(perm.get('p_value'))} ({perm.get('reshuffles')} "
            f"reshuffles, seed {perm.get('seed')})"
        )
    _plot_detectability(block, swept_points(detect, field), label, key, basis)


def _plot_detectability(
    block: dict, points: tuple[list[float], list[float]], label: str, key: str, basis: str | None
) -> None:
    """The recorded sweep, and each instance at its recorded score (read, never recomputed)."""
    import streamlit as st

    if block.get("sweep"):
        st.plotly_chart(
            sweep_figure(block["sweep"], label),
            key=f"{key}_sweep",
            config={"displayModeBar": False},
        )
    passing, failing = points
    if not (passing or failing):
        st.caption("No scored instances in this cell: nothing to plot.")
        return
    st.plotly_chart(
        detectability_figure(
            passing,
            failing,
            (block.get("threshold") or {}).get("cut"),
            f"recorded retrieval score: {label}",
        ),
        key=f"{key}_scores",
        config={"displayModeBar": False},
    )
    st.caption(
        f"Each dot is one instance (failure judged on {basis}) at its recorded {label}; "
        "the dashed line is the recorded cut, fitted on these same instances (no holdout)."
    )
