"""The mutation score: per operator, the mutants the column handled over the mutants that
apply, with a Wilson interval. A mutant is handled when every phrasing of its intent that
passed the control row handled it; a phrasing that failed unmutated is left out of its
mutants' denominators and listed. Handled means, with generation, an answer graded correct
(an abstention for remove_answer); without it, the operator's retrieval-side measure. A
phrasing no measure can grade (remove_answer without generation, something retrieved)
makes its mutant `not_measured`, outside the denominator, never a survivor."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ragaudit.analysis.stats import wilson_interval
from ragaudit.mutate.drop import REMOVE_ANSWER, drop_summary, record_drops
from ragaudit.mutate.operators import CONTROL

NOT_MEASURED = (
    "not measured: something was retrieved, and without generation no answer shows an abstention"
)


def handled(record: dict, generate: bool) -> bool | None:
    """Whether one record handled its mutant (or passed its control); None when nothing
    can say (no answer, and no retrieval-side measure decides)."""
    if generate and record.get("generation"):
        return bool((record.get("grade") or {}).get("correct"))
    value = record["mutation"].get("handled_retrieval")
    return None if value is None else bool(value)


def mutation_section(
    results: dict, corpora: list, chosen: list, generate: bool, unmeasured: str | None = None
) -> dict:
    """The results file's `mutation` section (docs/mutate.md); `unmeasured`: why no
    operator can be scored (a pipeline without generation: its chunks are its own)."""
    by_probe: dict[str, list[dict]] = {}
    for record in results["instances"]:
        by_probe.setdefault(record["probe"], []).append(record)
        record["mutation"]["handled"] = handled(record, generate)
    record_drops(by_probe)
    control = {r["instance_id"]: bool(r["mutation"]["handled"]) for r in by_probe.get(CONTROL, [])}
    excluded = [] if unmeasured else sorted(case for case, ok in control.items() if not ok)
    scores, survivors, mutants = [], [], []
    for operator_corpus in corpora:
        name = operator_corpus.operator
        records = {r["instance_id"]: r for r in by_probe.get(name, [])}
        killed = applicable = excluded_here = not_measured = 0
        for mutant in operator_corpus.mutants:
            entry = _mutant_json(mutant, operator_corpus)
            mine = [r for case, r in records.items() if r["meta"]["intent"] == mutant.intent]
            eligible = [r for r in mine if control.get(r["instance_id"], False)]
            entry["phrasings"] = {
                r["instance_id"]: {"handled": r["mutation"]["handled"],
                                   "control_passed": control.get(r["instance_id"], False),
                                   **_answer(r, mutant), **_drop(r)}
                for r in mine
            }  # fmt: skip
            if name != CONTROL and mutant.applied:
                if unmeasured is not None:
                    not_measured += 1
                    entry["status"], entry["reason"] = "not_measured", unmeasured
                elif not eligible:
                    excluded_here += 1
                    entry["status"] = "excluded"
                    entry["reason"] = "every phrasing failed unmutated (control row)"
                else:
                    outcomes = {r["instance_id"]: r["mutation"]["handled"] for r in eligible}
                    lost = [case for case, ok in outcomes.items() if ok is False]
                    if not lost and None in outcomes.values():
                        not_measured += 1
                        entry["status"], entry["reason"] = "not_measured", NOT_MEASURED
                    else:
                        applicable += 1
                        entry["status"] = "survived" if lost else "killed"
                        killed += not lost
                    if lost:
                        survivors.append(_survivor(mutant, name, lost, entry["phrasings"]))
            mutants.append(entry)
        if name != CONTROL:
            all_excluded = (
                f"every phrasing of its {excluded_here} mutant(s) failed unmutated (control row)"
            )
            reason = (
                unmeasured
                or (NOT_MEASURED if not_measured else None)
                or (all_excluded if excluded_here else None)
            )
            scores.append(_score(name, killed, applicable, not_measured, operator_corpus, reason))
    # a pipeline's scores are its own: no drop is summarised for it
    dropped = not unmeasured and any(op.name == REMOVE_ANSWER for op in chosen)
    return {
        "basis": "answer" if generate else "retrieval",
        "unmeasured": unmeasured,
        "operators": [op.name for op in chosen],
        "scores": scores,
        "survivors": survivors,
        "excluded_cases": excluded,
        "control": {"cases": len(control), "passed": len(control) - len(excluded)},
        "top_score_drop": drop_summary(by_probe.get(REMOVE_ANSWER, []), control)
        if dropped
        else None,
        "top_score_drop_reason": None if dropped else unmeasured or "remove_answer was not run",
        "mutants": mutants,
    }


def _survivor(mutant: Any, name: str, lost: list[str], phrasings: dict) -> dict:
    return {
        "mutant": mutant.mutant_id, "operator": name, "intent": mutant.intent,
        "phrasings": lost, "rule": mutant.rule,
        "verdicts": {c: phrasings[c].get("verdict") for c in lost},
        "attributions": {c: phrasings[c].get("attribution") for c in lost},
    }  # fmt: skip


def _answer(record: dict, mutant: Any) -> dict:
    """With generation: the phrasing's reply, its verdict (an answer where the mutant
    expects an abstention is a fabrication) and the analysis's attribution."""
    generation, grade = record.get("generation"), record.get("grade")
    if not generation:
        return {}
    verdict = (grade or {}).get("verdict")
    if mutant.expect == "abstain" and verdict == "wrong":
        verdict = "fabrication"
    return {
        "reply": generation.get("reply"), "verdict": verdict,
        "attribution": record.get("attribution"),
    }  # fmt: skip


def _score(
    name: str, killed: int, applicable: int, not_measured: int, corpus: Any,
    reason: str | None = None,
) -> dict:  # fmt: skip
    interval = list(wilson_interval(killed, applicable)) if applicable else None
    not_applicable = sum(1 for m in corpus.mutants if not m.applied)
    reason = reason or "no mutant of this operator applies"
    return {
        "operator": name, "killed": killed, "applicable": applicable,
        "score": killed / applicable if applicable else None,
        "score_reason": None if applicable else reason,
        "wilson": interval, "not_applicable": not_applicable, "not_measured": not_measured,
    }  # fmt: skip


def _drop(record: dict) -> dict:
    """A remove_answer phrasing's top score drop (control minus mutant), when recorded."""
    if "top_score_drop" not in record["mutation"]:
        return {}
    return {"top_score_drop": record["mutation"]["top_score_drop"]}


def _mutant_json(mutant: Any, corpus: Any) -> dict:
    docs = {d.doc_id: d for d in corpus.documents}
    doc = docs.get(mutant.mutant_doc_id) if mutant.mutant_doc_id else None
    original = corpus.originals.get(mutant.mutant_doc_id) if mutant.mutant_doc_id else None
    return {
        "mutant": mutant.mutant_id, "operator": mutant.operator, "intent": mutant.intent,
        "status": "control" if mutant.operator == CONTROL else (
            "applied" if mutant.applied else "not_applicable"),
        "reason": mutant.reason, "doc_id": mutant.doc_id, "mutant_doc_id": mutant.mutant_doc_id,
        "rule": mutant.rule, "expect": mutant.expect, "accept": list(mutant.accept),
        "traps": list(mutant.traps), "planted": [asdict(s) for s in mutant.planted],
        "removed": list(mutant.removed), "diff": mutant.diff,
        "validity": list(mutant.validity),
        "mutant_text": doc.text if doc is not None and original is not None else None,
    }  # fmt: skip
