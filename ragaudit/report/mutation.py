"""The mutation audit's report: the run it was rendered from, then the score per operator
with its interval, the control row under both measures, remove_answer's top score drop (each
mutant with its status: the not measured are listed there), the survivors named, and why
operators did not apply. Read from the results file's `mutation` section only; figures
formatted by results.format. `ragaudit mutate` prints the same blocks, so the terminal and
the report cannot disagree. The matrix's per-probe tables are not shown: their rates count
phrasings, the score counts mutants (report.document picks the sections)."""

from __future__ import annotations

from ragaudit.report.render import Block, blocks_to_markdown
from ragaudit.report.tables import models_line, patterns_section, quotes_section, rendered_from
from ragaudit.results.format import ABSENT, fmt_ratio

NO_CONTEXT = "a source can rank without the chunk holding the answer"
"""Why the two control measures differ."""


def mutation_header_section(results: dict) -> list[Block]:
    """What a mutation audit's report was rendered from: the corpus, the cases, the
    mutants, the column and the models."""
    corpus, run = results.get("corpus") or {}, results.get("run") or {}
    section = results.get("mutation") or {}
    mutants = [m for m in section.get("mutants") or [] if m["status"] != "control"]
    intents = len({m["intent"] for m in section.get("mutants") or []})
    column = (results.get("configs") or [{}])[0]
    return [
        ("h", 2, "The run"),
        (
            "p",
            f"{rendered_from(results)} A mutation audit of the corpus {corpus.get('path')} "
            f"({corpus.get('documents')} documents, manifest sha256 {corpus.get('sha256')}) "
            f"with the cases of {run.get('cases_file')}: "
            f"{(section.get('control') or {}).get('cases')} phrasings of {intents} intents, "
            f"{len(mutants)} mutants of {', '.join(run.get('operators') or [])} "
            f"(seed {run.get('seed')}).",
        ),
        ("p", f"Column: {column.get('description') or column.get('name')}."),
        ("p", models_line(results)),
    ]


def mutation_replies_section(results: dict) -> list[Block]:
    """The replies quoted by rule and the grading patterns, when answers were generated."""
    if not (results.get("run") or {}).get("generate"):
        return []
    return quotes_section(results) + patterns_section(results)


def mutation_section(results: dict) -> list[Block]:
    """The section's blocks; none when the file holds no mutation audit."""
    section = results.get("mutation")
    if not section:
        return []
    column = (results.get("configs") or [{}])[0].get("name", "?")
    basis = "graded answers" if section["basis"] == "answer" else "retrieval-side measures"
    excluded = section["excluded_cases"]
    blocks: list[Block] = [
        ("h", 2, f"Mutation score: {column} ({basis})"),
        ("p", control_row(section)
              + (f" Excluded from their mutants: {', '.join(excluded)}." if excluded else "")),
    ]  # fmt: skip
    rows = []
    for score in section["scores"]:
        if score["applicable"]:
            shown = fmt_ratio(score["killed"], score["applicable"], score["wilson"])
        else:
            shown = f"— ({score['score_reason']})"
        rows.append([score["operator"], shown, score.get("not_measured", 0),
                     score["not_applicable"]])  # fmt: skip
    header = ["operator", "killed / applicable (95% interval)", "not measured", "not applicable"]
    blocks.append(("table", header, rows))
    blocks += _drop_blocks(section)
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


def control_row(section: dict) -> str:
    """The control row in words: how many unmutated phrasings pass, then, when the file
    records them, both retrieval measures side by side: the answer span in the context
    (mutate's) and an expected source in the top k (the audit's)."""
    control = section["control"]
    cases = control["cases"]
    if section.get("unmeasured"):
        text = f"Control row: {cases} unmutated phrasings, not measured ({section['unmeasured']})."
    else:
        how = "answered correctly" if section["basis"] == "answer" else "answer span in context"
        passed = fmt_ratio(control["passed"], cases)
        text = f"Control row: {passed} unmutated phrasings pass ({how})."
    if "span_in_context" not in control and "source_in_top_k" not in control:
        return text  # a file from before both measures were recorded
    return (
        f"{text} {_of(control.get('span_in_context'), cases)} have the answer span in the "
        f"context (mutate's measure); {_of(control.get('source_in_top_k'), cases)} have an "
        f"expected source in the top k (audit's measure: {NO_CONTEXT})."
    )


def _of(count: int | None, cases: int) -> str:
    return f"{ABSENT} of {cases}" if count is None else f"{count} of {cases}"


def mutation_lines(results: dict) -> list[str]:
    """The section as Markdown lines, as `ragaudit mutate` prints it."""
    blocks = mutation_section(results)
    return blocks_to_markdown(blocks).splitlines() if blocks else []


def _drop_blocks(section: dict) -> list[Block]:
    """remove_answer's retrieval-side measure: the top score drop when the answer is
    removed (control minus mutant), summarised, then per mutant and phrasing."""
    summary = section.get("top_score_drop")
    if summary is None:
        return []
    if not summary["n"]:
        return [("p", f"Top score drop when the answer is removed: n/a ({summary['reason']}).")]
    head = (
        f"Top score drop when the answer is removed (control row's top score minus the "
        f"remove_answer mutant's, same phrasing): mean {summary['mean']:.3f}, median "
        f"{summary['median']:.3f} over {summary['n']} phrasings that passed the control row."
    )
    per_mutant = []
    for mutant in section["mutants"]:
        drops = {c: p["top_score_drop"] for c, p in mutant["phrasings"].items()
                 if "top_score_drop" in p}  # fmt: skip
        if mutant["operator"] == "remove_answer" and drops:
            shown = ", ".join(f"{c} {_score(d)}" for c, d in drops.items())
            per_mutant.append(f"{mutant['mutant']} ({mutant['status']}): {shown}")
    return [("p", head), ("ul", per_mutant)]


def _score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _phrasing(survivor: dict, case: str) -> str:
    """A surviving phrasing, with its verdict and attribution when answers were graded."""
    verdict = (survivor.get("verdicts") or {}).get(case)
    if verdict is None:
        return case
    blame = (survivor.get("attributions") or {}).get(case)
    return f"{case} [{verdict}{f', {blame}' if blame else ''}]"
