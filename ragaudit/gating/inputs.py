"""The fields the gate reads beyond what results.io.load_results checks, each of its JSON
type (or null), and each instance recorded once per column, so a hostile or hand-edited file
is refused in one line naming the file, the record and the field (or the key), instead of
failing deep inside the verdict or giving one silently."""

from __future__ import annotations

import json
from pathlib import Path

from ragaudit.comparison.pairing import check_instance_keys
from ragaudit.errors import RagauditError

_NULL = type(None)
CORPUS_FIELDS = {"sha256": (str, _NULL), "documents": (int, _NULL), "probes": (list, _NULL)}
RECORD_FIELDS = {
    "question": ((str, _NULL), "a string"),
    "layer": ((str, _NULL), "a string"),
    "gold_in_context": ((bool, _NULL), "true or false"),
    "gold_rank": ((int, _NULL), "a whole number"),
    "k": ((int, _NULL), "a whole number"),
    "grade": ((dict, _NULL), "an object"),
    "generation": ((dict, _NULL), "an object"),
    "retrieval_error": ((str, _NULL), "a string"),
    "flaky": ((dict, _NULL), "an object"),
}


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:39] + "…"


def _number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_gate_fields(path: str | Path, data: dict) -> None:
    """Raise a RagauditError for the first field the gate reads that holds another type
    (a `flaky` mark too: `run --repeat` writes an object), then for an instance recorded
    twice under one column (compare.pairing.check_instance_keys)."""
    corpus = data.get("corpus") or {}
    for field, types in CORPUS_FIELDS.items():
        value = corpus.get(field)
        if not isinstance(value, types) or (field == "documents" and isinstance(value, bool)):
            raise RagauditError(f"{path}: corpus.{field} cannot be {_shown(value)}")
    for index, probe in enumerate(corpus.get("probes") or []):
        if not isinstance(probe, dict) or not isinstance(probe.get("name"), str):
            raise RagauditError(f"{path}: corpus.probes[{index}] needs a name, not {_shown(probe)}")
    for index, record in enumerate(data.get("instances") or []):
        for field, (types, described) in RECORD_FIELDS.items():
            value = record.get(field)
            wrong_number = field in ("gold_rank", "k") and value is not None and not _number(value)
            if not isinstance(value, types) or wrong_number:
                raise RagauditError(
                    f"{path}: instances[{index}].{field} must be {described} or null, "
                    f"not {_shown(value)}"
                )
    check_instance_keys(path, data)
