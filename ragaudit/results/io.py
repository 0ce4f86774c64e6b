"""The results file: atomic write, partial write while a run is in progress, and the one
loader, with one wording for its errors, for every kind of document ragaudit reads back.
The contract is docs/results-schema.md (version in ragaudit.results.schema)."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import stat
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from ragaudit.errors import RagauditError
from ragaudit.results.compressed import is_compressed, read_gzip_text
from ragaudit.results.schema import ALSO_READS, SCHEMA_VERSION, TOP_LEVEL_FIELDS


def now_iso() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def process_umask() -> int:
    """The process's umask, read without changing it: os.umask can only read it by setting
    it, and the moment it is set to anything else every other thread creating a file gets
    that mode (the Streamlit server's threads). Linux reports it in /proc/self/status;
    elsewhere the common default 0o022."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write `text` to a temp file beside `path`, fsync, then os.replace: a reader sees the
    old file or the new one, never half of one. Every atomic write in ragaudit goes here."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """`write_text_atomic` of bytes (a Parquet export)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file owner-only; a results file is for every reader (umask rules)
        os.fchmod(handle, 0o666 & ~process_umask())
        with os.fdopen(handle, "wb") as out:
            out.write(data)
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


def check_writable(target: Path, flag: str) -> None:
    """Refuse, naming `flag` and `target`, a file that could not be written atomically
    (a temp file beside it, then a rename over it): an existing target must be a writable
    regular file (a rename over /dev/null would replace the device), and its folder must
    exist or be creatable and be writable. Checked by creating an unnamed temp file in
    the nearest existing folder, so nothing is left behind and no folder is made."""
    if target.is_symlink() or target.exists():
        if not target.is_file():
            raise RagauditError(f"{flag} {target}: exists and is not a regular file")
        if not os.access(target, os.W_OK):
            raise RagauditError(f"{flag} {target}: the file is not writable")
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise RagauditError(f"{flag} {target}: {folder} is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise RagauditError(
            f"{flag} {target}: cannot write in {folder} ({error.strerror})"
        ) from None


def partial_path(path: str | Path) -> Path:
    """Where a run writes its results in progress for `path`: `<stem>.partial<suffix>`
    beside it, so the file at `path` is only ever replaced by a complete one."""
    path = Path(path)
    return path.with_name(f"{path.stem}.partial{path.suffix}")


def previous_path(path: str | Path) -> Path:
    """Where the file at `path` is kept when a finished run replaces it:
    `<stem>.prev<suffix>` beside it."""
    path = Path(path)
    return path.with_name(f"{path.stem}.prev{path.suffix}")


def publish_results(path: str | Path, results: dict) -> Path | None:
    """Write the finished run's results to `path` (complete), after keeping the file that
    was there as `previous_path(path)`, then remove the run's partial file. Returns where
    the previous file was kept, or None when there was none."""
    path = Path(path)
    kept = _keep_previous(path)
    write_results(path, results, complete=True)
    partial_path(path).unlink(missing_ok=True)
    return kept


def _keep_previous(path: Path) -> Path | None:
    if not path.is_file():
        return None
    previous = previous_path(path)
    # Named like write_text_atomic's temp files, so a kill here leaves an orphan the next
    # run removes; a hard link, so `path` is never absent and nothing is copied.
    temp = path.with_name(f".{previous.name}.{secrets.token_hex(4)}.tmp")
    try:
        try:
            os.link(path, temp)
        except OSError:  # a file system without hard links
            shutil.copy2(path, temp)
        os.replace(temp, previous)
    except OSError as error:
        temp.unlink(missing_ok=True)
        raise RagauditError(
            f"{previous}: cannot keep the previous results there ({error.strerror}); "
            f"{path} was left as it was"
        ) from None
    return previous


def remove_orphan_temps(folder: str | Path, names: list[str]) -> list[Path]:
    """Remove the temp files killed atomic writes of `names` left in `folder` (named
    `.<name>.<8 characters>.tmp`, as write_text_atomic and publish_results make them).
    Only while nothing else writes those names (a run holds the data folder's run lock).
    Returns the files removed."""
    patterns = [re.compile(rf"\.{re.escape(name)}\.[a-z0-9_]{{8}}\.tmp") for name in names]
    try:
        entries = list(Path(folder).iterdir())
    except OSError:  # no folder yet: nothing left behind
        return []
    removed = []
    for entry in entries:
        if any(p.fullmatch(entry.name) for p in patterns) and entry.is_file():
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


@dataclass(frozen=True)
class DocumentKind:
    """A kind of JSON document ragaudit writes and reads back: what it is called, the schema
    version this ragaudit reads, the fields it must carry, and the command that makes one."""

    name: str
    """How a message names it: `results`, `audit results`."""
    schema_version: int
    required_fields: tuple[str, ...]
    command: str
    """The command that writes one, named when a file is missing or of another version."""
    kind: str | None = None
    """The document's `kind` field; None for the matrix results file, which has none."""
    also_reads: tuple[int, ...] = ()
    """Older versions read as they are (their readers tolerate the fields they lack)."""


RESULTS = DocumentKind(
    "results", SCHEMA_VERSION, TOP_LEVEL_FIELDS, "ragaudit run", None, ALSO_READS
)


def load_document(path: str | Path, kind: DocumentKind = RESULTS) -> dict:
    """Read and check one document of `kind`: JSON, an object, that kind, its schema
    version, every required field. A RagauditError names the file and the problem, in the
    same words for every kind."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise RagauditError(f"{path}: no {kind.name} file here (run `{kind.command}` first)")
    text = read_gzip_text(path) if is_compressed(path) else read_text(path, str(path))
    data = parse_json(text, path)
    if not isinstance(data, dict):
        raise RagauditError(f"{path}: expected a JSON object at the top level")
    if data.get("kind") != kind.kind:
        shown = json.dumps(data.get("kind"), ensure_ascii=False)[:60]
        found = f'its "kind" is {shown}' if "kind" in data else f'no "kind": "{kind.kind}"'
        raise RagauditError(f"{path}: not {_article(kind.name)} {kind.name} file ({found})")
    if "schema_version" not in data:
        raise RagauditError(
            f"{path}: missing field 'schema_version' (not a ragaudit {kind.name} file)"
        )
    version = data["schema_version"]
    if version != kind.schema_version and version not in kind.also_reads:
        age = "older" if isinstance(version, int) and version < kind.schema_version else "other"
        raise RagauditError(
            f"{path}: schema_version {version!r} is an {age} {kind.name} format; this ragaudit "
            f"reads version {_versions(kind)} (rerun `{kind.command}` to regenerate it)"
        )
    missing = [name for name in kind.required_fields if name not in data]
    if missing:
        raise RagauditError(f"{path}: missing top-level field {missing[0]!r}")
    return data


def _versions(kind: DocumentKind) -> str:
    versions = [str(v) for v in (kind.schema_version, *kind.also_reads)]
    return " and ".join(filter(None, (", ".join(versions[:-1]), versions[-1])))


MAX_INPUT_BYTES = 4 * 2**20
"""The largest hand-written input ragaudit parses (configs, settings, case files): a real
one is a few KB, and PyYAML's pure-Python parser reads about 1 MB a second."""


def read_text(path: str | Path, source: str, *, max_bytes: int | None = None) -> str:
    """The regular file at `path` as UTF-8 text (a leading BOM dropped). A RagauditError
    names `source` (the file, as the caller names it) and the problem: missing, not a
    regular file (a FIFO would block, a device never ends), over `max_bytes`, unreadable,
    not UTF-8. Nothing is opened before os.stat says it is a regular file."""
    path = Path(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise RagauditError(f"{source}: not a regular file")
        if max_bytes is not None and info.st_size > max_bytes:
            raise RagauditError(
                f"{source}: {info.st_size / 2**20:.1f} MB, more than the "
                f"{max_bytes / 2**20:.0f} MB ragaudit reads from a file like this"
            )
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise RagauditError(f"{source}: no such file") from None
    except UnicodeDecodeError as error:
        raise RagauditError(f"{source}: not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise RagauditError(f"{source}: cannot read ({error.strerror})") from None


class _NonFinite(Exception):
    """NaN or ±Infinity in a JSON text: Python's json reads them, the JSON standard and
    ragaudit's writers (allow_nan=False) do not."""


def _refuse_constant(name: str) -> None:
    raise _NonFinite(name)


def parse_json(text: str, source: str | Path, *, one_line: bool = False) -> Any:
    """`text` parsed as strict JSON: NaN and ±Infinity are refused like any syntax error,
    and so is nesting too deep to read. An error names `source` (the file, as the caller
    names it) and the line, in the one wording every reader of a JSON file uses;
    `one_line=True` when `source` already names the line (a JSONL record)."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        where = "" if one_line else f" at line {error.lineno}"
        problem = f"{error.msg}{where}"
    except _NonFinite as error:
        problem = f"{error} is not a number JSON allows; ragaudit writes finite numbers only"
    except RecursionError:
        problem = "nested too deeply to read"
    raise RagauditError(f"{source}: not valid JSON ({problem})")


def parse_yaml(text: str, source: str | Path) -> tuple[Any, Any]:
    """`text` parsed as YAML with the safe loader (plain data only), and its root node
    (None for an empty document), whose marks give each field's line. One pass of
    PyYAML's pure-Python parser: it raises RecursionError on deep nesting where libyaml
    would overflow the C stack. An error is one line naming `source` and the line."""
    import yaml

    loader = None
    try:
        loader = _safe_loader()(text)  # its reader refuses control characters at once
        node = loader.get_single_node()
        return (loader.construct_document(node) if node is not None else None), node
    except yaml.reader.ReaderError as error:  # a character YAML forbids, by offset
        where = f"line {text.count(chr(10), 0, error.position) + 1}: "
        problem = f"unacceptable character #x{error.character:04x}: {error.reason}"
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
    except RecursionError:
        where, problem = "", "nested too deeply to read"
    finally:
        if loader is not None:
            loader.dispose()
    raise RagauditError(f"{source}: {where}invalid YAML ({' '.join(problem.split())})")


@cache
def _safe_loader() -> type:
    import yaml

    class SafeLoader(yaml.SafeLoader):
        """The safe loader, with a value its constructor cannot build (`2020-13-45`,
        `!!int x`) reported as a YAML error at that value's line, not a ValueError."""

        def construct_object(self, node, deep=False):
            try:
                return super().construct_object(node, deep)
            except (ValueError, TypeError, OverflowError) as error:
                raise yaml.constructor.ConstructorError(
                    None, None, f"{node.value!r}: {error}"[:200], node.start_mark
                ) from None

    return SafeLoader


def _article(noun: str) -> str:
    return "an" if noun[:1] in "aeiou" else "a"


_OBJECT, _LIST = (dict, "an object"), (list, "a list")
RESULTS_FIELD_TYPES: dict[str, tuple[type, str]] = {
    "run": _OBJECT, "corpus": _OBJECT, "configs": _LIST, "embedders": _LIST,
    "models": _LIST, "conditions": _OBJECT, "chunks": _OBJECT, "instances": _LIST,
    "cells": _LIST, "comparisons": _LIST, "analysis": _OBJECT, "severity_rules": _LIST,
    "citation_rollup": _OBJECT, "control_certification": _OBJECT, "chunk_offsets": _OBJECT,
    "extra_measurements": _OBJECT, "grading_patterns": _OBJECT,
}  # fmt: skip
"""The JSON type of each top-level field that holds one (docs/results-schema.md); the
items of every list are objects. Any of them may be absent or null (a missing value)."""


def load_results(path: str | Path, *, allow_partial: bool = True) -> dict:
    """`load_document` of a matrix results file, each top-level field of its JSON type
    (RESULTS_FIELD_TYPES); `allow_partial=False` also refuses a file whose run has not
    finished."""
    data = load_document(path, RESULTS)
    for name, (json_type, described) in RESULTS_FIELD_TYPES.items():
        value = data.get(name)
        if value is not None and not isinstance(value, json_type):
            raise RagauditError(f"{path}: field {name!r} must be {described}, not {value!r:.60}")
        if json_type is list and not all(isinstance(item, dict) for item in value or ()):
            raise RagauditError(f"{path}: field {name!r} must be a list of objects")
    if not isinstance(data["complete"], bool):
        raise RagauditError(f"{path}: field 'complete' must be true or false")
    if not allow_partial and not data["complete"]:
        raise RagauditError(
            f"{path}: the run that writes this file has not finished (complete: false)"
        )
    return data
