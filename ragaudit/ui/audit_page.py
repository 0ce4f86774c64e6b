"""The Audit page: a user's own retrieval audit (`ragaudit audit`) read from its results
file. A phrasing × source rank grid, the per-intent spread with red flags, one phrasing's
top-k after the slot policy, the dilution list and the failures. Every figure is read from
the file; nothing is recomputed here.

Until the user's own audit exists, the page shows the worked example's (EXAMPLE_AUDIT:
`EXAMPLE_COMMAND` run on examples/audit, shipped with ragaudit), labelled as an example,
as the reference run is labelled a recorded run."""

from __future__ import annotations

from pathlib import Path

from ragaudit.auditing.report import AUDIT_RESULTS, default_audit_path, structure_words
from ragaudit.errors import RagauditError
from ragaudit.results.format import fmt_ratio, fmt_window
from ragaudit.ui import links
from ragaudit.ui.allowed import Refused, given_path, url_path
from ragaudit.ui.code_checks import render_code_checks
from ragaudit.ui.data import read_cached

QUERY_PARAM = "audit_results"
EXAMPLE_AUDIT = Path(__file__).resolve().parent.parent / "assets" / "examples" / "audit.json"
"""The example's results, written by EXAMPLE_COMMAND (with `--out` this file) from the
checkout's root: pyproject's package-data ships it."""
EXAMPLE_COMMAND = (
    "ragaudit audit examples/audit/corpus examples/audit/cases.yaml "
    "--settings examples/audit/prod.yaml --dilution"
)


def audit_results_path(query_value: str | None = None) -> Path:
    """`?audit_results=` wins (only a file allowed.url_path allows: else Refused), then
    $RAGAUDIT_AUDIT_RESULTS, then data/results/audit-latest.json."""
    if query_value:
        return url_path(query_value, QUERY_PARAM)
    return given_path(QUERY_PARAM) or default_audit_path()


def load_audit(path: Path) -> tuple[dict | None, str | None]:
    """The results (cached on the file's mtime and size), or None and the one-line reason
    (missing, not an audit file, ...)."""
    if not path.exists():
        return None, None
    try:
        return read_cached(path, AUDIT_RESULTS), None
    except RagauditError as error:
        return None, str(error)


def rank_cell(case: dict, source: dict) -> str:
    """`5 ✓` in the top-k, `21 ✗` out of it, `— ✗` below the ranking depth, `✓*` backfilled."""
    if case["status"] == "failed_call":
        return "failed call"
    rank = "—" if source["rank"] is None else str(source["rank"])
    mark = "✓" if source["in_top_k"] else "✗"
    return f"{rank} {mark}{'*' if source['via_backfill'] else ''}"


def rank_grid(results: dict) -> list[dict]:
    """One row per phrasing, one column per expected source (blank where not expected)."""
    sources = list(dict.fromkeys(s["source"] for case in results["cases"] for s in case["sources"]))
    rows = []
    for case in results["cases"]:
        row = {"case": case["case_id"], "verdict": case["status"]}
        mine = {s["source"]: s for s in case["sources"]}
        for source in sources:
            row[source] = rank_cell(case, mine[source]) if source in mine else ""
        row["question"] = case["question"]  # last: long text would hide the rank columns
        rows.append(row)
    return rows


def _grid_colour(value: object) -> str:
    text = str(value)
    if text.endswith(("✓", "✓*")) or text == "pass":
        return "background-color: #b7e1cd"
    if text.endswith("✗") or text in ("fail", "failed call", "failed_call"):
        return "background-color: #f4c7c3"
    return ""


def render() -> None:
    """Draw the Audit page."""
    import pandas as pd
    import streamlit as st

    st.title("Audit: your own retrieval")
    try:
        path = audit_results_path(st.query_params.get(QUERY_PARAM))
    except Refused as refusal:
        st.error(f"Cannot show the audit: {refusal}")
        st.stop()
        return
    results, problem = load_audit(path)
    if results is None and problem is None and path == default_audit_path():
        results, problem = load_audit(EXAMPLE_AUDIT)
        if results is not None:
            _example_label(st, results, path)
            path = EXAMPLE_AUDIT
    if results is None:
        if problem:
            st.error(f"Cannot show the audit: {problem}")
        else:
            st.write(f"No audit results yet at `{path}`. Make some with:")
            st.code(EXAMPLE_COMMAND, language="bash")
        render_code_checks()  # drift and harness-check results need no audit results
        st.stop()
        return

    k = results["settings"]["values"]["k"]
    _headline(st, results, path, k)
    _structure(st, results)
    if not results["cases"]:
        st.info(f"No phrasings in this audit: {results.get('index_reason')}.")
        _dilution(st, results)
        _failures(st, results)
        render_code_checks()
        return

    st.subheader(f"Rank of each expected source, per phrasing (top-{k} after the slot policy)")
    grid = pd.DataFrame(rank_grid(results))
    st.dataframe(grid.style.map(_grid_colour), hide_index=True, width="stretch")
    st.caption(
        f"rank ✓ = in the top-{k} the model sees; ✗ = not; * = only through the floor's "
        "backfill; — = below the ranking depth or not indexed."
    )

    _spread(st, results, k)
    _rank_chart(st, results, k)
    _case_detail(st, results)
    _dilution(st, results)
    _failures(st, results)
    render_code_checks()  # drift and harness-check, when their results files are present


def _example_label(st, results: dict, own: Path) -> None:
    """Say the audit shown is the shipped example's, and where the user's own will be."""
    written = str(results.get("created_at") or "")[:10]
    st.info(
        f"Example audit: the worked example's result (examples/audit in the source "
        f"checkout, a tiny tax-law corpus), written {written} by the command below and "
        f"shipped with ragaudit; not an audit of your corpus. Your own appears here once "
        f"`ragaudit audit` writes `{own}`.",
        icon=":material/science:",
    )
    st.code(EXAMPLE_COMMAND, language="bash")


def _headline(st, results: dict, path: Path, k: int) -> None:
    settings, summary = results["settings"], results["summary"]
    st.caption(
        f"`{path}` · written {results['created_at']} · settings "
        f"{settings['values'].get('name') or settings['path']} · embedder "
        f"{settings['values']['embedder']} · k={k}"
    )
    cols = st.columns(4)
    cols[0].metric("phrasings pass", fmt_ratio(summary["passed"], summary["cases"]))
    cols[1].metric("failed embedding calls", summary["failed_calls"])
    cols[2].metric("chunks not embedded", summary["passage_embedding_failures"])
    cols[3].metric("files skipped", results["corpus"]["skipped_count"])


def _spread(st, results: dict, k: int) -> None:
    st.subheader("Spread across phrasings, per intent")
    spread_rows = []
    for intent in results["intents"]:
        for row in intent["sources"]:
            spread_rows.append(
                {
                    "intent": intent["intent"],
                    "source": row["source"],
                    "phrasings pass": fmt_ratio(intent["passed"], intent["phrasings"]),
                    "ranks": ", ".join("—" if r is None else str(r) for r in row["ranks"].values()),
                    "spread": row["spread"],
                    f"in top-{k}": fmt_ratio(row["in_top_k_count"], row["phrasings"]),
                    "red flag": "RED FLAG" if row["red_flag"] else "",
                }
            )
    st.dataframe(spread_rows, hide_index=True, width="stretch")
    flagged = [i["intent"] for i in results["intents"] if i["red_flag"]]
    if flagged:
        st.warning(
            "Red flag: a phrasing pushes a key source out of the top-k while another keeps it "
            f"in, for {', '.join(flagged)}."
        )


def _structure(st, results: dict) -> None:
    counts, flags = structure_words(results["structure"])
    st.write(f"Structural check: {counts}.")
    for flag in flags:
        st.warning(f"{flag[:1].upper()}{flag[1:]}.")
    index = results.get("index")
    if index:  # chunks past the embedder's window are embedded only in part, silently
        window = fmt_window(index) + "."
        (st.warning if index.get("over_window") else st.caption)(f"Input window: {window}")


def _rank_chart(st, results: dict, k: int) -> None:
    import plotly.graph_objects as go

    fig = go.Figure()
    sources = list(dict.fromkeys(s["source"] for c in results["cases"] for s in c["sources"]))
    for source in sources:
        xs, ys = [], []
        for case in results["cases"]:
            hit = next((s for s in case["sources"] if s["source"] == source), None)
            if hit is not None and hit["rank"] is not None:
                xs.append(hit["rank"])
                ys.append(case["case_id"])
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=source, marker={"size": 11}))
    fig.add_vline(x=k + 0.5, line_dash="dash", annotation_text=f"k={k}")
    fig.update_layout(
        title="Where each expected source ranks, per phrasing",
        xaxis_title="rank of the source's best chunk",
        height=120 + 28 * len(results["cases"]),
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
    )
    fig.update_yaxes(autorange="reversed")
    st.plotly_chart(fig, width="stretch", key="audit_rank_chart")


def _case_detail(st, results: dict) -> None:
    case_ids = [c["case_id"] for c in results["cases"]]
    st.subheader("One phrasing: what the model would see")
    links.bind("audit_case", "audit_case", case_ids)
    chosen = st.selectbox("Phrasing", case_ids, key="audit_case")
    links.publish("audit_case", "audit_case")
    case = next(c for c in results["cases"] if c["case_id"] == chosen)
    st.markdown(f"**{case['question']}** · verdict `{case['status']}`")
    if case["status"] == "failed_call":
        st.error(f"The question could not be embedded: {case['error']}")
        return
    st.dataframe(case["top_k"], hide_index=True, width="stretch")
    policy = case["policy"]
    parts = [
        f"{policy['below_threshold']} below the score threshold",
        f"{policy['skipped_by_cap']} skipped by the per-source cap",
    ]
    if policy["floor_slots"] is not None:
        parts.append(
            f"floor {policy['floor_present_before']}/{policy['floor_slots']} before backfill, "
            f"{policy['floor_backfilled']} backfilled, {policy['floor_unfilled']} left unfilled; "
            f"{policy['floor_type_in_backfill_range']} of the floor's type within the backfill "
            "range"
        )
    st.caption("Slot policy: " + "; ".join(parts) + ".")


def _dilution(st, results: dict) -> None:
    st.subheader("Long-document dilution")
    dilution = results.get("dilution")
    if not dilution:
        st.caption(f"No dilution report: {results.get('dilution_reason')}.")
        return
    rows = [
        {
            "chunk": c["chunk_id"],
            "chars": c["chars"],
            "subsection markers": c["markers"],
            "splitter": "would split" if c["would_split"] else (c["excluded_by"] or "no markers"),
            "starts": c["preview"],
        }
        for c in dilution["longest_chunks"]
    ]
    st.dataframe(rows, hide_index=True, width="stretch")
    split = dilution["splitter"]
    st.write(
        f"Subsection splitter ({'applied' if split['applied'] else 'not applied'} by these "
        f"settings): {split['split']} of {split['candidates']} documents with markers split "
        f"into {split['children']} subsections, {split['excluded']} excluded."
    )
    st.dataframe(
        [{"exclusion rule": r, "documents": n} for r, n in split["excluded_by_rule"].items()],
        hide_index=True,
    )
    cap = dilution["per_source_cap"]
    st.caption(
        f"Per-source cap: {cap} slots per source."
        if cap is not None
        else f"Per-source cap: none. {dilution['per_source_cap_reason']}."
    )


def _failures(st, results: dict) -> None:
    failures = results["conditions"]["embedding_failures"]
    skipped = results["corpus"]["skipped"]
    if failures:
        st.subheader(f"Embedding failures ({len(failures)}, kept in the denominator)")
        st.dataframe(failures, hide_index=True, width="stretch")
    if skipped:
        st.subheader(f"Files skipped ({len(skipped)})")
        st.dataframe(skipped, hide_index=True, width="stretch")
