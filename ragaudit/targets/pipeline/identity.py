"""A user pipeline's identity in the call cache: what its answers are replayed under.

A model is named by its weights' digest; a user's pipeline has none, and a user who edits
the prompt inside their factory must not get the old answers replayed. So a factory is
named by the sha256 of its module's source file (plus its args), an HTTP service by its
method, URL, body template and response mapping (never a header's value), and either by
the `version:` the user sets, to bump when what changed is outside those (a model swapped
on the server). The description is stored in the cache's `identities` table
(CallCache.remember_identity); each answer's key holds its sha256.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import uuid
from typing import Any

from ragaudit.errors import RagauditError
from ragaudit.targets.given import Built, Given


def module_source_sha256(factory: str, label: str) -> str:
    """sha256 of the source file of the module `factory` (``pkg.mod:fn``) is defined in."""
    module_name = factory.split(":", 1)[0]
    try:
        module = importlib.import_module(module_name)
        path = inspect.getsourcefile(module)
    except (ImportError, TypeError) as error:
        raise RagauditError(f"{label}: cannot read {module_name}'s source: {error}") from None
    if path is None:
        raise RagauditError(f"{label}: {module_name} has no source file to key the cache by")
    with open(path, "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


def object_source_sha256(value: Any) -> str | None:
    """sha256 of the source file of the module a function or class given in Python is
    defined in; None for one with no source file (defined in a notebook or `__main__`)."""
    module = inspect.getmodule(value)
    if module is None or module.__name__ == "__main__":
        return None
    try:
        path = inspect.getsourcefile(module)
    except TypeError:  # a built-in module
        return None
    if path is None or not os.path.isfile(path):
        return None
    with open(path, "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


def not_replayed(factory: Any, version: Any) -> str | None:
    """Why the answers of a target given in Python are never replayed from the cache, or
    None when they are: a factory defined in a module is keyed by that module's source (an
    edit asks again, as for an import path); one defined in a notebook, one carrying
    values its source does not say (a method's object, a closure's values), or an object
    already built (its class is a library's, so an edit to its prompt, k or documents
    would not change that), needs `version=`."""
    if not isinstance(factory, Given) or version is not None:
        return None
    source = None if isinstance(factory, Built) else object_source_sha256(factory.value)
    return _why_not_replayed(factory, source)


def _why_not_replayed(factory: Given, source_sha256: str | None) -> str | None:
    """not_replayed's reason, given its module's source hash (read once per identity)."""
    if isinstance(factory, Built):
        return (
            f"{factory} was given built, so its answers are not replayed from the cache: "
            "pass version= (bump it when you change it) to replay them"
        )
    if source_sha256 is None:
        return (
            f"{factory} has no source file (a notebook or __main__), so its answers are not "
            "replayed from the cache: pass version= (bump it when you edit it) to replay them"
        )
    state = _state_of(factory.value)
    if state is not None:
        return (
            f"{factory} {state}, which its module's source does not say, so its answers are "
            "not replayed from the cache: pass version= (bump it when you change it) to "
            "replay them"
        )
    return None


def _state_of(value: Any) -> str | None:
    """What a function given in Python carries beyond its module's source: the object a
    method is bound to, or a closure's values (made at run time, from a notebook's
    variables, say); a closure over functions only (a decorator's) carries none."""
    owner = getattr(value, "__self__", None)
    if inspect.ismethod(value) and not inspect.isclass(owner):
        return f"is bound to a {type(owner).__name__} object"
    for cell in getattr(value, "__closure__", None) or ():
        try:
            held = cell.cell_contents
        except ValueError:  # a cell not filled yet
            continue
        if not (inspect.isroutine(held) or inspect.isclass(held) or inspect.ismodule(held)):
            return f"closes over a {type(held).__name__} value"
    return None


def _object_identity(factory: Given, entry: dict) -> dict:
    """The identity of a factory or object given in Python (see not_replayed)."""
    version = entry.get("version")
    source = None if isinstance(factory, Built) else object_source_sha256(factory.value)
    described = {
        "kind": "pipeline-object", "object": str(factory), "source_sha256": source,
        "args": entry.get("args") or {},
        "keys": [entry.get(k) for k in ("input_key", "answer_key", "context_key")],
        "version": None if version is None else str(version),
    }  # fmt: skip
    if version is None and _why_not_replayed(factory, source) is not None:
        described["unreplayed"] = uuid.uuid4().hex  # a key no earlier run could have
    return described


def describe_entry(entry: dict, label: str) -> dict:
    """The identity description of a `pipeline:` or `oracle:` entry (no secret in it)."""
    version = entry.get("version")
    if isinstance(entry.get("factory"), Given):
        return _object_identity(entry["factory"], entry)
    if entry.get("factory"):
        return {
            "kind": "pipeline-factory",
            "factory": entry["factory"],
            "source_sha256": module_source_sha256(entry["factory"], label),
            "args": entry.get("args") or {},
            "keys": [entry.get(k) for k in ("input_key", "answer_key", "context_key")],
            "version": None if version is None else str(version),
        }
    http = entry["http"]
    return {
        "kind": "pipeline-http",
        "method": http["method"],
        "url": http["url"],
        "body": http["body"],
        "mapping": {
            key: http.get(key)
            for key in (
                "answer",
                "contexts",
                "context_text",
                "context_id",
                "context_score",
                "citations",
            )
        },  # fmt: skip
        "header_names": sorted(http.get("headers") or {}),
        "version": None if version is None else str(version),
    }
