"""A small generic registry: decorator registration, duplicates refused, near-miss hints."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from ragaudit.errors import RagauditError

T = TypeVar("T")


class Registry(Generic[T]):
    """Names mapped to items of one kind (probes, backends, ...).

    Registration happens when a module that defines an item is imported by whoever
    builds the registry, never as a side effect of importing ragaudit itself.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        def decorate(item: T) -> T:
            self.add(name, item)
            return item

        return decorate

    def add(self, name: str, item: T) -> None:
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._items[name] = item

    def get(self, name: str) -> T:
        if name not in self._items:
            raise RagauditError(unknown_name_message(self.kind, name, list(self._items)))
        return self._items[name]

    def names(self) -> list[str]:
        return list(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def unknown_name_message(kind: str, name: str, valid: list[str]) -> str:
    """`unknown probe 'boundry'; did you mean 'boundary'? valid: a, b, c`, or
    `unknown probe 'xyz'; valid: a, b, c` when nothing is close."""
    close = difflib.get_close_matches(name, valid, n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ";"
    return f"unknown {kind} {name!r}{hint} valid: {', '.join(valid)}"
