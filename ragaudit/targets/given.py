"""A component given as a Python object instead of an import path (the library's way in).

A stack file names its splitter, retriever factory or pipeline factory by import path; the
library takes the objects themselves. Each is wrapped in one of two markers, which are
strings (its label, ``python:module.qualname``) so everything that prints, records or
keys a component by its path keeps working, and which carry the object:

* `Given`: a callable ragaudit calls as it would an imported one (a factory, a class);
* `Built`: an object already built (a splitter instance, a built retriever), used as is.
"""

from __future__ import annotations

from typing import Any


def label_of(value: Any) -> str:
    """``python:<module>.<qualname>`` of a function or class, else of the object's class."""
    named = value if hasattr(value, "__qualname__") else type(value)
    module = getattr(named, "__module__", None) or "?"
    return f"python:{module}.{getattr(named, '__qualname__', type(value).__name__)}"


class Given(str):
    """A callable given in Python, called where an imported component would be."""

    value: Any

    def __new__(cls, value: Any, label: str | None = None) -> Given:
        """`label`: what it is called instead of label_of(value) (a wrapper named by the
        object it wraps)."""
        made = super().__new__(cls, label or label_of(value))
        made.value = value
        return made


class Built(Given):
    """An object given in Python already built: used as is, never called."""
