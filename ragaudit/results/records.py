"""The fields every record of a results file carries, checked once when the file is loaded
(results.io.load_results), so no reader meets a record without them: compare, export,
report and every inspector page key records by these fields and would otherwise stop on a
KeyError or a TypeError deep inside, or write a row of empty fields."""

from __future__ import annotations

import json
from pathlib import Path

from ragaudit.errors import RagauditError

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
"""Top-level list -> the fields each of its records must hold, with their JSON type
(docs/results-schema.md); every other field of a record may be absent or null."""


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
