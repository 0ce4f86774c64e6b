"""The mutation audit's report: the run it was rendered from, then the score per operator
with its interval, the control row under both measures, remove_answer's top score drop (each
mutant with its status: the not measured are listed there), the survivors named, and why
operators did not apply. Read from the results file's `mutation` section only; figures
formatted by results.format. `ragaudit mutate` prints the same blocks, so the terminal and
the report cannot disagree. The matrix's per-probe tables are not shown: their rates count
phrasings, the score counts mutants (report.document picks the sections)."""

from __future__ import annotations

import re

from ragaudit.report.render import Block, blocks_to_markdown
from ragaudit.report.tables import models_line, patterns_section, quotes_section, rendered_from
from ragaudit.results.format import ABSENT, fmt_ratio

_DIGITS = re.compile(r"\d[\d,.]*")
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
        elif score.get("robust") and not score.get("not_measured"):
            shown = "— (every mutant it could make is robust: shown, not tried)"
        else:
            shown = f"— ({score['score_reason']})"
        unscored = score.get("excluded", 0) + score.get("closed_book", 0)
        rows.append([score["operator"], shown, score.get("robust", 0),
                     score.get("not_measured", 0), unscored,
                     _not_applicable(score)])  # fmt: skip
    header = ["operator", "killed / applicable (95% interval)", "robust (beside the score)",
              "not measured", "control row excluded", "not applicable"]  # fmt: skip
    blocks.append(("table", header, rows))
    blocks += _context_blocks(results, section)
    blocks += _drop_blocks(section)
    blocks.append(("p", f"Survivors ({len(section['survivors'])}):"))
    blocks.append(("ul", [
        f"{s['mutant']}: {', '.join(_phrasing(s, c) for c in s['phrasings'])} ({s['rule']})"
        for s in section["survivors"]
    ] or ["none"]))  # fmt: skip
    reasons: dict[tuple[str, str], list[str]] = {}
    first: dict[tuple[str, str], str] = {}
    for mutant in section["mutants"]:
        if mutant["status"] in ("not_applicable", "excluded", "robust", "not_measured"):
            # reasons that differ only in their figures are one kind (the file keeps each)
            key = (mutant["operator"], mutant["status"], _DIGITS.sub("#", mutant["reason"] or ""))
            first.setdefault(key, mutant["reason"])
            reasons.setdefault(key, []).append(mutant["mutant"].split("/", 1)[1])
    if reasons:
        blocks.append(("p", "Not scored, by reason (the figures of the first of each kind):"))
        blocks.append(("ul", [f"{op}: {_why(status, first[op, status, kind])} "
                              f"({len(names)}: {', '.join(names)})"
                              for (op, status, kind), names in reasons.items()]))  # fmt: skip
    return blocks


def _why(status: str, reason: str | None) -> str:
    """A mutant's status and reason, the status said once."""
    said = status.replace("_", " ")
    return reason if (reason or "").startswith(said) else f"{said}: {reason}"


def _not_applicable(score: dict) -> str:
    """The count, and by kind of reason when there are several ("two forms" is one)."""
    kinds = score.get("not_applicable_reasons") or {}
    if len(kinds) < 2:
        return str(score["not_applicable"])
    return f"{score['not_applicable']} ({'; '.join(f'{k}: {n}' for k, n in kinds.items())})"


def _context_blocks(results: dict, section: dict) -> list[Block]:
    """The closed-book row, how the column was built per mutant, and the chunks past the
    embedder's input window (as `audit` reports them)."""
    blocks: list[Block] = []
    closed = section.get("closed_book")
    if closed:
        known = ", ".join(closed.get("wholly_known") or []) or "none"
        blocks.append(("p", f"Closed-book row (each phrasing asked with no context by the "
                            f"run's generator): {closed['summary']}. An intent known wholly "
                            f"leaves every mutant's denominator: {known}."))  # fmt: skip
    elif section.get("closed_book_reason"):
        blocks.append(("p", f"Closed-book row: {section['closed_book_reason']}."))
    run = results.get("run") or {}
    builds = run.get("builds") or {}
    if builds.get("kind") == "overlay":
        mutants = builds.get("mutants") or []
        embedded = sum(m.get("texts_embedded", 0) for m in mutants)
        blocks.append(("p", f"Builds: 1 base index; {len(mutants)} mutants ranked over it "
                            f"plus their own change ({embedded} texts of their documents "
                            "sent to the embedder, unchanged ones replayed)."))  # fmt: skip
    elif builds.get("kind") == "rebuild":
        groups = len(builds.get("groups") or [])
        blocks.append(("p", f"Builds: {builds['builds']} builds of your column (the "
                            f"unmutated corpus, then {groups} groups of mutants that touch "
                            "nothing another of the group relies on)."))  # fmt: skip
    for index in run.get("indexes") or []:
        if index.get("over_window") is not None:
            over = fmt_ratio(index["over_window"], index["chunks"])
            blocks.append(("p", f"Input windows: {over} chunks run past {index['embedder']}'s "
                                f"{index['window_tokens']}-token window (their tails are never "
                                "embedded)."))  # fmt: skip
        elif index.get("over_window_reason"):
            blocks.append(("p", f"Input windows: not measured ({index['over_window_reason']})."))
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
    left = [f"{control[k]} {w}" for k, w in (
        ("failed_unmutated", "failed unmutated"), ("failed_call", "lost a call (not measured)"),
        ("known_without_context", "known without context (closed book)"),
    ) if control.get(k)]  # fmt: skip
    if left:
        text += f" Left out of their mutants' denominators: {', '.join(left)}."
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
