"""Per intent: how the phrasings of one intent fared, and the red flag when one phrasing pushes
an expected source out of the top-k while another keeps it in (the originating study's
phrasing audit)."""

from __future__ import annotations

from ragaudit.auditing.cases import Case


def intent_summaries(cases: list[Case], records: list[dict]) -> list[dict]:
    """Per intent: phrasings passed, and per expected source its rank under each phrasing,
    the spread, and a red flag when one phrasing pushes it out of the top-k while another
    keeps it in."""
    out: list[dict] = []
    order = list(dict.fromkeys(c.intent for c in cases))
    for intent in order:
        mine = [r for r in records if r["intent"] == intent]
        sources = list(dict.fromkeys(s["source"] for r in mine for s in r["sources"]))
        source_rows = []
        for source in sources:
            ranks, in_top = {}, {}
            for record in mine:
                hit = next((s for s in record["sources"] if s["source"] == source), None)
                if hit is not None and record["status"] != "failed_call":
                    ranks[record["case_id"]] = hit["rank"]
                    in_top[record["case_id"]] = hit["in_top_k"]
            known = [r for r in ranks.values() if r is not None]
            complete = len(known) == len(ranks) and len(known) > 0
            inside = sum(in_top.values())
            source_rows.append({
                "source": source,
                "ranks": ranks,
                "in_top_k": in_top,
                "best_rank": min(known) if known else None,
                "worst_rank": max(known) if complete else None,
                "spread": max(known) - min(known) if complete else None,
                "spread_reason": None if complete else "a phrasing ranked it below the "
                "ranking depth, or could not be embedded",
                "in_top_k_count": inside,
                "phrasings": len(in_top),
                "red_flag": 0 < inside < len(in_top),
            })  # fmt: skip
        out.append({
            "intent": intent,
            "phrasings": len(mine),
            "passed": sum(r["status"] == "pass" for r in mine),
            "failed_calls": sum(r["status"] == "failed_call" for r in mine),
            "single_phrasing": len(mine) == 1,
            "red_flag": any(row["red_flag"] for row in source_rows),
            "sources": source_rows,
        })  # fmt: skip
    return out
