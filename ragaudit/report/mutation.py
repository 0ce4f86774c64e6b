"""The mutation audit's report section: the score per operator with its interval, the
control row, the survivors named, and why operators did not apply. Read from the results
file's `mutation` section only; figures formatted by results.format. `ragaudit mutate`
prints the same blocks, so the terminal and the report cannot disagree."""

from __future__ import annotations

from ragaudit.report.render import Block, blocks_to_markdown
from ragaudit.results.format import fmt_ratio


def mutation_section(results: dict) -> list[Block]:
    """The section's blocks; none when the file holds no mutation audit."""
    section = results.get("mutation")
    if not section:
        return []
    column = (results.get("configs") or [{}])[0].get("name", "?")
    basis = "graded answers" if section["basis"] == "answer" else "retrieval-side measures"
    control = section["control"]
    passed = f"{fmt_ratio(control['passed'], control['cases'])} unmutated cases pass"
    if section.get("unmeasured"):
        passed = f"{control['cases']} unmutated cases, not measured ({section['unmeasured']})"
    excluded = section["excluded_cases"]
    blocks: list[Block] = [
        ("h", 2, f"Mutation score: {column} ({basis})"),
        ("p", f"Control row: {passed}."
              + (f" Excluded from their mutants: {', '.join(excluded)}." if excluded else "")),
    ]  # fmt: skip
    rows = []
    for score in section["scores"]:
        if score["applicable"]:
            shown = fmt_ratio(score["killed"], score["applicable"], score["wilson"])
        else:
            shown = f"— ({score['score_reason']})"
        rows.append([score["operator"], shown, score["not_applicable"]])
    blocks.append(
        ("table", ["operator", "killed / applicable (95% interval)", "not applicable"], rows)
    )
    blocks.append(("p", f"Survivors ({len(section['survivors'])}):"))
    blocks.append(("ul", [
        f"{s['mutant']}: {', '.join(_phrasing(s, c) for c in s['phrasings'])} ({s['rule']})"
        for s in section["survivors"]
    ] or ["none"]))  # fmt: skip
    reasons: dict[tuple[str, str], list[str]] = {}
    for mutant in section["mutants"]:
        if mutant["status"] in ("not_applicable", "excluded"):
            reasons.setdefault((mutant["operator"], mutant["reason"]), []).append(mutant["intent"])
    if reasons:
        blocks.append(("p", "Not applicable:"))
        blocks.append(("ul", [f"{op}: {why} ({len(names)}: {', '.join(names)})"
                              for (op, why), names in reasons.items()]))  # fmt: skip
    return blocks


def mutation_lines(results: dict) -> list[str]:
    """The section as Markdown lines, as `ragaudit mutate` prints it."""
    blocks = mutation_section(results)
    return blocks_to_markdown(blocks).splitlines() if blocks else []


def _phrasing(survivor: dict, case: str) -> str:
    """A surviving phrasing, with its verdict and attribution when answers were graded."""
    verdict = (survivor.get("verdicts") or {}).get(case)
    if verdict is None:
        return case
    blame = (survivor.get("attributions") or {}).get(case)
    return f"{case} [{verdict}{f', {blame}' if blame else ''}]"
