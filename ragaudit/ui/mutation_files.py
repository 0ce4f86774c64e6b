"""The mutate files the mutation view puts side by side: the open one, then those chosen
among the data folder's results folder, each a column of the heatmap.

Offered: the results folder's JSON files that pass the check a link's path passes
(ui.allowed) and whose head says `run.kind` is `"mutate"`. Only the head is read (a few KB):
the page lists them before any is loaded, and a results folder holds matrix files of
10 MB, so loading each to learn its kind would delay the heatmap. A chosen file is then
loaded whole by the one loader and checked again. Nothing in a URL adds to the list.

Two files pair by mutant id with the open one when results.mutation.why_not_paired finds
nothing against it (the same corpus, the same phrasings); otherwise they stand side by
side unpaired, and the page says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ragaudit import paths
from ragaudit.results.mutation import column_name, paired_reason, why_not_paired
from ragaudit.results.view import is_mutation_audit
from ragaudit.ui.allowed import Refused, regular_file, url_path
from ragaudit.ui.data import load

HEAD_BYTES = 8192
"""How much of a file is read to learn its kind: `run` is the file's fourth key."""
_MUTATE_HEAD = re.compile(rb'"run"\s*:\s*\{\s*"kind"\s*:\s*"mutate"')
NOT_RESULTS = (".partial.json", ".sessions.json")
"""A run's file in progress and its sessions ledger: never offered."""


@dataclass(frozen=True)
class AuditColumn:
    """One mutate file as a column of the view."""

    label: str
    """The column heading: the file's column name (its file's name too when two files
    share a column name)."""
    path: Path | None
    results: dict
    opened: bool
    """The page's own file (links to it carry the session's `?results=`)."""
    paired: bool
    """Its mutants pair with the open file's by mutant id (the open file: True)."""
    pairing: str
    """Why it is paired with the open file, or why not (empty for the open file)."""


def _looks_mutate(path: Path) -> bool:
    try:
        regular_file(path)
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except (Refused, OSError):
        return False
    return bool(_MUTATE_HEAD.search(head))


def mutate_files(opened: Path | None) -> list[Path]:
    """The results folder's mutate files other than the open one, by name."""
    root = paths.results_dir()
    try:
        names = sorted(root.iterdir())
    except OSError:  # no results folder yet
        return []
    mine = opened.resolve() if opened is not None else None
    listed = []
    for path in names:
        if path.suffix != ".json" or path.name.endswith(NOT_RESULTS):
            continue
        try:
            resolved = url_path(str(path), "results")
        except Refused:  # a symlink out of the folder: never offered
            continue
        if resolved != mine and _looks_mutate(path):
            listed.append(path)
    return listed


def load_columns(
    results: dict, opened: Path | None, chosen: list[Path]
) -> tuple[list[AuditColumn], list[str]]:
    """The open file's column, then each chosen file's; and one line for each chosen file
    that could not be shown (unreadable, or not a mutate file)."""
    loaded: list[tuple[Path | None, dict]] = [(opened, results)]
    problems = []
    for path in chosen:
        got = load(path)
        if got.results is None:
            problems.append(f"{path.name}: {got.problem}")
        elif not is_mutation_audit(got.results):
            problems.append(f"{path.name}: not a mutation audit's file (run.kind is not mutate)")
        else:
            loaded.append((path, got.results))
    labels = _labels(loaded)
    columns = []
    for index, (path, audit) in enumerate(loaded):
        refusal = None if index == 0 else why_not_paired(results, audit)
        pairing = "" if index == 0 else (refusal or paired_reason(results, audit))
        paired = refusal is None
        columns.append(AuditColumn(labels[index], path, audit, index == 0, paired, pairing))
    return columns, problems


def _labels(loaded: list[tuple[Path | None, dict]]) -> list[str]:
    """Each file's column name; where two files share one, each named by its file too
    (and by its place, where even that is shared)."""
    names = [column_name(audit) for _, audit in loaded]
    labels = [
        f"{name} ({path.name if path else 'open file'})" if names.count(name) > 1 else name
        for name, (path, _) in zip(names, loaded, strict=True)
    ]
    return [f"{label} #{i + 1}" if labels.count(label) > 1 else label
            for i, label in enumerate(labels)]  # fmt: skip
