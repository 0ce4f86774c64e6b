"""A project's own names for the canonical constants: a small YAML (or JSON) mapping, one
`name: constant` per line, for the names the patterns do not know. A name mapped to null
is left out (a `limit` that is not a retrieval constant); a truncation is mapped by its key
(`lawHits[:N]: backfill_range`).

    STATUTE_WINDOW: backfill_range
    lawSlots: floor.slots
    pageLimit: null
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ragaudit.drift.patterns import CANONICAL, canonical
from ragaudit.errors import RagauditError
from ragaudit.fileio.lines import load_with_lines
from ragaudit.registry import unknown_name_message


@dataclass(frozen=True)
class NameMap:
    """Names as written -> canonical constant (None: not a retrieval constant)."""

    names: dict[str, str | None] = field(default_factory=dict)

    def constant_of(self, name: str) -> str | None:
        """The canonical constant of a name as written: the map first (the whole name,
        then its last dotted part), then the patterns. A truncation key (`x[:N]`) is
        never guessed from patterns: it is its own constant unless mapped."""
        for candidate in (name, name.rsplit(".", 1)[-1]):
            if candidate in self.names:
                return self.names[candidate]
        return None if name.endswith("[:N]") else canonical(name)

    def ignores(self, key: str) -> bool:
        """True when the map leaves `key` out (mapped to null)."""
        return key in self.names and self.names[key] is None


def load_name_map(path: Path | None) -> NameMap:
    """The map in `path`, checked: every value a canonical constant or null; a problem is
    one line naming the file, the line and the name."""
    if path is None:
        return NameMap()
    what = "name map"
    data, lines = load_with_lines(Path(path), what)
    if data is None:
        return NameMap()
    if not isinstance(data, dict):
        raise RagauditError(f"{what} {path}: expected `name: constant` lines (a mapping)")
    names: dict[str, str | None] = {}
    for name, constant in data.items():
        where = f"{what} {path}: line {lines.get((name,), 1)}: {name}"
        if constant is not None and (not isinstance(constant, str) or constant not in CANONICAL):
            shown = constant if isinstance(constant, str) else repr(constant)
            raise RagauditError(f"{where}: {unknown_name_message('constant', shown, CANONICAL)}")
        names[str(name)] = constant
    return NameMap(names)
