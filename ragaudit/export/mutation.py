"""A mutate file's columns (docs/export.md): each record's mutant (operator, id, intent,
status, validity checks, documents touched) read from `mutation.mutants[]`, its retrieval-side
measures from the record's `mutation`, and its phrasing's closed-book answer from the
top-level `closed_book`. In any other file these columns are null.

A mutant with no records (not applicable, robust) still has a row in the whole file's
export, its record columns null, so one table holds every status an operator's score and
the columns beside it count."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragaudit.export.columns import FLAG, REAL, TEXT, Column, Source, json_text


def _mutant(name: str) -> Callable[[dict, Source], Any]:
    # a blank string (a not applicable mutant's rule) is no value: CSV could not tell them apart
    return lambda _record, source: source.mutant.get(name) or None


def _mutantjson_text(name: str) -> Callable[[dict, Source], Any]:
    return lambda _record, source: json_text(source.mutant.get(name))


def _measure(name: str) -> Callable[[dict, Source], Any]:
    """A field of the record's `mutation`."""
    return lambda record, _source: (record.get("mutation") or {}).get(name)


def _control_status(record: dict, source: Source) -> str | None:
    phrasing = (source.mutant.get("phrasings") or {}).get(record.get("instance_id")) or {}
    return phrasing.get("control")


def _known(record: dict, source: Source) -> bool | None:
    return (source.closed_book or {}).get("known_without_context")


def _checks(source: Source) -> list[dict] | None:
    """The mutant's validity checks; None when it has none (the control row, or a mutant
    not applicable before any check ran)."""
    return source.mutant.get("validity") or None


def _validity_passed(_record: dict, source: Source) -> bool | None:
    checks = _checks(source)
    return None if checks is None else all(check["passed"] for check in checks)


def _validity_failed(_record: dict, source: Source) -> str | None:
    failed = [check["check"] for check in _checks(source) or [] if not check["passed"]]
    return "; ".join(failed) or None


def _removed_fact_documents(_record: dict, source: Source) -> str | None:
    facts = source.mutant.get("removed_facts")
    return None if facts is None else json_text(list(dict.fromkeys(f["doc_id"] for f in facts)))


MUTATION_COLUMNS = [
    Column(
        "operator",
        TEXT,
        _mutant("operator"),
        "the operator (`control`: the unmutated row)",
        of_mutant=True,
    ),
    Column(
        "mutant",
        TEXT,
        _mutant("mutant"),
        "the mutant: `<operator>/<intent>[@variant]`",
        of_mutant=True,
    ),
    Column("intent", TEXT, _mutant("intent"), "the case file's intent", of_mutant=True),
    Column(
        "status",
        TEXT,
        _mutant("status"),
        "the mutant's status: killed, survived, robust, not_applicable, not_measured, "
        "excluded, closed_book, control",
        of_mutant=True,
    ),
    Column(
        "status_reason",
        TEXT,
        _mutant("reason"),
        "why the mutant is not scored; null: scored",
        of_mutant=True,
    ),
    Column("rule", TEXT, _mutant("rule"), "what was planted", of_mutant=True),
    Column(
        "handled",
        FLAG,
        _measure("handled"),
        "the phrasing handled its mutant (control row: passed unmutated); null: a lost call, "
        "or no measure decides (remove_answer without generation)",
    ),
    Column(
        "handled_retrieval",
        FLAG,
        _measure("handled_retrieval"),
        "the retrieval-side measure's verdict; null: none decides",
    ),
    Column(
        "control_status",
        TEXT,
        _control_status,
        "the phrasing on the control row: passed, failed_unmutated, failed_call, "
        "known_without_context; only `passed` phrasings decide a mutant",
    ),
    Column(
        "known_without_context",
        FLAG,
        _known,
        "the phrasing was answered right with no context; null: not asked, or its call failed",
    ),
    Column(
        "measure",
        TEXT,
        _measure("measure"),
        "the retrieval-side field that decides the mutant without generation (a pipeline: "
        "why none does)",
    ),
    Column(
        "source_in_top_k",
        FLAG,
        _measure("source_in_top_k"),
        "every required expected source (and one alternative) among the selected chunks: the "
        "audit's measure",
    ),
    Column("top_score", REAL, _measure("top_score"), "the full ranking's first score"),
    Column(
        "top_score_drop",
        REAL,
        _measure("top_score_drop"),
        "remove_answer: the control record's top_score minus this one's",
    ),
    Column("top_score_drop_reason", TEXT, _measure("top_score_drop_reason"), "why it is null"),
    Column("nothing_retrieved", FLAG, _measure("nothing_retrieved"), "no chunk reached the model"),
    Column(
        "gold_ranked_above_trap",
        FLAG,
        _measure("gold_ranked_above_trap"),
        "the gold chunk outranks the trap's; null: no trap",
    ),
    Column(
        "header_and_row_in_context",
        FLAG,
        _measure("header_and_row_in_context"),
        "table_split: the table's header and the answer's row both selected",
    ),
    Column(
        "sentence_reached_whole",
        FLAG,
        _measure("sentence_reached_whole"),
        "a pipeline: a returned context holds the answer's sentence whole",
    ),
    Column(
        "span_preserved_reason",
        TEXT,
        _measure("span_preserved_reason"),
        "a pipeline: why span_preserved is null",
    ),
    Column(
        "validity_passed",
        FLAG,
        _validity_passed,
        "every validity check passed; null: none ran",
        of_mutant=True,
    ),
    Column(
        "validity_failed",
        TEXT,
        _validity_failed,
        "the failed checks' names joined by `; `; null: none failed",
        of_mutant=True,
    ),
    Column(
        "validity",
        TEXT,
        _mutantjson_text("validity"),
        "JSON: every check as recorded (`check`, `passed`, `detail`)",
        of_mutant=True,
    ),
    Column(
        "dropped_documents",
        TEXT,
        _mutantjson_text("dropped_documents"),
        "JSON: the documents the mutant's corpus leaves out",
        of_mutant=True,
    ),
    Column(
        "added_documents",
        TEXT,
        _mutantjson_text("added_documents"),
        "JSON: the documents it adds (`<doc_id>~<operator>~<intent>`)",
        of_mutant=True,
    ),
    Column(
        "removed_fact_documents",
        TEXT,
        _removed_fact_documents,
        "JSON: remove_answer: the documents a removed fact was stated in",
        of_mutant=True,
    ),
]
"""Appended after `export.columns.columns()`, in this order."""


def mutants_by_id(results: dict) -> dict[str, dict]:
    """`mutation.mutants[]` by mutant id; empty outside a mutate file."""
    return {m["mutant"]: m for m in (results.get("mutation") or {}).get("mutants") or []}


def record_mutant(record: dict, mutants: dict[str, dict]) -> dict:
    """The record's mutant entry ({} for a record of any other file)."""
    return mutants.get((record.get("mutation") or {}).get("mutant"), {})


def closed_book_entry(results: dict, record: dict) -> dict | None:
    """The phrasing's closed-book entry; None when it was not asked."""
    return (results.get("closed_book") or {}).get(record.get("instance_id"))


def unrecorded_mutants(results: dict, records: list[dict]) -> list[dict]:
    """The mutants no record measured (not applicable, robust), in `mutation.mutants[]`
    order."""
    measured = {(r.get("mutation") or {}).get("mutant") for r in records}
    return [m for m in mutants_by_id(results).values() if m["mutant"] not in measured]
