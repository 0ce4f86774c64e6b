"""Why a cell failed, in one line, read from the diagnostics its failing records carry.

No sentence belongs to a probe: each clause belongs to a recorded field (a span cut by the
boundary, two spans apart, a hop that did not arrive, the gold ranked below k, a trap ranked
above the gold, the reply's verdict, the oracle reply's), and the clause the most failing
records share is the one said, with the figures (span lengths, chunk size and overlap, ranks,
counts) read from those records. Change a recorded diagnostic and the line changes with it.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable

Clause = tuple[int, str]
"""(failing records it holds for, the words before `in c of f`)."""

VERDICT_WORDS = {
    "trap_taken": "the reply gave the trap's value",
    "abstained": "the reply abstained",
    "partial_list": "the reply named only part of the list",
    "labels_only": "the reply named the labels without their values",
    "denied_record": "the reply denied a record the context holds",
    "wrong": "the reply gave a wrong answer",
    "empty": "the reply was empty",
    "failed_call": "the generation call failed",
}
"""A verdict's words; a verdict not listed is said by its recorded name."""


def failing_records(cell: dict, records: list[dict]) -> list[dict]:
    """The cell's records that failed: the flags analysis recorded per instance
    (`detectability.by_instance`), else the cell's failure basis read off each record."""
    flags = (cell.get("detectability") or {}).get("by_instance") or {}
    if flags:
        return [r for r in records if (flags.get(r["instance_id"]) or {}).get("failed")]
    if cell.get("failure_basis") == "answer":
        return [r for r in records if not (r.get("grade") or {}).get("correct")]
    return [r for r in records if r.get("gold_in_context") is not True]


def why_line(cell: dict, records: list[dict], config: dict | None) -> str:
    """One line: the cause the most failing records share (a span cut, two spans apart, a
    hop or items that did not arrive) and, among the records whose span was not cut, how
    the gold ranked; then, when the cell generated, the commonest verdict and the oracle's
    ceiling. Each clause says `in c of f` and is said only when it holds for at least half
    the f failures (a reply clause always is)."""
    failed = failing_records(cell, records)
    if not failed:
        return "no failing record is in this file"
    config = config or {}
    whole = [r for r in failed if r.get("span_preserved") is not False]
    parts = [
        _best([clause(failed, config) for clause in CAUSE_CLAUSES], len(failed)),
        _best([clause(whole, config) for clause in RANK_CLAUSES] if whole else [], len(failed)),
    ]
    if cell.get("failure_basis") == "answer":
        parts += [_verdict(failed), _ceiling(failed)]
    said = [f"{text} in {count} of {len(failed)}" for count, text in filter(None, parts)]
    return "; ".join(said) or f"no recorded diagnostic sets its {len(failed)} failures apart"


def _best(clauses: list[Clause | None], failures: int) -> Clause | None:
    # The clause most failures share (a tie goes to the earlier, more upstream one), if it
    # holds for at least half of them: a rarer one would read as the cause when it is not.
    held = [c for c in clauses if c and 2 * c[0] >= failures]
    return max(held, key=lambda c: c[0], default=None)


def _role(span_role: str) -> str:
    return "gold span" if span_role == "gold" else span_role.replace("_", " ")


def _lengths(spans: list[dict]) -> str:
    sizes = sorted({s["end"] - s["start"] for s in spans})
    return f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}–{sizes[-1]}"


def _retrieval_error(failed: list[dict], config: dict) -> Clause | None:
    errors = [r["retrieval_error"] for r in failed if r.get("retrieval_error")]
    return (len(errors), f"the retrieval call failed ({errors[0]})") if errors else None


def _span_cut(failed: list[dict], config: dict) -> Clause | None:
    cut = [r for r in failed if r.get("span_preserved") is False]
    if not cut:
        return None
    gold = [s for r in cut for s in r.get("gold_spans") or []]
    size = f"{config.get('chunk_size')}/{config.get('overlap')}"
    boundary = f"{config['splitter']} {size}" if config.get("splitter") else size
    span = f"{_lengths(gold)}-character {_role(gold[0]['role'])}" if gold else "gold span"
    return len(cut), f"the {span} is cut by the {boundary} boundary"


def _apart(field: str) -> Callable[[list[dict], dict], Clause | None]:
    """Two spans the field says no chunk holds together: named by their recorded roles."""

    def clause(failed: list[dict], config: dict) -> Clause | None:
        apart = [r for r in failed if r.get(field) is False]
        if not apart:
            return None
        first = apart[0]
        other = next(iter(first.get("extra_spans") or []), None)
        gold = next(iter(first.get("gold_spans") or []), None)
        if other is None or gold is None:
            return len(apart), f"{field} is false"
        apart_words = f"does not share a chunk with the {_role(gold['role'])}"
        return len(apart), f"the {_role(other['role'])} {apart_words}"

    return clause


def _hop_missed(failed: list[dict], config: dict) -> Clause | None:
    missed = Counter(
        role for r in failed for role, arrived in (r.get("hops") or {}).items() if arrived is False
    )
    if not missed:
        return None
    role, count = missed.most_common(1)[0]
    return count, f"the {_role(role)} hop did not reach the top {_k(failed, config)}"


def _items_short(failed: list[dict], config: dict) -> Clause | None:
    short = [
        (r["items_in_context"], len(r.get("gold_spans") or []))
        for r in failed
        if r.get("items_in_context") is not None
        and r["items_in_context"] < len(r.get("gold_spans") or [])
    ]
    if not short:
        return None
    arrived = sorted({a for a, _ in short})
    span = f"{arrived[0]}" if len(arrived) == 1 else f"{arrived[0]}–{arrived[-1]}"
    total = max(t for _, t in short)
    return len(short), f"only {span} of the {total} items reached the top {_k(failed, config)}"


def _ranked_below(failed: list[dict], config: dict) -> Clause | None:
    # gold_rank is the best chunk holding any gold span: at or above k, some gold arrived
    # (a hop or an item clause says what did not), so only a rank below k is said here.
    k = _k(failed, config)
    missed = [
        r
        for r in failed
        if r.get("gold_in_context") is False
        and (r.get("gold_rank") is None or (isinstance(k, int) and r["gold_rank"] > k))
    ]
    if not missed:
        return None
    ranks = [r["gold_rank"] for r in missed if r.get("gold_rank") is not None]
    if not ranks:
        return len(missed), "no chunk holding a gold span was ranked at all"
    unranked = len(missed) - len(ranks)
    median = statistics.median_low(ranks)
    text = f"the gold was not in the top {k} (median rank {median}"
    text += f"; {unranked} not ranked at all)" if unranked else ")"
    return len(missed), text


def _trap_above(failed: list[dict], config: dict) -> Clause | None:
    above = [
        r
        for r in failed
        if r.get("trap_rank") is not None
        and (r.get("gold_rank") is None or r["trap_rank"] < r["gold_rank"])
    ]
    if not above:
        return None
    role = _role((above[0].get("trap_spans") or [{"role": "trap"}])[0]["role"])
    return len(above), f"the {role} ranked above the gold"


def _k(failed: list[dict], config: dict) -> object:
    return config.get("k") or failed[0].get("k")


CAUSE_CLAUSES = (
    _retrieval_error,
    _span_cut,
    _apart("table_together"),
    _apart("header_in_answer_chunk"),
    _hop_missed,
    _items_short,
)
"""What kept the evidence from arriving whole, upstream first (a tie goes to the earlier)."""

RANK_CLAUSES = (_ranked_below, _trap_above)
"""How the gold ranked, on the records whose span no boundary cut."""


BRANCH_WORDS = {"abstain_expected": "the reply answered where the corpus holds no answer"}
"""A grader branch whose words say more than its verdict's (the part before its first `:`)."""


def _verdict(failed: list[dict]) -> Clause | None:
    graded = Counter(  # the branch's family: `trap_match:41` and `trap_match:7` are one
        (r["grade"]["verdict"], str(r["grade"].get("branch")).split(":")[0])
        for r in failed
        if (r.get("grade") or {}).get("verdict")
    )
    if not graded:
        return None
    (verdict, branch), count = graded.most_common(1)[0]
    words = BRANCH_WORDS.get(branch) or VERDICT_WORDS.get(verdict)
    return count, words or f"the reply was graded {verdict}"


def _ceiling(failed: list[dict]) -> Clause | None:
    count = sum(1 for r in failed if r.get("attribution") == "ceiling")
    return (count, "the oracle reply, given only the gold chunks, was wrong too") if count else None
