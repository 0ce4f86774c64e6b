"""The top score drop when the answer is removed: remove_answer's retrieval-side measure
(issue 27). Per phrasing, the control row's top score minus the remove_answer mutant's top
score (same phrasing, same column, the full ranking's first score). Without generation no
answer can show an abstention, so this is what `--no-generate` can say: a column whose top
score falls far when the answer is gone gives a threshold something to refuse on; one whose
top score hardly moves hands the model a confident-looking context either way."""

from __future__ import annotations

from statistics import mean, median

from ragaudit.mutation.operator import PIPELINE_CHUNKS
from ragaudit.mutation.operators import CONTROL

REMOVE_ANSWER = "remove_answer"


def record_drops(by_probe: dict[str, list[dict]]) -> None:
    """Set `mutation.top_score_drop` on every remove_answer record (null with
    `top_score_drop_reason` where either top score is missing)."""
    control = {r["instance_id"]: r for r in by_probe.get(CONTROL, [])}
    for record in by_probe.get(REMOVE_ANSWER, []):
        mutation = record["mutation"]
        drop, reason = None, None
        before = control.get(record["instance_id"])
        if mutation.get("measure") == PIPELINE_CHUNKS:
            reason = PIPELINE_CHUNKS  # its contexts' scores are its own, if any
        elif before is None or before["mutation"].get("top_score") is None:
            reason = "the control row ranked nothing for this phrasing"
        elif mutation.get("top_score") is None:
            reason = "nothing was ranked once the answer was removed"
        else:
            drop = before["mutation"]["top_score"] - mutation["top_score"]
        mutation["top_score_drop"] = drop
        mutation["top_score_drop_reason"] = reason


def drop_summary(records: list[dict], control_passed: dict[str, bool]) -> dict:
    """Mean and median drop over the phrasings that passed the control row (the ones the
    score counts), and how many there were."""
    drops = [
        r["mutation"]["top_score_drop"] for r in records
        if control_passed.get(r["instance_id"]) and r["mutation"].get("top_score_drop") is not None
    ]  # fmt: skip
    if not drops:
        why = sorted({r["mutation"]["top_score_drop_reason"] for r in records} - {None})
        reason = "; ".join(why) or "no phrasing that passed the control row was asked"
        return {"n": 0, "mean": None, "median": None, "reason": reason}
    return {"n": len(drops), "mean": mean(drops), "median": median(drops), "reason": None}
