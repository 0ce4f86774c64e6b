"""Attribution: which component a generated answer's failure belongs to, per instance, read
from what the run recorded: the reply's grade, the oracle reply's grade (the same prompt
over only the chunks holding the gold spans, stack.oracle) and `gold_in_context`.

Precedence, the first that applies:
1. ``failed_call``: the reply's call failed (or retrieval did, so nothing was generated);
   never dropped, it stays in the cell's n.
2. ``correct``: the answer is right.
3. ``generation``: the record has no gold span (unanswerable) and was answered wrongly;
   it has no oracle, so no ceiling is measured for it (counted as ``no_oracle``).
4. ``failed_call``: the oracle's call failed, so the wrong answer cannot be attributed.
   A user pipeline's record without an `oracle:` entry (its `ceiling` says "not measured
   (no oracle entry)") is read from its contexts alone: ``generation`` when the gold was in
   them, else ``retrieval``; its cell's ``ceiling_reason`` says the ceiling was not measured.
5. ``ceiling``: the oracle reply is wrong too: the generator cannot answer even from the
   gold chunk, wherever the gold was.
6. ``generation``: the gold was in the retrieved context (every gold span whole in a
   retrieved chunk), the oracle answer is right, and the answer is wrong.
7. ``retrieval``: the gold was not in the retrieved context (missed, or cut by a boundary)
   and the oracle answer is right.

Attribution sits beside the severity classes and changes none of them.
"""

from __future__ import annotations

from ragaudit.analysis.cells import measure
from ragaudit.results.schema import ATTRIBUTIONS


def attribute(record: dict) -> str | None:
    """The record's attribution (see the module docstring); None when it has no generation
    or its file records no oracle for it (the run predates oracle contexts)."""
    generation = record.get("generation")
    if not generation or "oracle" not in record:
        return None
    if generation.get("status") == "failed_call":
        return "failed_call"
    if (record.get("grade") or {}).get("correct"):
        return "correct"
    oracle = record.get("oracle")
    if not oracle:
        if record.get("ceiling") and record.get("gold_spans"):
            # a black-box pipeline without an oracle entry: read from its contexts alone
            return "generation" if record.get("gold_in_context") is True else "retrieval"
        return "generation"
    if (oracle.get("generation") or {}).get("status") == "failed_call":
        return "failed_call"
    if not (oracle.get("grade") or {}).get("correct"):
        return "ceiling"
    return "generation" if record.get("gold_in_context") is True else "retrieval"


def attribute_cell(records: list[dict], generated: bool) -> dict | None:
    """Set each record's `attribution` and return the cell's counts: a measure (count/n)
    per value of ATTRIBUTIONS and `no_oracle` (answered without an oracle, no ceiling
    measured), over the records attributed. None when generation did not run on the cell
    or the file records no oracle for it."""
    for record in records:
        record["attribution"] = attribute(record) if generated else None
    values = [r["attribution"] for r in records if r["attribution"] is not None]
    if not values:
        return None
    n = len(values)
    counts = {name: measure(values.count(name), n) for name in ATTRIBUTIONS}
    no_oracle = sum(1 for r in records if r["attribution"] is not None and not r.get("oracle"))
    cell = {"n": n, **counts, "no_oracle": measure(no_oracle, n)}
    ceiling = next((r["ceiling"] for r in records if r.get("ceiling")), None)
    if ceiling is not None:  # a pipeline's records say why no ceiling was measured
        cell["ceiling_reason"] = f"ceiling: {ceiling}"
    return cell
