"""`ragaudit audit --junit FILE`: one JUnit test case per phrasing, read from the audit's
results document. A failing phrasing carries each expected source's rank against the top-k
and the red flag when another phrasing of the same intent keeps that source in (the
originating study's audit: "one phrasing pushes a key source out of range")."""

from __future__ import annotations

from pathlib import Path

from ragaudit.report.junit import TestCase, write_junit
from ragaudit.results.format import fmt_ratio


def _rank(source: dict, k: int) -> str:
    if source["rank"] is None:
        return f"{source['source']} not ranked ({source.get('rank_reason') or 'no rank'})"
    where = f"in the top-{k}" if source["in_top_k"] else f"not in the top-{k}"
    backfill = " through the floor's backfill" if source.get("via_backfill") else ""
    return f"{source['source']} at rank {source['rank']}, {where}{backfill}"


def _missed(case: dict) -> list[dict]:
    """The expected sources that make the phrasing fail."""
    sources = case["sources"]
    missed = [s for s in sources if s["required"] and not s["in_top_k"]]
    anyof = [s for s in sources if not s["required"]]
    if anyof and not any(s["in_top_k"] for s in anyof):
        missed += anyof
    return missed


def _red_flags(results: dict, k: int) -> dict[tuple[str, str], str]:
    """(intent, source) -> the red flag's words, for every red-flagged source."""
    flags = {}
    for intent in results["intents"]:
        for row in intent["sources"]:
            if row["red_flag"]:
                flags[(intent["intent"], row["source"])] = (
                    f"RED FLAG: {row['source']} is in the top-{k} for "
                    f"{fmt_ratio(row['in_top_k_count'], row['phrasings'])} phrasings of "
                    f"{intent['intent']} (a phrasing pushes it out)"
                )
    return flags


def _flagged(case: dict, sources: list[dict], flags: dict[tuple[str, str], str]) -> list[str]:
    return [flags[key] for s in sources if (key := (case["intent"], s["source"])) in flags]


def _failure(case: dict, k: int, flags: dict) -> tuple[str | None, str | None]:
    """(message, type) of a phrasing that did not pass; (None, None) when it passed."""
    if case["status"] == "failed_call":
        return f"the question could not be embedded: {case['error']}", "failed_call"
    if case["status"] == "fail":
        missed = _missed(case)
        return "; ".join([_rank(s, k) for s in missed] + _flagged(case, missed, flags)), "fail"
    return None, None


def audit_cases(results: dict) -> list[TestCase]:
    """One test case per phrasing: passed, failed (the ranks and red flags) or a failed
    embedding call (kept, as in the denominator)."""
    k = results["settings"]["values"]["k"]
    flags = _red_flags(results, k)
    out = []
    for case in results["cases"]:
        ranks = [_rank(source, k) for source in case["sources"]]
        failure, failure_type = _failure(case, k, flags)
        detail = "\n".join([case["question"], *ranks, *_flagged(case, case["sources"], flags)])
        out.append(
            TestCase(
                name=case["case_id"],
                classname=f"audit.{case['intent']}",
                failure=failure,
                failure_type=failure_type,
                detail=detail,
                file=results.get("cases_file"),
                line=case.get("line"),
            )
        )
    return out


def write_audit_junit(path: Path, results: dict) -> None:
    """Write the audit's results as a JUnit file at `path`."""
    write_junit(path, "ragaudit audit", audit_cases(results))
