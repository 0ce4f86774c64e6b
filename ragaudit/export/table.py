"""The exported table: instance records flattened by `export.columns` (and a mutate file's
`export.mutation`) into a pandas DataFrame, and that frame as CSV or Parquet bytes. The CLI
writes the whole file's records (a mutate file's mutants without records too); the
inspector's download buttons one cell's or one instance's."""

from __future__ import annotations

import io
from typing import Any

from ragaudit.errors import RagauditError
from ragaudit.export.columns import Column, Source, columns
from ragaudit.export.mutation import (
    MUTATION_COLUMNS,
    closed_book_entry,
    mutants_by_id,
    record_mutant,
    unrecorded_mutants,
)
from ragaudit.results.view import config_by_name

FORMATS = ("csv", "parquet")
MEDIA_TYPES = {"csv": "text/csv", "parquet": "application/vnd.apache.parquet"}


def provenance(results: dict) -> dict[str, str]:
    """What a Parquet file records about the results file it came from (its key-value
    metadata, read back as `pd.read_parquet(path).attrs`)."""
    corpus = results.get("corpus") or {}
    return {
        "ragaudit_results_created_at": str(results.get("created_at")),
        "ragaudit_results_schema_version": str(results.get("schema_version")),
        "ragaudit_corpus_sha256": str(corpus.get("sha256")),
    }


def exported_columns() -> list[Column]:
    """Every exported column, in the order they are written: the record's, then a mutate
    file's (null in any other file)."""
    return [*columns(), *MUTATION_COLUMNS]


def _rows(results: dict, records: list[dict], whole_file: bool) -> list[tuple[dict, Source]]:
    """Each record with what else its row reads; for the whole of a mutate file, then a row
    per mutant without records (an empty record)."""
    configs = config_by_name(results)
    mutants = mutants_by_id(results)
    rows = [
        (
            record,
            Source(
                configs.get(record.get("config")) or {},
                record_mutant(record, mutants),
                closed_book_entry(results, record),
            ),
        )
        for record in records
    ]
    if whole_file:
        rows += [({}, Source({}, mutant)) for mutant in unrecorded_mutants(results, records)]
    return rows


def records_frame(results: dict, records: list[dict] | None = None) -> Any:
    """One row per record (every instance record of the file when `records` is None, and
    then a mutate file's mutants without records too), in the given order, a column per
    `exported_columns()` entry with its nullable dtype."""
    import pandas as pd

    whole_file = records is None
    records = results.get("instances") or [] if records is None else records
    rows = _rows(results, records, whole_file)
    data = {}
    for column in exported_columns():
        values = [
            column.read(record, source) if record or column.of_mutant else None
            for record, source in rows
        ]
        try:
            data[column.name] = pd.array(values, dtype=column.dtype)
        except (TypeError, ValueError) as error:
            raise RagauditError(
                f"cannot export column {column.name!r}: a record holds a value the results "
                f"schema does not allow there ({type(error).__name__}: {str(error)[:120]})"
            ) from None
    frame = pd.DataFrame(data, columns=[c.name for c in exported_columns()])
    frame.attrs = provenance(results)
    return frame


def export_bytes(frame: Any, fmt: str) -> bytes:
    """The frame as a CSV (UTF-8, a header row, null as an empty field) or Parquet file."""
    if fmt == "csv":
        return frame.to_csv(index=False).encode("utf-8")
    if fmt == "parquet":
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False, engine="pyarrow")
        return buffer.getvalue()
    raise RagauditError(f"unknown export format {fmt!r} (use {' or '.join(FORMATS)})")
