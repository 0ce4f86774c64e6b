"""A small generic registry: decorator registration, duplicates refused, near-miss hints.

Entries may be lazy: a ``"module:attribute"`` string stands for the item until it is first
asked for, so a registry of probes or backends can be listed without importing the modules
that implement them (a backend module may pull in an HTTP client or a model runtime).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from ragaudit.errors import RagauditError

T = TypeVar("T")


class Lazy(str):
    """A registry entry not imported yet: ``"package.module:attribute"``."""


class Registry(Generic[T]):
    """Names mapped to items of one kind (probes, backends, pages, ...).

    Registration happens when whoever builds the registry adds to it, never as a side
    effect of importing ragaudit itself; a registry built twice is two registries.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T | Lazy] = {}

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
        if name not in self._items:
            raise RagauditError(unknown_name_message(self.kind, name, list(self._items)))
        item = self._items[name]
        if isinstance(item, Lazy):
            item = self._items[name] = resolve(item)
        return item  # type: ignore[return-value]

    def names(self) -> list[str]:
        """Every name, in registration order (nothing is imported)."""
        return list(self._items)

    def items(self) -> list[T]:
        """Every item, in registration order (lazy ones imported now)."""
        return [self.get(name) for name in self._items]

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


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
