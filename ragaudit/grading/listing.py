"""Grading a list answer: which required items are named, and the labels-only shape."""

from __future__ import annotations

from ragaudit.grading.text import abstains, find_phrase, strip_citations


def grade_list(reply: str, spec: dict) -> dict:
    """Verdict for a list question. `spec`: {"items": [...], "labels": [...]}.

    All items named -> correct; some -> partial_list; none named but item labels
    enumerated ("exception 4, exception 2") -> labels_only, the fluent contentless list.
    """
    text = strip_citations(reply)
    items = [str(v) for v in spec.get("items") or []]
    labels = [str(v) for v in spec.get("labels") or []]
    named = [item for item in items if find_phrase(item, text) is not None]
    labels_named = [label for label in labels if find_phrase(label, text) is not None]
    result_extra = {"items_named": named, "labels_named": labels_named}
    if items and len(named) == len(items):
        return {"verdict": "correct", "correct": True, "branch": "list:all_items", **result_extra}
    if named:
        branch = f"list:partial:{len(named)}_of_{len(items)}"
        return {"verdict": "partial_list", "correct": False, "branch": branch, **result_extra}
    if abstains(text):
        return {
            "verdict": "abstained",
            "correct": False,
            "branch": "abstention_pattern",
            **result_extra,
        }
    if labels_named:
        branch = f"list:labels_only:{len(labels_named)}_labels"
        return {"verdict": "labels_only", "correct": False, "branch": branch, **result_extra}
    return {"verdict": "wrong", "correct": False, "branch": "list:no_items", **result_extra}
