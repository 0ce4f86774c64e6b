"""Which comparison two files get: a ragaudit settings file (the `ragaudit audit
--settings` format, validated strictly, defaults resolved) is compared as one when both
files are settings files; anything else is read as source, constants found by name."""

from __future__ import annotations

from pathlib import Path

from ragaudit.auditing.settings import AuditSettings
from ragaudit.codescan.sources import source_kind
from ragaudit.fileio.lines import load_with_lines


def is_settings_file(path: Path) -> bool:
    """True for a YAML/JSON mapping at least half of whose top-level keys are settings
    fields: `k`, `candidate_pool`, `floor`, … (so a settings file with one misspelt key is
    still validated as one, and its error names the key) but a project's own config
    (`retrieval: {top_k: 8}`, `TOP_K: 8`) is read as source."""
    if source_kind(path) not in ("yaml", "json"):
        return False
    data, _ = load_with_lines(Path(path), "settings file")
    if not isinstance(data, dict) or not data:
        return False
    known = sum(str(key) in AuditSettings.model_fields for key in data)
    return known * 2 >= len(data)
