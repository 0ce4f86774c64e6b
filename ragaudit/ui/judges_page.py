"""Judges: how often each LLM-judge metric misses a planted fault, from a judges scorecard.

A metric x probe heatmap of recall (the share of what should be flagged that the metric
flagged); a click on a cell, or the two pickers under it, opens the records of that probe
the metric passed though they were wrong (for a context metric: though the gold was
missed), each with the metric's own reasoning beside ragaudit's verdict and branch. The
scorecard shown is RAGAUDIT_JUDGES, else the data folder's results/judges.json, else the
reference scorecard shipped with ragaudit (labelled as recorded)."""

from __future__ import annotations

from pathlib import Path

from ragaudit.judges.format import fmt_score, fmt_share
from ragaudit.judges.scorecard import load_scorecard, scorecard_to_show, shipped_scorecard
from ragaudit.report.judges import SUMMARY_HEADERS, conditions_text, findings, summary_rows
from ragaudit.results.palette import GOOD_SCALE, NOT_RUN_FILL
from ragaudit.ui.charts import clicked_cell
from ragaudit.ui.common import link_params
from ragaudit.ui.pages import PAGES

CHART_KEY = "judges_heatmap"
REPLY_CHARS = 1500


def recall_grid(scorecard: dict) -> tuple[list[str], list[str], list[list[dict | None]]]:
    """(metrics, probes, cells): each cell the metric's recall on the probe, None when the
    probe had nothing the metric should flag."""
    metrics = [m["name"] for m in scorecard["metrics"]]
    probes = sorted({s["probe"] for s in scorecard["samples"]})
    cells = []
    for metric in metrics:
        by_probe = scorecard["summary"][metric]["by_probe"]
        row = []
        for probe in probes:
            recall = (by_probe.get(probe) or {}).get("recall")
            row.append(recall if recall and recall["n"] else None)
        cells.append(row)
    return metrics, probes, cells


def missed_records(scorecard: dict, metric: str, probe: str) -> list[dict]:
    """The records of `probe` that `metric` should have flagged and passed (run 1), each
    with its sample and evaluation."""
    samples = {s["key"]: s for s in scorecard["samples"]}
    evaluations = {
        (e["key"], e["metric"]): e for e in scorecard["evaluations"] if e["repetition"] == 1
    }
    missed = scorecard["summary"][metric]["by_probe"].get(probe, {}).get("missed", [])
    return [{"sample": samples[k], "evaluation": evaluations[(k, metric)]} for k in missed]


def heatmap_figure(metrics: list[str], probes: list[str], cells: list[list[dict | None]]):
    import plotly.graph_objects as go

    z = [[None if c is None else c["count"] / c["n"] for c in row] for row in cells]
    text = [["—" if c is None else fmt_share(c) for c in row] for row in cells]
    custom = [[[m, p] for p in probes] for m in metrics]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=probes,
            y=metrics,
            text=text,
            texttemplate="%{text}",
            customdata=custom,
            colorscale=GOOD_SCALE,
            zmin=0,
            zmax=1,
            showscale=False,
            hovertemplate="%{y} on %{x}: recall %{text}<extra></extra>",
            hoverongaps=False,
        )
    )
    fig.update_layout(
        height=90 + 60 * len(metrics),
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        plot_bgcolor=NOT_RUN_FILL,
        xaxis={"side": "top"},
        yaxis={"autorange": "reversed"},
    )
    return fig


def _load(path: Path) -> dict:
    import streamlit as st

    @st.cache_data(show_spinner=False)
    def cached(path_text: str, stamp: float) -> dict:
        return load_scorecard(path_text)

    return cached(str(path), path.stat().st_mtime)


def render() -> None:
    """Draw the Judges page."""
    import streamlit as st

    from ragaudit.errors import RagauditError

    st.title("Judges: how often LLM-judge metrics miss a planted fault")
    path = scorecard_to_show()
    if path is None or not path.is_file():
        st.write(
            "No judges scorecard yet: run `ragaudit judges --results <results file>` "
            "(see docs/judges.md)."
        )
        return
    try:
        scorecard = _load(path)
    except RagauditError as error:
        st.error(f"Cannot show the scorecard: {error}")
        return
    shipped = shipped_scorecard()
    if shipped is not None and path.resolve() == shipped.resolve():
        st.info(
            "Recorded reference scorecard, shipped with ragaudit: the shipped reference run "
            f"judged on the project's machine (written {scorecard['created_at'][:10]})."
        )
    st.caption(conditions_text(scorecard))
    for line in findings(scorecard):
        st.markdown(f"- {line}")
    rows = summary_rows(scorecard)
    st.dataframe([dict(zip(SUMMARY_HEADERS, row, strict=True)) for row in rows], hide_index=True)
    metrics, probes, cells = recall_grid(scorecard)
    st.subheader("Recall per probe")
    st.caption("Click a cell to open the wrong records the metric passed.")
    event = st.plotly_chart(
        heatmap_figure(metrics, probes, cells),
        key=CHART_KEY,
        on_select="rerun",
        selection_mode="points",
        config={"displayModeBar": False},
    )
    clicked = clicked_cell(event)
    if clicked and clicked[0] in metrics and clicked[1] in probes:
        st.session_state["judges_metric"], st.session_state["judges_probe"] = clicked
        st.query_params["metric"], st.query_params["probe"] = clicked
    _seed_pickers(metrics, probes)
    left, right = st.columns(2)
    metric = left.selectbox("Metric", metrics, key="judges_metric")
    probe = right.selectbox("Probe", probes, key="judges_probe")
    _render_missed(scorecard, metric, probe)


def _seed_pickers(metrics: list[str], probes: list[str]) -> None:
    """The pickers start from the URL's metric and probe (a shared link opens the cell)."""
    import streamlit as st

    pickers = (("judges_metric", "metric", metrics), ("judges_probe", "probe", probes))
    for key, name, valid in pickers:
        wanted = st.query_params.get(name)
        if key not in st.session_state and wanted in valid:
            st.session_state[key] = wanted


def _render_missed(scorecard: dict, metric: str, probe: str) -> None:
    import streamlit as st

    measures = next(m["measures"] for m in scorecard["metrics"] if m["name"] == metric)
    what = "wrong answers" if measures == "answer" else "records whose gold was missed"
    records = missed_records(scorecard, metric, probe)
    st.subheader(f"{metric} passed {len(records)} {what} on {probe}")
    for item in records:
        sample, evaluation = item["sample"], item["evaluation"]
        with st.container(border=True):
            gold = {True: "yes", False: "no"}.get(sample["gold_in_context"], "—")
            st.markdown(
                f"**{sample['key']}**: ragaudit's verdict **{sample['verdict']}** "
                f"(branch `{sample['branch']}`), gold in context: {gold}"
            )
            left, right = st.columns(2)
            left.markdown(f"Question: {sample['question']}")
            left.markdown(f"Answer: {sample['answer'] or '(empty)'}")
            left.markdown(f"Reference: {sample['reference'] or '(none)'}")
            right.markdown(f"Metric's score: **{fmt_score(evaluation)}**")
            right.markdown(f"Metric's reason: {evaluation.get('reason') or '(none given)'}")
            with st.expander(f"The judge's {len(evaluation['judge_replies'])} replies"):
                for reply in evaluation["judge_replies"]:
                    st.code(reply[:REPLY_CHARS], language=None)
            embedder = sample["key"].rsplit("/", 1)[-1]
            params = link_params(probe=sample["probe"], config=sample["config"], embedder=embedder)
            if st.button("Open on the Instance page", key=f"judges_open_{sample['key']}_{metric}"):
                st.switch_page(PAGES["instance"], query_params=params)
