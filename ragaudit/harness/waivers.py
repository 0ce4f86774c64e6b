"""The waivers file: findings a person has looked at and accepted, each with its reason.

```yaml
waivers:
  - rule: empty-catch
    file: scripts/cleanup.py:14     # file, or file:line; relative to this file's folder
    reason: the temp file may already be gone; nothing is measured here
```

A waiver without a line covers every finding of its rule in that file. A waiver that
matches nothing is reported (the code it excused has moved or gone), never an error."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragaudit.errors import RagauditError
from ragaudit.fileio.lines import load_with_lines, validate
from ragaudit.harness.findings import RULES, Finding
from ragaudit.registry import unknown_name_message

_AT_LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")


@dataclass(frozen=True)
class Waiver:
    """One accepted finding (or every finding of a rule in one file)."""

    rule: str
    file: Path
    """Resolved against the waivers file's folder."""
    line: int | None
    reason: str
    written: str
    """`file[:line]` as the waivers file wrote it, for messages."""

    def covers(self, finding: Finding) -> bool:
        """Whether this waiver accepts `finding`."""
        if finding.rule != self.rule or (self.line is not None and finding.line != self.line):
            return False
        return Path(finding.file).resolve() == self.file


class WaiverEntry(BaseModel):
    """One entry as written: the rule, `file[:line]`, the reason."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    rule: str
    file: str = Field(min_length=1)
    reason: str = Field(min_length=1)

    @field_validator("rule")
    @classmethod
    def _known(cls, rule: str) -> str:
        if rule not in RULES:
            raise ValueError(unknown_name_message("rule", rule, list(RULES)))
        return rule

    @field_validator("reason")
    @classmethod
    def _said(cls, reason: str) -> str:
        if not reason.strip():
            raise ValueError("a waiver needs a reason")
        return reason


class WaiversFile(BaseModel):
    """The file: a list under `waivers`."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    waivers: list[WaiverEntry]


def load_waivers(path: Path) -> list[Waiver]:
    """The waivers in `path`; a bad file is one error naming the file, line and field."""
    data, lines = load_with_lines(path, "waivers file")
    parsed = validate(WaiversFile, data, path, "waivers file", lines)
    folder = Path(path).resolve().parent
    waivers = []
    for entry in parsed.waivers:
        match = _AT_LINE.match(entry.file)
        file, line = (match["file"], int(match["line"])) if match else (entry.file, None)
        if line == 0:
            raise RagauditError(f"waivers file {path}: {entry.file}: lines count from 1")
        resolved = (folder / file).resolve()
        waivers.append(Waiver(entry.rule, resolved, line, entry.reason.strip(), entry.file))
    return waivers


def apply_waivers(
    findings: list[Finding], waivers: list[Waiver]
) -> tuple[list[Finding], list[Waiver]]:
    """The findings with each one a waiver covers marked waived (the first waiver's reason),
    and the waivers that covered nothing."""
    used: set[int] = set()
    out = []
    for finding in findings:
        match = next((i for i, w in enumerate(waivers) if w.covers(finding)), None)
        if match is None:
            out.append(finding)
            continue
        used.add(match)
        out.append(finding.waive(waivers[match].reason))
    return out, [w for i, w in enumerate(waivers) if i not in used]
