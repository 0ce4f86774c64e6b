"""The results file: atomic write, partial write while a run is in progress, load with
validation. The contract is docs/results-schema.md (version in ragaudit.results.schema)."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from ragaudit.errors import RagauditError
from ragaudit.results.schema import SCHEMA_VERSION, TOP_LEVEL_FIELDS


def now_iso() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write `text` to a temp file beside `path`, fsync, then os.replace: a reader sees the
    old file or the new one, never half of one. Every atomic write in ragaudit goes here."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file owner-only; a results file is for every reader (umask rules)
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(handle, 0o666 & ~umask)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: str | Path, data: object, *, trailing_newline: bool = False) -> None:
    """`write_text_atomic` of `data` as JSON; NaN/inf are refused (allow_nan=False)."""
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False, indent=1)
    except ValueError as error:
        raise RagauditError(f"{path}: refusing to write a non-finite number ({error})") from None
    write_text_atomic(path, text + "\n" if trailing_newline else text)


def write_results(path: str | Path, results: dict, *, complete: bool = True) -> None:
    """Write the results file atomically; `complete=False` marks a run still in progress
    (the inspector can read it and says it is partial)."""
    missing = [name for name in TOP_LEVEL_FIELDS if name not in results and name != "complete"]
    if missing:
        raise RagauditError(f"{path}: results lack top-level field(s) {', '.join(missing)}")
    results = {**results, "schema_version": SCHEMA_VERSION, "complete": complete}
    results["created_at"] = now_iso()
    write_json_atomic(path, results)


def load_results(path: str | Path, *, allow_partial: bool = True) -> dict:
    """Read and validate a results file: it must be JSON, the current schema version, and
    carry every top-level field. Errors name the file and the version or field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RagauditError(f"{path}: no results file here (run `ragaudit run` first)") from None
    except OSError as error:
        raise RagauditError(f"{path}: cannot read results ({error.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RagauditError(
            f"{path}: not valid JSON ({error.msg} at line {error.lineno})"
        ) from None
    if not isinstance(data, dict):
        raise RagauditError(f"{path}: expected a JSON object at the top level")
    if "schema_version" not in data:
        raise RagauditError(f"{path}: missing field 'schema_version' (not a ragaudit results file)")
    version = data["schema_version"]
    if version != SCHEMA_VERSION:
        age = "older" if isinstance(version, int) and version < SCHEMA_VERSION else "other"
        raise RagauditError(
            f"{path}: schema_version {version!r} is an {age} results format; this ragaudit "
            f"reads version {SCHEMA_VERSION} (rerun `ragaudit run` to regenerate it)"
        )
    missing = [name for name in TOP_LEVEL_FIELDS if name not in data]
    if missing:
        raise RagauditError(f"{path}: missing top-level field {missing[0]!r}")
    if not isinstance(data["instances"], list):
        raise RagauditError(f"{path}: field 'instances' must be a list")
    if not allow_partial and not data["complete"]:
        raise RagauditError(
            f"{path}: the run that writes this file has not finished (complete: false)"
        )
    return data
