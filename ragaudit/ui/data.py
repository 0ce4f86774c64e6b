"""Finding and loading the results file for the inspector, and the lookups pages share.

The file is loaded through `st.cache_data` keyed on path + mtime + size, so partial
results rewritten during a run show up on the next rerun while an unchanged file is
parsed once.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError

RESULTS_ENV = "RAGAUDIT_RESULTS"

MEASURE_LABELS = {
    "gold_in_context": "gold in context",
    "span_preserved": "span preserved",
    "correct": "answer correct",
    "abstained": "abstained",
    "trap_taken": "trap taken",
    "empty": "empty reply",
    "failed_call": "generation call failed",
    "retrieval_failed_call": "retrieval call failed",
}


@dataclass(frozen=True)
class Loaded:
    """What a page gets: the path, and either the results or the one-line problem."""

    path: Path
    results: dict | None
    problem: str | None
    """None when loaded; else why not (missing file, corrupt, older schema)."""
    missing: bool = False


def results_path(query_value: str | None = None) -> Path:
    """`?results=` wins, then $RAGAUDIT_RESULTS, then the default under data/."""
    if query_value:
        return Path(query_value).expanduser()
    env = os.environ.get(RESULTS_ENV)
    if env:
        return Path(env).expanduser()
    return paths.default_results_path()


def read_results(path: Path) -> dict:
    """Parse and validate one results file; RagauditError names the file and problem."""
    try:
        from ragaudit.results.io import load_results
    except ImportError:  # the loader lands with the run stage; until then, check the basics
        return _read_minimal(path)
    return load_results(path)


def _read_minimal(path: Path) -> dict:
    from ragaudit.results.schema import SCHEMA_VERSION, TOP_LEVEL_FIELDS

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise RagauditError(f"{path}: cannot read results file: {error}") from error
    except json.JSONDecodeError as error:
        raise RagauditError(f"{path}: not valid JSON (line {error.lineno}: {error.msg})") from error
    if not isinstance(data, dict):
        raise RagauditError(f"{path}: a results file is a JSON object, found {type(data).__name__}")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise RagauditError(
            f"{path}: schema_version {version!r}, this ragaudit reads {SCHEMA_VERSION}; "
            "rerun `ragaudit run`"
        )
    missing = [f for f in TOP_LEVEL_FIELDS if f not in data]
    if missing:
        raise RagauditError(f"{path}: missing field(s) {', '.join(missing)}")
    return data


def _cached_read(path_str: str, mtime_ns: int, size: int) -> dict:
    # mtime_ns and size are only part of the cache key: a rewritten file reloads.
    return read_results(Path(path_str))


def load(path: Path) -> Loaded:
    """Load `path` through st.cache_data; never raises for a bad or missing file."""
    import streamlit as st

    cached = st.cache_data(show_spinner="Loading results…", max_entries=4)(_cached_read)
    if not path.exists():
        return Loaded(path, None, f"No results yet at {path}.", missing=True)
    try:
        stat = path.stat()
        return Loaded(path, cached(str(path), stat.st_mtime_ns, stat.st_size), None)
    except RagauditError as error:
        return Loaded(path, None, str(error))
    except OSError as error:
        return Loaded(path, None, f"{path}: cannot read results file: {error}")


def fmt_measure(measure: dict | None) -> str:
    """`76% 19/25`, or `not run` when the cell or measure is absent."""
    if not measure:
        return "not run"
    return f"{measure['rate']:.0%} {measure['count']}/{measure['n']}"


def fmt_interval(measure: dict | None) -> str:
    """`95% CI 57–89%` from the recorded Wilson interval."""
    if not measure or not measure.get("wilson"):
        return "no interval"
    lo, hi = measure["wilson"]
    return f"95% CI {lo:.0%}–{hi:.0%}"


def config_names(results: dict) -> list[str]:
    """Configs in the file's order."""
    return [c["name"] for c in results["configs"]]


def config_by_name(results: dict) -> dict[str, dict]:
    return {c["name"]: c for c in results["configs"]}


def chunking_of(config: dict) -> str:
    """The chunking name a config uses, as in chunk ids (`recursive-1000-200`)."""
    return f"{config['splitter']}-{config['chunk_size']}-{config['overlap']}"


def embedder_specs(results: dict) -> list[str]:
    return [e["spec"] for e in results["embedders"]]


def probe_names(results: dict) -> list[str]:
    """Probes in corpus order, then any that appear only in records."""
    names = [p["name"] for p in results["corpus"].get("probes", [])]
    for record in results["instances"]:
        if record["probe"] not in names:
            names.append(record["probe"])
    return names


def probes_for(results: dict, embedder: str) -> list[str]:
    """Probes with any cell or instance record under `embedder`, in corpus order."""
    present = {c["probe"] for c in results["cells"] if c["embedder"] == embedder}
    present |= {r["probe"] for r in results["instances"] if r["embedder"] == embedder}
    return [p for p in probe_names(results) if p in present]


def probe_layers(results: dict) -> dict[str, str]:
    layers = {p["name"]: p.get("layer", "") for p in results["corpus"].get("probes", [])}
    for record in results["instances"]:
        layers.setdefault(record["probe"], record.get("layer", ""))
    return layers


def cell_index(results: dict) -> dict[tuple[str, str, str], dict]:
    """(probe, config, embedder) -> cell."""
    return {(c["probe"], c["config"], c["embedder"]): c for c in results["cells"]}


def cell_records(results: dict, probe: str, config: str, embedder: str) -> list[dict]:
    """The instance records of one cell, in instance order."""
    records = [
        r
        for r in results["instances"]
        if r["probe"] == probe and r["config"] == config and r["embedder"] == embedder
    ]
    return sorted(records, key=lambda r: r["instance_id"])


def instance_records(results: dict, probe: str, instance_id: str, embedder: str) -> dict[str, dict]:
    """config -> record for one instance under one embedder (for flips across configs)."""
    return {
        r["config"]: r
        for r in results["instances"]
        if r["probe"] == probe and r["instance_id"] == instance_id and r["embedder"] == embedder
    }
