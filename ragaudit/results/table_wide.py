"""table_split at 4000 characters (config T4000, beside the matrix) as a results file
records it: the figures and the quoted replies that the report's section and the Matrix
page both show, phrased once here.

The originating study ran this check outside its matrix: with the table whole in one chunk,
retrieval reached the row every time and the answer was still wrong, some replies denying the
asked asset's record while giving another row's number. Everything here is read from the file:
the T4000 cell (retrieval and verdict counts, as analysis recorded them), the model-free
`extra_measurements.table_split_4000` (header and answer row in one chunk) and the instance
records (each reply, its verdict, its own header-and-row flag).
"""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.results import view
from ragaudit.results.format import NOT_RUN, fmt_cell, fmt_ratio
from ragaudit.stack.configs import T4000

WIDE_CONFIG = T4000.name
PROBE = "table_split"
TITLE = "table_split at 4000 characters"
VERDICTS_SHOWN = ("correct", "wrong", "denied_record", "abstained", "empty", "failed_call")
"""The verdicts a table_split value question can get (it has no trap value to take)."""
QUOTE_EVERY_WRONG_UP_TO = 5
"""A cell this small has every reply that is not correct quoted."""
FIRST_WRONG_QUOTED = 3
"""In a larger cell: every denial of record, plus the first few other replies not correct."""
NONE_QUOTED = "No reply on this config was graded other than correct."
"""What stands where the quoted replies would be, when every reply was graded correct."""


@dataclass(frozen=True)
class WideCheck:
    """The T4000 part of one results file, for its generating (primary) embedder."""

    config: dict
    """The T4000 config record."""
    embedder: str
    """The embedder whose records were generated on (the primary)."""
    cell: dict | None
    """The (table_split, T4000, embedder) cell; None before analysis wrote it."""
    records: list[dict]
    """That cell's instance records, in instance order."""
    together: dict | None
    """`extra_measurements.table_split_4000`; None in a file without it."""


def wide_check(results: dict) -> WideCheck | None:
    """The T4000 part of `results`; None when the file has no T4000 config (a file written
    before it existed, or a run with --no-extra-configs)."""
    config = view.config_by_name(results).get(WIDE_CONFIG)
    if config is None:
        return None
    roles = {e.get("role"): e["spec"] for e in reversed(results.get("embedders") or [])}
    embedder = roles.get("primary") or next(iter(view.embedder_specs(results)), "")
    return WideCheck(
        config=config,
        embedder=embedder,
        cell=view.cell_index(results).get((PROBE, WIDE_CONFIG, embedder)),
        records=view.cell_records(results, PROBE, WIDE_CONFIG, embedder),
        together=(results.get("extra_measurements") or {}).get("table_split_4000"),
    )


def figure_lines(check: WideCheck) -> list[str]:
    """The section's figures, one sentence each, every count with its denominator."""
    cell, config = check.cell, check.config
    lines = [
        f"{WIDE_CONFIG}: {config.get('description')}. It runs {PROBE} only, so its column "
        f"in the probe x config tables and the Matrix heatmap reads '{NOT_RUN}' on every "
        "other probe.",
        f"Retrieval under {check.embedder}, over every corpus document cut at "
        f"{view.chunking_of(config)} (gold row among the {config.get('k')} chunks "
        f"retrieved): {fmt_cell(cell, 'gold_in_context')}.",
        _together_line(check.together),
    ]
    if cell is None or not cell.get("generated"):
        return lines + [f"Answers: generation did not run on {WIDE_CONFIG} in this file."]
    measures = cell.get("measures") or {}
    verdicts = ", ".join(f"{v} {fmt_cell(cell, v)}" for v in VERDICTS_SHOWN if v in measures)
    denial = fmt_cell(cell, "denied_record")
    return lines + [
        f"Answers not correct: {fmt_ratio(cell.get('failures') or 0, cell.get('n') or 0)}.",
        f"Answers by verdict: {verdicts}.",
        f"Denial of record: {denial} replies say the asked asset's record is not in the "
        "table and still give a number (verdict denied_record, matched by the "
        "denial_of_record patterns listed under the grading patterns).",
    ]


def _together_line(together: dict | None) -> str:
    if not together or not together.get("table_together"):
        return "Header and answer row in one chunk: not measured in this file."
    measured = together["table_together"]
    return (
        f"Header and answer row in one chunk at {together.get('chunking')} (model-free, "
        f"every {PROBE} instance): {fmt_ratio(measured['count'], measured['n'])}."
    )


def _not_correct(record: dict) -> bool:
    return bool(record.get("grade")) and not record["grade"].get("correct")


def quoted_records(check: WideCheck) -> list[dict]:
    """The replies to quote, in instance order: every reply not correct when the cell holds
    at most QUOTE_EVERY_WRONG_UP_TO records; else every denial of record plus the first
    FIRST_WRONG_QUOTED other replies not correct."""
    wrong = [r for r in check.records if _not_correct(r)]
    if len(check.records) <= QUOTE_EVERY_WRONG_UP_TO:
        return wrong
    others = [r for r in wrong if r["grade"].get("verdict") != "denied_record"]
    first = {r["key"] for r in others[:FIRST_WRONG_QUOTED]}
    return [r for r in wrong if r["grade"].get("verdict") == "denied_record" or r["key"] in first]


def quote_rule(check: WideCheck) -> str:
    """Which replies `quoted_records` picks, in words, for this cell's size."""
    if len(check.records) <= QUOTE_EVERY_WRONG_UP_TO:
        return "every reply not graded correct, in instance order"
    return (
        "every reply graded denied_record, plus the first "
        f"{FIRST_WRONG_QUOTED} other replies not graded correct, in instance order"
    )


def quoted_replies(check: WideCheck) -> list[tuple[str, str]] | None:
    """The replies `quoted_records` picks, each as (its `quote_heading`, its `reply_text`);
    None when generation did not run on T4000 in this file (nothing to quote, no rule)."""
    if not check.cell or not check.cell.get("generated"):
        return None
    return [(quote_heading(record), reply_text(record)) for record in quoted_records(check)]


def quote_heading(record: dict) -> str:
    """One line above a quoted reply: the instance, its verdict and branch, whether its
    header and row share a chunk, the question and the gold answer."""
    grade = record.get("grade") or {}
    together = {True: "yes", False: "no"}.get(record.get("table_together"), "not measured")
    return (
        f"{record['instance_id']}: {grade.get('verdict')} (branch {grade.get('branch')}); "
        f"header and row in one chunk: {together}. Asked: {record.get('question')} "
        f"Gold: {record.get('gold_answer')}."
    )


def reply_text(record: dict) -> str:
    """The reply as recorded, or what stands in for one (a failed call, an empty reply)."""
    generation = record.get("generation") or {}
    if generation.get("status") == "failed_call":
        return f"(no reply: {generation.get('error')})"
    reply = generation.get("reply")
    return reply if reply and reply.strip() else "(empty reply)"
