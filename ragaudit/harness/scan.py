"""Running harness-check: the files under the paths given, each parsed for real and read by
its language's rules, then the waivers applied."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ragaudit.codescan.sources import (
    JS_KINDS,
    js_tree,
    python_tree,
    read_source,
    source_kind,
)
from ragaudit.errors import RagauditError
from ragaudit.harness.findings import Finding
from ragaudit.harness.js_rules import js_findings
from ragaudit.harness.python_rules import python_findings
from ragaudit.harness.waivers import Waiver, apply_waivers

SCANNED_KINDS = ("python", *JS_KINDS)
# Folders a walk never enters: installed packages, caches, version control, virtualenvs.
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "site-packages", "venv"})


@dataclass(frozen=True)
class HarnessCheck:
    """One harness-check: what was scanned and what was found."""

    paths: list[str]
    """The paths as given."""
    files: list[str]
    """Every file scanned, in order."""
    findings: list[Finding]
    """Sorted by file and line; waived ones included, marked."""
    unused_waivers: list[Waiver] = field(default_factory=list)

    @property
    def not_waived(self) -> list[Finding]:
        """The findings that make the check fail."""
        return [f for f in self.findings if not f.waived]


def collect_files(paths: list[Path]) -> list[Path]:
    """The Python, JavaScript and TypeScript files at or under `paths`, each once, sorted
    within each folder. A path that is missing, or a file given by name that is none of
    those, is an error naming it."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(_walk(path))
        elif path.is_file():
            if source_kind(path) not in SCANNED_KINDS:
                raise RagauditError(
                    f"{path}: not a Python, JavaScript or TypeScript file (harness-check "
                    "reads .py, .js, .mjs, .cjs, .jsx, .ts, .mts, .cts, .tsx)"
                )
            found.append(path)
        elif path.is_symlink() and not path.exists():
            raise RagauditError(f"{path}: a symlink to nothing (no such file or folder there)")
        elif path.exists():
            raise RagauditError(
                f"{path}: {_not_regular(path)}; harness-check reads files and folders"
            )
        else:
            raise RagauditError(f"{path}: no such file or folder")
    seen: set[Path] = set()
    unique = []
    for path in found:
        if path.resolve() not in seen:
            seen.add(path.resolve())
            unique.append(path)
    return unique


_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(path: Path) -> str:
    """What the path that is neither a file nor a folder is, in words."""
    try:
        mode = path.stat().st_mode
    except OSError as error:  # a symlink to nothing, a loop, no permission
        return f"cannot be read ({error.strerror or error})"
    kind = next((what for is_kind, what in _KINDS if is_kind(mode)), "not a regular file")
    return f"{kind}, not a regular file or a folder" if kind.startswith("a ") else kind


def _walk(folder: Path) -> list[Path]:
    out = []
    for root, folders, files in os.walk(folder):
        # hidden folders (.git, .venv) and installed code are not the project's harness
        folders[:] = sorted(
            f for f in folders if not f.startswith(".") and f not in SKIPPED_FOLDERS
        )
        out.extend(
            Path(root) / name for name in sorted(files) if source_kind(name) in SCANNED_KINDS
        )
    return out


def file_findings(path: Path) -> list[Finding]:
    """Every finding in one file, by its language's rules."""
    text = read_source(path)
    kind = source_kind(path)
    if kind == "python":
        return python_findings(str(path), text, python_tree(path, text))
    return js_findings(str(path), text, js_tree(kind, text))


def run_check(paths: list[Path], waivers: list[Waiver] | None = None) -> HarnessCheck:
    """Scan `paths`, apply `waivers`; the findings sorted by file order, line and rule."""
    files = collect_files(paths)
    order = {str(path): i for i, path in enumerate(files)}
    findings = [finding for path in files for finding in file_findings(path)]
    findings.sort(key=lambda f: (order[f.file], f.line, f.rule))
    findings, unused = apply_waivers(findings, waivers or [])
    return HarnessCheck([str(p) for p in paths], [str(p) for p in files], findings, unused)
