"""The Compare page on mutation audits' files (`ragaudit mutate`): two runs over the same
corpus and the same cases (two stacks, two settings) paired by mutant id, operator by
operator: each run's score as its file records it, the mutants killed by one run only,
and an exact McNemar test on those. A mutation audit beside a planted-matrix run, or two
audits of other corpora or other cases, are not paired, in one line saying why."""

from __future__ import annotations

from dataclasses import dataclass, field

from ragaudit.analysis.stats import mcnemar_exact
from ragaudit.results import mutation
from ragaudit.results.format import fmt_p
from ragaudit.results.view import is_mutation_audit, mutant_entries

SCORED = ("killed", "survived")
"""The statuses a score counts (docs/results-schema.md: only these are applicable)."""


@dataclass(frozen=True)
class MutantComparison:
    """Two mutation audits side by side."""

    paired: bool
    reason: str
    """Why they are paired, or why not."""
    rows: list[dict] = field(default_factory=list)
    """Per operator: both scores, the mutants scored in both, killed by one run only."""
    changed: list[dict] = field(default_factory=list)
    """Every mutant whose status differs between the runs."""


def why_not_paired(a: dict, b: dict) -> str | None:
    """One line saying why runs A and B cannot be paired by mutant id; None when they can
    (two mutation audits of one corpus and one set of phrasings: results.mutation)."""
    kinds = [is_mutation_audit(a), is_mutation_audit(b)]
    if kinds != [True, True]:
        which = "A" if kinds[0] else "B"
        return (
            f"Run {which} is a mutation audit (`ragaudit mutate`) and the other a planted-"
            "matrix run: one scores mutants of your corpus per operator, the other failed "
            "instances of the planted corpus per probe, so nothing pairs. Choose two "
            "mutation audits of the same corpus and cases."
        )
    reason = mutation.why_not_paired(a, b)
    return None if reason is None else f"The two audits have {reason}."


def compare_mutation_audits(a: dict, b: dict) -> MutantComparison:
    """Runs A and B paired by mutant id (see the module docstring)."""
    refusal = why_not_paired(a, b)
    if refusal is not None:
        return MutantComparison(False, refusal)
    mutants_a, mutants_b = mutant_entries(a), mutant_entries(b)
    scores_a = {s["operator"]: s for s in (a.get("mutation") or {}).get("scores") or []}
    scores_b = {s["operator"]: s for s in (b.get("mutation") or {}).get("scores") or []}
    rows, changed = [], []
    for operator in dict.fromkeys([*scores_a, *scores_b]):
        both = [
            (m, mutants_b[name])
            for name, m in mutants_a.items()
            if m["operator"] == operator
            and name in mutants_b
            and m["status"] in SCORED
            and mutants_b[name]["status"] in SCORED
        ]
        only_a = sum(1 for x, y in both if (x["status"], y["status"]) == SCORED)
        only_b = sum(1 for x, y in both if (y["status"], x["status"]) == SCORED)
        rows.append({
            "operator": operator,
            f"A: {mutation.column_name(a)}": _score(scores_a.get(operator)),
            f"B: {mutation.column_name(b)}": _score(scores_b.get(operator)),
            "scored in both": len(both),
            "killed by A only": only_a,
            "killed by B only": only_b,
            "McNemar p": fmt_p(mcnemar_exact(only_b, only_a)) if both else "n/a",
        })  # fmt: skip
    for name, m in mutants_a.items():
        other = mutants_b.get(name)
        if other is not None and other["status"] != m["status"]:
            changed.append({
                "mutant": name, "A": m["status"], "B": other["status"],
                "same planted text": "yes" if m.get("diff") == other.get("diff") else "no",
            })  # fmt: skip
    reason = (
        f"Paired by mutant id: the same corpus (sha256 {a['corpus']['sha256'][:12]}…) and "
        f"the same {len(mutation.questions(a))} phrasings. A mutant planted for each column's "
        "splitter (boundary, table_split) may differ in its text: 'same planted text' says."
    )
    return MutantComparison(True, reason, rows, changed)


def _score(score: dict | None) -> str:
    return "not run" if score is None else mutation.score_text(score)


def render_mutation_compare(a: tuple[str, dict], b: tuple[str, dict]) -> None:
    """The Compare page for files of which one or both are mutation audits."""
    import streamlit as st

    compared = compare_mutation_audits(a[1], b[1])
    if not compared.paired:
        st.warning(compared.reason)
        return
    st.success(compared.reason)
    st.dataframe(compared.rows, hide_index=True, width="stretch", key="compare_mutant_scores")
    st.subheader(f"Mutants whose status differs ({len(compared.changed)})")
    if compared.changed:
        st.dataframe(
            compared.changed, hide_index=True, width="stretch", key="compare_mutant_changes"
        )
    else:
        st.write("Every mutant has the same status in both runs.")
