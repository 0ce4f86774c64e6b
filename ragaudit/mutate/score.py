"""The mutation score: per operator, the mutants the column handled over the mutants that
apply, with a Wilson interval. A mutant is handled when every phrasing of its intent that
passed the control row handled it; a phrasing that failed unmutated is left out of its
mutants' denominators and listed. Handled means, with generation, an answer graded correct
(an abstention for remove_answer); without it, the operator's retrieval-side measure."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ragaudit.analysis.stats import wilson_interval
from ragaudit.mutate.operators import CONTROL


def handled(record: dict, generate: bool) -> bool:
    """Whether one record handled its mutant (or passed its control)."""
    if generate and record.get("generation"):
        return bool((record.get("grade") or {}).get("correct"))
    return bool(record["mutation"].get("handled_retrieval"))


def mutation_section(
    results: dict, corpora: list, chosen: list, generate: bool, unmeasured: str | None = None
) -> dict:
    """The results file's `mutation` section (docs/mutate.md); `unmeasured`: why no
    operator can be scored (a pipeline without generation: its chunks are its own)."""
    by_probe: dict[str, list[dict]] = {}
    for record in results["instances"]:
        by_probe.setdefault(record["probe"], []).append(record)
        record["mutation"]["handled"] = handled(record, generate)
    control = {r["instance_id"]: r["mutation"]["handled"] for r in by_probe.get(CONTROL, [])}
    excluded = [] if unmeasured else sorted(case for case, ok in control.items() if not ok)
    scores, survivors, mutants = [], [], []
    for operator_corpus in corpora:
        name = operator_corpus.operator
        records = {r["instance_id"]: r for r in by_probe.get(name, [])}
        killed = applicable = excluded_here = 0
        for mutant in operator_corpus.mutants:
            entry = _mutant_json(mutant, operator_corpus)
            mine = [r for case, r in records.items() if r["meta"]["intent"] == mutant.intent]
            eligible = [r for r in mine if control.get(r["instance_id"], False)]
            entry["phrasings"] = {
                r["instance_id"]: {"handled": r["mutation"]["handled"],
                                   "control_passed": control.get(r["instance_id"], False),
                                   **_answer(r, mutant)}
                for r in mine
            }  # fmt: skip
            if name != CONTROL and mutant.applied:
                if unmeasured is not None:
                    entry["status"], entry["reason"] = "not_measured", unmeasured
                elif not eligible:
                    excluded_here += 1
                    entry["status"] = "excluded"
                    entry["reason"] = "every phrasing failed unmutated (control row)"
                else:
                    applicable += 1
                    lost = [r["instance_id"] for r in eligible if not r["mutation"]["handled"]]
                    entry["status"] = "survived" if lost else "killed"
                    killed += not lost
                    if lost:
                        survivors.append(_survivor(mutant, name, lost, entry["phrasings"]))
            mutants.append(entry)
        if name != CONTROL:
            reason = unmeasured or (
                f"every phrasing of its {excluded_here} mutant(s) failed unmutated (control row)"
                if excluded_here else None
            )  # fmt: skip
            scores.append(_score(name, killed, applicable, operator_corpus, reason))
    return {
        "basis": "answer" if generate else "retrieval",
        "unmeasured": unmeasured,
        "operators": [op.name for op in chosen],
        "scores": scores,
        "survivors": survivors,
        "excluded_cases": excluded,
        "control": {"cases": len(control), "passed": len(control) - len(excluded)},
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
    name: str, killed: int, applicable: int, corpus: Any, unmeasured: str | None = None
) -> dict:
    interval = list(wilson_interval(killed, applicable)) if applicable else None
    not_applicable = sum(1 for m in corpus.mutants if not m.applied)
    reason = unmeasured or "no mutant of this operator applies"
    return {
        "operator": name, "killed": killed, "applicable": applicable,
        "score": killed / applicable if applicable else None,
        "score_reason": None if applicable else reason,
        "wilson": interval, "not_applicable": not_applicable,
    }  # fmt: skip


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
