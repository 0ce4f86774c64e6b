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
from ragaudit.results.format import fmt_ratio
from ragaudit.results.mutation import (
    SCORE_HEADER,
    closed_book_line,
    control_paragraph,
    control_row,  # noqa: F401 (the report's name for it: the Instance page reads it here)
    drop_summary,
    drop_text,
    score_rows,
    survivor_text,
    unscored_by_reason,
)


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
    """The section's blocks; none when the file holds no mutation audit. Every sentence
    and row is results.mutation's, which the inspector's mutation view reads too."""
    section = results.get("mutation")
    if not section:
        return []
    column = (results.get("configs") or [{}])[0].get("name", "?")
    basis = "graded answers" if section["basis"] == "answer" else "retrieval-side measures"
    blocks: list[Block] = [
        ("h", 2, f"Mutation score: {column} ({basis})"),
        ("p", control_paragraph(section)),
        ("table", SCORE_HEADER, [row.cells() for row in score_rows(section)]),
    ]
    blocks += _context_blocks(results, section)
    blocks += _drop_blocks(section)
    blocks.append(("p", f"Survivors ({len(section['survivors'])}):"))
    blocks.append(("ul", [survivor_text(s) for s in section["survivors"]] or ["none"]))
    reasons = unscored_by_reason(section)
    if reasons:
        blocks.append(("p", "Not scored, by reason (the figures of the first of each kind):"))
        blocks.append(("ul", reasons))
    return blocks


def _context_blocks(results: dict, section: dict) -> list[Block]:
    """The closed-book row, how the column was built per mutant, and the chunks past the
    embedder's input window (as `audit` reports them)."""
    closed = closed_book_line(section)
    blocks: list[Block] = [("p", closed)] if closed else []
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


def mutation_lines(results: dict) -> list[str]:
    """The section as Markdown lines, as `ragaudit mutate` prints it."""
    blocks = mutation_section(results)
    return blocks_to_markdown(blocks).splitlines() if blocks else []


def _drop_blocks(section: dict) -> list[Block]:
    """remove_answer's retrieval-side measure: the top score drop when the answer is
    removed (control minus mutant), summarised, then per mutant and phrasing."""
    summary = drop_summary(section)
    if summary is None:
        return []
    if not section["top_score_drop"]["n"]:
        return [("p", summary)]
    per_mutant = [drop_text(m) for m in section["mutants"]]
    return [("p", summary), ("ul", [line for line in per_mutant if line])]
