"""The instance record: its type (the head every record carries, then the sections of
results.record_sections), the one function that builds every record, and the check the
loader runs first on every record's required fields, in the words the commands print.

Every writer builds its records through `instance_record`: the matrix's retrieval stage
(runner.retrieve.base_record), a stack or pipeline column (the same), the mutation audit
(mutation.records.mutant_record) and the tests' synthetic fixture. A record is a plain
dict; InstanceRecord only types it."""

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NotRequired

from typing_extensions import TypedDict

from ragaudit.errors import RagauditError
from ragaudit.results.record_sections import (
    AnswerFields,
    FlakyMark,
    JSONObject,
    MutationMark,
    PipelineAnswer,
    RetrievalFields,
    Span,
)


class InstanceHead(TypedDict):
    """Who the record is (probe × instance × config × embedder) and what it asks: copied
    from the instance before anything is retrieved."""

    key: str
    """`<probe>/<instance_id>/<config>/<embedder>`, unique in the file."""
    probe: str
    layer: NotRequired[str | None]
    instance_id: str
    config: str
    embedder: str
    chunking: NotRequired[str | None]
    k: NotRequired[int | None]
    question: NotRequired[str | None]
    gold_answer: NotRequired[str | list[str] | None]
    gold_spans: NotRequired[list[Span] | None]
    trap_spans: NotRequired[list[Span] | None]
    extra_spans: NotRequired[list[Span] | None]
    answer_doc_ids: NotRequired[list[str] | None]
    anchor: NotRequired[str | None]
    grading: NotRequired[JSONObject | None]
    """The instance's grading spec (`kind`: value, list, abstain, polarity, …)."""
    meta: NotRequired[JSONObject | None]
    """The instance's probe facts (a mutant's `{mutant, rule, intent}`)."""


class InstanceRecord(InstanceHead, RetrievalFields, AnswerFields, total=False):
    """One record per probe × instance × config × embedder (docs/results-schema.md)."""

    mutation: MutationMark | None
    pipeline: PipelineAnswer | None
    flaky: FlakyMark | None


def instance_record(
    *,
    probe: str | None,
    layer: str | None,
    instance_id: str | None,
    config: str | None,
    embedder: str | None,
    chunking: str | None,
    k: int | None,
    question: str | None,
    gold_answer: str | list[str] | None,
    spans: tuple[Iterable[Span], Iterable[Span], Iterable[Span]] | None,
    answer_doc_ids: Iterable[str] | None,
    anchor: str | None,
    grading: JSONObject | None,
    meta: JSONObject | None,
    diagnostics: Sequence[str] | None,
    key: str | None = None,
) -> InstanceRecord:
    """A record before retrieval: its head, nothing retrieved, each of `diagnostics` (the
    diagnostic fields its probes declare, stack.diagnostics.diagnostic_fields) null, and no
    generation, grade or citation check yet. `spans` is (gold, trap, extra); `key` defaults
    to `<probe>/<instance_id>/<config>/<embedder>`. The field order is the file's."""
    gold, trap, extra = spans
    record: dict[str, Any] = {
        "key": key if key is not None else f"{probe}/{instance_id}/{config}/{embedder}",
        "probe": probe, "layer": layer, "instance_id": instance_id, "config": config,
        "embedder": embedder, "chunking": chunking, "k": k, "question": question,
        "gold_answer": gold_answer, "gold_spans": list(gold), "trap_spans": list(trap),
        "extra_spans": list(extra), "answer_doc_ids": list(answer_doc_ids),
        "anchor": anchor, "grading": grading, "meta": meta,
        "retrieved": [], "retrieval_error": None,
        **dict.fromkeys(diagnostics),
        "generation": None, "grade": None, "citation_check": None,
    }  # fmt: skip
    return record  # type: ignore[return-value]


_TEXT = (str, "a string")
_OBJECT = (dict, "an object")

REQUIRED_RECORD_FIELDS: dict[str, tuple[tuple[str, tuple[type, str]], ...]] = {
    "instances": (
        ("key", _TEXT), ("probe", _TEXT), ("instance_id", _TEXT), ("config", _TEXT),
        ("embedder", _TEXT),
    ),
    "cells": (("probe", _TEXT), ("config", _TEXT), ("embedder", _TEXT), ("measures", _OBJECT)),
    "models": (("spec", _TEXT),),
    "configs": (("name", _TEXT),),
    "embedders": (("spec", _TEXT),),
}  # fmt: skip
"""Top-level list -> the fields each of its records must hold, with their JSON type: the
required keys of InstanceRecord, Cell, Model, Config and Embedder (a test holds the two in
step), checked first so a record without its identity reads in these words."""


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:59] + "…"


def check_records(path: str | Path, data: dict) -> None:
    """Raise a RagauditError naming the file, the record (list and index) and the field
    for the first record that lacks a required field or holds it in another JSON type."""
    for name, fields in REQUIRED_RECORD_FIELDS.items():
        for index, record in enumerate(data.get(name) or ()):
            for field, (json_type, described) in fields:
                where = f"{path}: {name}[{index}]"
                if field not in record or record[field] is None:
                    raise RagauditError(
                        f"{where} has no {field!r} (every record of {name!r} carries one)"
                    )
                if not isinstance(record[field], json_type):
                    raise RagauditError(
                        f"{where}.{field} must be {described}, not {_shown(record[field])}"
                    )
