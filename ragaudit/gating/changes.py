"""What a lost instance lost, read from its two records (nothing is rerun): the gold left
the context, the answer became the trap value, the model abstained, the call failed, …"""

from __future__ import annotations

from dataclasses import dataclass

VERDICT_WORDS = {
    "trap_taken": "the answer became the trap value",
    "abstained": "the model abstained",
    "wrong": "the answer became wrong",
    "partial_list": "the answer became a partial list",
    "labels_only": "the answer gave labels only",
    "denied_record": "the answer denied the record exists",
    "empty": "the reply became empty",
    "failed_call": "the model call failed",
}
"""A new run's grade verdict, as the change a reader sees."""


@dataclass(frozen=True)
class LostInstance:
    """One instance that passed in the baseline and fails in the new run."""

    instance_id: str
    probe: str
    config: str
    """The new run's config (`B → A_prime` names both in the cell)."""
    change: str


def _rank(record: dict) -> str:
    rank, k = record.get("gold_rank"), record.get("k")
    if rank is None:
        return "not retrieved"
    outside = f", outside the top {k}" if isinstance(k, int) and rank > k else ""
    return f"rank {rank}{outside}"


def _retrieval_change(before: dict, after: dict) -> str | None:
    if after.get("retrieval_error"):
        return f"retrieval failed ({after['retrieval_error']})"
    if before.get("gold_in_context") and not after.get("gold_in_context"):
        return f"gold left the context (was {_rank(before)}, now {_rank(after)})"
    return None


def _reply(record: dict) -> str:
    reply = ((record.get("generation") or {}).get("reply") or "").strip().replace("\n", " ")
    return reply if len(reply) <= 80 else reply[:79] + "…"


def _answer_change(after: dict) -> str:
    generation = after.get("generation") or {}
    if generation.get("status") not in (None, "ok"):
        return f"the model call failed ({generation.get('error') or generation.get('status')})"
    grade = after.get("grade") or {}
    verdict = grade.get("verdict") or "not graded"
    words = VERDICT_WORDS.get(verdict, f"the answer became {verdict}")
    return f"{words}: {_reply(after)!r} (grader branch {grade.get('branch') or 'none'})"


def what_changed(before: dict, after: dict, measure: str) -> str:
    """One sentence: the change between a passing record and its failing pair."""
    retrieval = _retrieval_change(before, after)
    if measure == "gold_in_context":
        return retrieval or "gold in context became false"
    answer = _answer_change(after)
    return f"{retrieval}; {answer}" if retrieval else answer


def lost_instances(
    losses: tuple[str, ...], before: dict[str, dict], after: dict[str, dict], measure: str
) -> list[LostInstance]:
    """The lost instances of one cell, each with what changed."""
    return [
        LostInstance(
            i, after[i]["probe"], after[i]["config"], what_changed(before[i], after[i], measure)
        )
        for i in losses
    ]
