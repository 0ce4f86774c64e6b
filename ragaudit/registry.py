"""The one registry every extension table uses: probes, mutation operators, backends, stages,
inspector pages, judge metrics and commands.

Entries may be lazy: a ``"module:attribute"`` string stands for the item until it is first
asked for, so a registry can be listed without importing the modules that implement it (a
backend module may pull in an HTTP client or a model runtime), as lm-evaluation-harness
lists its tasks.

A registry with a `group` is open to plugins: the Python entry points of that group (see
GROUPS) join it after its built-in entries, as ``name = "module:attribute"`` lazy entries,
the first time it is read. A third-party package adds a probe, backend, page, stage,
operator or metric by declaring one in its own `pyproject.toml`, without editing ragaudit:

    [project.entry-points."ragaudit.probes"]
    toy = "ragaudit_toy.probe:PROBE"

A plugin's name that a built-in entry or another plugin already holds is refused in one line
naming both, never silently shadowed.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from ragaudit.errors import RagauditError

T = TypeVar("T")

GROUPS: dict[str, str] = {
    "probe": "ragaudit.probes",
    "operator": "ragaudit.operators",
    "backend": "ragaudit.backends",
    "stage": "ragaudit.stages",
    "page": "ragaudit.pages",
    "metric": "ragaudit.metrics",
}
"""Kind -> the entry-point group a plugin declares that kind in."""


class Lazy(str):
    """A registry entry not imported yet: ``"package.module:attribute"``."""


class Registry(Generic[T]):
    """Names mapped to items of one kind (probes, backends, pages, ...).

    Registration happens when whoever builds the registry adds to it, never as a side
    effect of importing ragaudit itself; a registry built twice is two registries.
    """

    def __init__(self, kind: str, group: str | None = None) -> None:
        """`group`: the entry-point group whose plugins join this registry (GROUPS)."""
        self.kind = kind
        self.group = group
        self._items: dict[str, T | Lazy] = {}
        self._origin: dict[str, str] = {}
        """Name -> the distribution of a plugin's entry (built-in entries have none)."""
        self._scanned = group is None

    def _entries(self) -> dict[str, T | Lazy]:
        """Every entry, the group's plugins added on the first read."""
        if not self._scanned:
            self._scanned = True
            for name, target, distribution in plugin_entries(self.group):
                if name in self._items:
                    holder = self._origin.get(name, "ragaudit")
                    raise RagauditError(
                        f"plugin {distribution}: {self.kind} {name!r} is already registered "
                        f"by {holder} (entry point group {self.group})"
                    )
                self._items[name] = Lazy(target)
                self._origin[name] = distribution
        return self._items

    def origin(self, name: str) -> str:
        """Who registered `name`: ``ragaudit``, or the plugin's distribution."""
        self._entries()
        return self._origin.get(name, "ragaudit")

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: ``@registry.register("name")`` adds what it decorates under `name`."""

        def decorate(item: T) -> T:
            self.add(name, item)
            return item

        return decorate

    def add(self, name: str, item: T) -> None:
        """Add `item` under `name`; a name registered twice is a programming error."""
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._items[name] = item

    def add_lazy(self, name: str, target: str) -> None:
        """Add ``"module:attribute"`` under `name`: imported the first time it is asked for."""
        if ":" not in target:
            raise ValueError(f"{self.kind} {name!r}: {target!r} is not 'module:attribute'")
        self.add(name, Lazy(target))  # type: ignore[arg-type]

    def get(self, name: str) -> T:
        """The item under `name` (imported now if lazy); an unknown name is one line naming
        the valid ones and the closest."""
        items = self._entries()
        if name not in items:
            raise RagauditError(unknown_name_message(self.kind, name, list(items)))
        item = items[name]
        if isinstance(item, Lazy):
            item = self._items[name] = resolve(item)
        return item  # type: ignore[return-value]

    def names(self) -> list[str]:
        """Every name, in registration order, plugins last (nothing is imported)."""
        return list(self._entries())

    def items(self) -> list[T]:
        """Every item, in registration order (lazy ones imported now)."""
        return [self.get(name) for name in list(self._entries())]

    def __contains__(self, name: object) -> bool:
        return name in self._entries()

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries()))

    def __len__(self) -> int:
        return len(self._entries())


def plugin_entries(group: str) -> list[tuple[str, str, str]]:
    """(name, ``"module:attribute"``, distribution) of every entry point in `group`, in
    distribution then name order (so a run's order does not depend on the install's);
    an entry that is not ``module:attribute`` is one line naming its distribution."""
    return list(_scanned_entries(group, _search_path_state()))


def _search_path_state() -> tuple[tuple[str, int | None], ...]:
    """sys.path with each folder's modification time: installing or removing a
    distribution adds or removes its ``*.dist-info`` folder in one of them, so the entry
    points are read again after any change (a run builds a dozen registries, and each scan
    of ~300 installed distributions takes about 10 ms)."""
    state = []
    for entry in sys.path:
        try:
            state.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            state.append((entry, None))
    return tuple(state)


@functools.lru_cache(maxsize=16)
def _scanned_entries(group: str, _state: tuple) -> tuple[tuple[str, str, str], ...]:
    from importlib.metadata import entry_points

    found = []
    for point in entry_points(group=group):
        distribution = point.dist.name if point.dist is not None else "an unnamed distribution"
        if ":" not in point.value or point.extras:
            raise RagauditError(
                f"plugin {distribution}: entry point {point.name} = {point.value!r} in "
                f"{group} is not 'module:attribute'"
            )
        found.append((point.name, point.value, distribution))
    return tuple(sorted(found, key=lambda entry: (entry[2], entry[0])))


def resolve(target: str) -> Any:
    """The object a ``"package.module:attribute"`` string names (the module imported now)."""
    module, _, attribute = target.partition(":")
    found: Any = importlib.import_module(module)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


def unknown_name_message(kind: str, name: str, valid: list[str]) -> str:
    """`unknown probe 'boundry'; did you mean 'boundary'? valid: a, b, c`, or
    `unknown probe 'xyz'; valid: a, b, c` when nothing is close."""
    close = difflib.get_close_matches(name, valid, n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ";"
    return f"unknown {kind} {name!r}{hint} valid: {', '.join(valid)}"
