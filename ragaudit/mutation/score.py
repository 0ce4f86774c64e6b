"""The mutation score: per operator, the mutants the column handled over the mutants that
apply, with a Wilson interval. A mutant is handled when every phrasing of its intent that
the control row certifies handled it. The control row certifies a phrasing that passed
unmutated, was asked without a failed call, and (with generation) was not answered right
with no context at all (closed book: the model already knew, so no retrieval fault can
show). The others leave their mutants' denominators and are listed. Handled means, with
generation, an answer graded correct (an abstention for remove_answer); without it, the
operator's retrieval-side measure. A mutant no measure can grade, or whose call failed, is
`not_measured`, outside the denominator, never a survivor. A robust credit (the column
shown unable to fail this way, not a trial) is counted beside the score, never in it."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from typing import Any

from ragaudit.analysis.stats import wilson_interval
from ragaudit.mutation.drop import REMOVE_ANSWER, drop_summary, record_drops
from ragaudit.mutation.operators import CONTROL

NOT_MEASURED = (
    "not measured: something was retrieved, and without generation no answer shows an abstention"
)
FAILED_CALL = "not measured (failed call)"


def failed_call(record: dict) -> bool:
    """The record lost a model call (its retrieval, or its generation)."""
    generation = record.get("generation") or {}
    return record.get("retrieval_error") is not None or generation.get("status") == "failed_call"


def handled(record: dict, generate: bool) -> bool | None:
    """Whether one record handled its mutant (or passed its control); None when nothing
    can say (a failed call, no answer, and no retrieval-side measure decides)."""
    if failed_call(record):
        return None
    if generate and record.get("generation"):
        return bool((record.get("grade") or {}).get("correct"))
    value = record["mutation"].get("handled_retrieval")
    return None if value is None else bool(value)


def control_status(record: dict, known: set[str]) -> str:
    """`passed`, `failed_unmutated`, `failed_call` or `known_without_context`."""
    if failed_call(record):
        return "failed_call"
    if record["instance_id"] in known:
        return "known_without_context"
    return "passed" if record["mutation"]["handled"] else "failed_unmutated"


def mutation_section(
    results: dict, groups: list, chosen: list, generate: bool, unmeasured: str | None = None
) -> dict:
    """The results file's `mutation` section (docs/mutate.md); `groups`: the control
    row's entries, then each operator's mutants; `unmeasured`: why no operator can be
    scored (a pipeline without generation: its chunks are its own)."""
    by_probe: dict[str, list[dict]] = {}
    for record in results["instances"]:
        by_probe.setdefault(record["probe"], []).append(record)
        record["mutation"]["handled"] = handled(record, generate)
    record_drops(by_probe)
    closed = results.get("closed_book") or {}
    known = {case for case, entry in closed.items() if entry.get("known_without_context")}
    status = {r["instance_id"]: control_status(r, known) for r in by_probe.get(CONTROL, [])}
    control = {case: state == "passed" for case, state in status.items()}
    scores, survivors, mutants = [], [], []
    for group in groups:
        name = group.operator
        records = by_probe.get(name, [])
        tally: Counter = Counter()
        why: dict[str, str | None] = {}
        for mutant in group.mutants:
            entry = _mutant_json(mutant)
            mine = [r for r in records if r["meta"]["mutant"] == mutant.mutant_id]
            entry["phrasings"] = {
                r["instance_id"]: {"handled": r["mutation"]["handled"],
                                   "control": status.get(r["instance_id"]),
                                   "control_passed": control.get(r["instance_id"], False),
                                   "failed_call": failed_call(r),
                                   **_answer(r, mutant), **_drop(r)}
                for r in mine
            }  # fmt: skip
            if name != CONTROL and mutant.applied:
                verdict, reason, lost = _judge(mine, status, unmeasured)
                entry["status"], entry["reason"] = verdict, reason
                tally[verdict] += 1
                why[verdict] = why.get(verdict) or reason
                if lost:
                    survivors.append(_survivor(mutant, name, lost, entry["phrasings"]))
            mutants.append(entry)
        if name != CONTROL:
            scores.append(_score(name, tally, group, unmeasured or _no_score(tally, why)))
    # a pipeline's scores are its own: no drop is summarised for it
    dropped = not unmeasured and any(op.name == REMOVE_ANSWER for op in chosen)
    return {
        "basis": "answer" if generate else "retrieval",
        "unmeasured": unmeasured,
        "operators": [op.name for op in chosen],
        "scores": scores,
        "survivors": survivors,
        "excluded_cases": sorted(c for c, state in status.items() if state == "failed_unmutated"),
        "control": _control_row(by_probe.get(CONTROL, []), status),
        "top_score_drop": drop_summary(by_probe.get(REMOVE_ANSWER, []), control)
        if dropped
        else None,
        "top_score_drop_reason": None if dropped else unmeasured or "remove_answer was not run",
        "mutants": mutants,
    }


def _judge(mine: list[dict], status: dict, unmeasured: str | None) -> tuple[str, str | None, list]:
    """One applied mutant's status, its reason, and the phrasings that lost it."""
    if unmeasured is not None:
        return "not_measured", unmeasured, []
    eligible = [r for r in mine if status.get(r["instance_id"]) == "passed"]
    if not eligible:
        states = {status.get(r["instance_id"]) for r in mine}
        if states == {"known_without_context"}:
            return "closed_book", "every phrasing was answered right with no context", []
        if "failed_unmutated" not in states and "failed_call" in states:
            return "not_measured", f"{FAILED_CALL} on the control row", []
        return "excluded", "every phrasing failed unmutated or was known (control row)", []
    lost = [r["instance_id"] for r in eligible if r["mutation"]["handled"] is False]
    if lost:
        return "survived", None, lost
    if any(failed_call(r) for r in eligible):
        return "not_measured", FAILED_CALL, []
    if any(r["mutation"]["handled"] is None for r in eligible):
        return "not_measured", NOT_MEASURED, []
    return "killed", None, []


def _control_row(records: list[dict], status: dict) -> dict:
    """The control row's counts, both measures side by side: the answer span in the
    context (mutate's) and an expected source in the top k (the audit's)."""
    states = Counter(status.values())
    return {
        "cases": len(records), "passed": states["passed"],
        "failed_unmutated": states["failed_unmutated"], "failed_call": states["failed_call"],
        "known_without_context": states["known_without_context"],
        "span_in_context": sum(1 for r in records if r.get("gold_in_context")),
        "source_in_top_k": sum(1 for r in records if r["mutation"].get("source_in_top_k")),
    }  # fmt: skip


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


def _score(name: str, tally: Counter, group: Any, unmeasured: str | None) -> dict:
    killed, applicable = tally["killed"], tally["killed"] + tally["survived"]
    interval = list(wilson_interval(killed, applicable)) if applicable else None
    not_applicable = [m.reason for m in group.mutants if not m.applied and not m.robust]
    reason = unmeasured or "no mutant of this operator applies"
    return {
        "operator": name, "killed": killed, "applicable": applicable,
        "score": killed / applicable if applicable else None,
        "score_reason": None if applicable else reason,
        "wilson": interval, "robust": sum(1 for m in group.mutants if m.robust),
        "not_applicable": len(not_applicable),
        "not_applicable_reasons": dict(Counter(reason_kind(r) for r in not_applicable)),
        "not_measured": tally["not_measured"], "excluded": tally["excluded"],
        "closed_book": tally["closed_book"],
    }  # fmt: skip


def _no_score(tally: Counter, why: dict) -> str | None:
    """Why an operator with no measured mutant has no score: its first kind of unscored
    mutant's reason (not measured, then closed book, then excluded)."""
    for key, fallback in (
        ("not_measured", NOT_MEASURED),
        ("closed_book", "every phrasing of its mutants was known without context"),
        ("excluded", "every phrasing of its mutants failed unmutated (control row)"),
    ):
        if tally[key]:
            return why.get(key) or fallback
    return None


def reason_kind(reason: str | None) -> str:
    """A not-applicable reason's kind, what the closing table counts: its words before
    the first colon or parenthesis ("two forms", "validity check failed", ...)."""
    text = (reason or "unknown").split(":", 1)[0].split(" (", 1)[0].strip()
    return text[:80]


def _drop(record: dict) -> dict:
    """A remove_answer phrasing's top score drop (control minus mutant), when recorded."""
    if "top_score_drop" not in record["mutation"]:
        return {}
    return {"top_score_drop": record["mutation"]["top_score_drop"]}


def _mutant_json(mutant: Any) -> dict:
    doc = next((d for d in mutant.added if d.doc_id == mutant.mutant_doc_id), None)
    return {
        "mutant": mutant.mutant_id, "operator": mutant.operator, "intent": mutant.intent,
        "status": "control" if mutant.operator == CONTROL else mutant.status,
        "reason": mutant.reason, "doc_id": mutant.doc_id, "mutant_doc_id": mutant.mutant_doc_id,
        "rule": mutant.rule, "expect": mutant.expect, "accept": list(mutant.accept),
        "traps": list(mutant.traps), "planted": [asdict(s) for s in mutant.planted],
        "removed": list(mutant.removed), "removed_facts": list(mutant.removed_facts),
        "dropped_documents": list(mutant.dropped),
        "added_documents": [d.doc_id for d in mutant.added],
        "diff": mutant.diff, "validity": list(mutant.validity),
        "mutant_text": doc.text if doc is not None else None,
    }  # fmt: skip
