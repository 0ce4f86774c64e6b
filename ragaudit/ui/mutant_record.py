"""The Instance page on a mutation audit's file (`ragaudit mutate`): a cell is an operator
under the user's column, a record one phrasing asked against one mutant. What the page
adds for such a record: the mutant's status and rule, every phrasing of the mutant with
its retrieval-side measure, ranks, margin, reply, verdict and attribution, and the same
phrasing under the control row and every other operator. Read from the results file only.
"""

from __future__ import annotations

from ragaudit.report.mutation import control_row
from ragaudit.results.format import NOT_RUN, fmt_diagnostic, fmt_ratio
from ragaudit.results.view import mutant_of, phrasing_name

HANDLED_WORDS = {True: "handled", False: "not handled", None: "not measured"}
"""A record's `mutation.handled` in words (null: no measure could grade it)."""


def handled_words(record: dict) -> str:
    """What the score reads of this record: handled, not handled, or not measured."""
    return HANDLED_WORDS[(record.get("mutation") or {}).get("handled")]


def mutant_status(results: dict, record: dict) -> str:
    """The status of the mutant the record was asked against (`control` for the control
    row), as `mutation.mutants` records it."""
    return (mutant_of(results, record) or {}).get("status") or "not recorded"


def cell_line(results: dict, probe: str) -> str:
    """The operator's mutation score (killed / applicable with its interval) or the
    control row, as the report words them."""
    section = results.get("mutation") or {}
    if probe == "control" and section.get("control"):
        return control_row(section)
    score = next((s for s in section.get("scores") or [] if s["operator"] == probe), None)
    if score is None:
        return f"{probe}: no mutation score recorded."
    if score["applicable"]:
        shown = f"killed {fmt_ratio(score['killed'], score['applicable'], score['wilson'])}"
    else:
        shown = f"no score ({score.get('score_reason') or 'no applicable mutant'})"
    others = [
        f"{score[k]} {w}"
        for k, w in (("robust", "robust"), ("not_measured", "not measured"),
                     ("excluded", "excluded"), ("not_applicable", "not applicable"))
        if score.get(k)
    ]  # fmt: skip
    return f"Mutation score of {probe}: {shown}" + (f" · {', '.join(others)}" if others else "")


def table_row(results: dict, record: dict, verdict: str) -> dict:
    """One row of the cell's table: the phrasing, its mutant's status and what it read."""
    mutation = record.get("mutation") or {}
    return {
        "phrasing": phrasing_name(record),
        "mutant status": mutant_status(results, record),
        "handled": handled_words(record),
        "measure": mutation.get("measure") or NOT_RUN,
        "gold rank": fmt_diagnostic("gold_rank", record.get("gold_rank")),
        "trap rank": fmt_diagnostic("trap_rank", record.get("trap_rank")),
        "margin": fmt_diagnostic("margin", record.get("margin")),
        "verdict": verdict,
    }


def label(results: dict, record: dict) -> str:
    """The phrasing selectbox's words for a record."""
    return f"{phrasing_name(record)} · {mutant_status(results, record)} · {handled_words(record)}"


def render_mutant_head(results: dict, record: dict) -> None:
    """The mutant the record was asked against: its id, status and reason, and its rule."""
    import streamlit as st

    mutant = mutant_of(results, record)
    if mutant is None:
        st.caption("This record names no mutant the file's mutation section holds.")
        return
    reason = f" ({mutant['reason']})" if mutant.get("reason") else ""
    st.markdown(
        f"**Mutant `{mutant['mutant']}`**: status **{mutant['status']}**{reason} · "
        f"rule: {mutant.get('rule') or 'none'}"
    )
    expected = (
        "an abstention (the answer's fact is removed)"
        if mutant.get("expect") == "abstain"
        else ", ".join(f"`{v}`" for v in mutant.get("accept") or []) or "none recorded"
    )
    traps = ", ".join(f"`{v}`" for v in mutant.get("traps") or [])
    st.markdown(f"**Right behaviour**: {expected}" + (f" · trap: {traps}" if traps else ""))


def phrasing_rows(results: dict, record: dict) -> list[dict]:
    """Every phrasing of the record's mutant: its control status, the retrieval-side
    measure, ranks, margin and top score (drop), with its reply, verdict and attribution
    where answers were generated (as the mutation section records them, which the score
    reads)."""
    mutant = mutant_of(results, record) or {}
    name = (record.get("meta") or {}).get("mutant")
    records = {
        r["instance_id"]: r
        for r in results.get("instances") or []
        if (r.get("meta") or {}).get("mutant") == name and r["config"] == record["config"]
    }
    rows = []
    for case, entry in (mutant.get("phrasings") or {}).items():
        other = records.get(case) or {}
        mutation = other.get("mutation") or {}
        grade = other.get("grade") or {}
        drop = entry.get("top_score_drop", mutation.get("top_score_drop"))
        rows.append({
            "phrasing": case + (" (this)" if case == record["instance_id"] else ""),
            "control": entry.get("control"),
            "handled": HANDLED_WORDS[entry.get("handled")],
            "measure": mutation.get("measure") or NOT_RUN,
            "gold rank": fmt_diagnostic("gold_rank", other.get("gold_rank")),
            "trap rank": fmt_diagnostic("trap_rank", other.get("trap_rank")),
            "margin": fmt_diagnostic("margin", other.get("margin")),
            "top score": _score(mutation.get("top_score")),
            "top score drop": _score(drop),
            # the mutation section's words first (a remove_answer answer is a fabrication)
            "reply": entry.get("reply") or (other.get("generation") or {}).get("reply")
            or "not generated",
            "verdict": entry.get("verdict") or grade.get("verdict") or "not generated",
            "attribution": entry.get("attribution") or other.get("attribution") or "none",
        })  # fmt: skip
    return rows


def _score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def render_phrasings(results: dict, record: dict) -> None:
    """The table of the mutant's phrasings (this one marked)."""
    import streamlit as st

    rows = phrasing_rows(results, record)
    st.markdown(f"**Every phrasing of this mutant** ({len(rows)})")
    st.dataframe(rows, hide_index=True, width="stretch", key="instance_mutant_phrasings")
    st.caption(
        "A mutant is killed when every phrasing that passed the control row handled it; a "
        "phrasing that failed unmutated is left out (docs/mutate.md, Scores)."
    )


def across_operators(results: dict, record: dict) -> list[dict]:
    """The record's phrasing under the control row and every operator of the column."""
    rows = []
    for other in results.get("instances") or []:
        if other["instance_id"] != record["instance_id"] or other["config"] != record["config"]:
            continue
        rows.append({
            "operator": other["probe"] + (" (this)" if other["key"] == record["key"] else ""),
            "mutant": (other.get("meta") or {}).get("mutant"),
            "status": mutant_status(results, other),
            "handled": handled_words(other),
            "gold in context": fmt_diagnostic("gold_in_context", other.get("gold_in_context")),
            "verdict": _scored_verdict(results, other),
        })  # fmt: skip
    return rows


def _scored_verdict(results: dict, record: dict) -> str:
    """The record's verdict as its mutant's entry records it (the score's words), else its
    grade's."""
    scored = ((mutant_of(results, record) or {}).get("phrasings") or {}).get(
        record["instance_id"]
    ) or {}
    return scored.get("verdict") or (record.get("grade") or {}).get("verdict") or "not generated"


def render_across_operators(results: dict, record: dict) -> None:
    """The same phrasing against every mutant of its intent, the control row first."""
    import streamlit as st

    st.markdown("**The same phrasing under the control row and every operator**")
    rows = across_operators(results, record)
    st.dataframe(rows, hide_index=True, width="stretch", key="instance_across_operators")
