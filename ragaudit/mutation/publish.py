"""A mutation audit's results file, published by the matrix's rule (results.publish): a
run in which a model call failed writes `<stem>.failed.json` and leaves the good file where
it is; a good run replaces it, and the good file it held is kept as `<stem>.prev.json`."""

from __future__ import annotations

from pathlib import Path

from ragaudit.errors import RagauditError
from ragaudit.fileio import write_json_atomic
from ragaudit.results.io import load_results
from ragaudit.results.publish import Published, publish_document


def lost_calls(results: dict) -> bool:
    """Whether the run recorded a failed call (`conditions.failed_calls`): the records that
    lost one are not measured, so the file is not a good run."""
    conditions = results.get("conditions")
    return bool(conditions.get("failed_calls")) if isinstance(conditions, dict) else False


def is_good_mutation_file(path: Path) -> bool:
    """True for a finished mutation audit's file on disk in which no call failed."""
    try:
        results = load_results(path)
    except RagauditError:  # missing, unreadable or another kind: not a good run to keep
        return False
    kind = (results.get("run") or {}).get("kind")
    return results.get("complete") is True and kind == "mutate" and not lost_calls(results)


def publish_mutation(path: Path, results: dict, *, allow_failed_calls: bool = False) -> Published:
    """Write the finished mutation audit where the rule says; see the module docstring."""
    return publish_document(
        path,
        results,
        lost=lost_calls(results),
        is_good_file=is_good_mutation_file,
        write=write_json_atomic,
        allow_failed_calls=allow_failed_calls,
        lost_words="model calls failed and records lost them",
    )
