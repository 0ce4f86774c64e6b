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

from ragaudit.errors import RagauditError


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


def describe_entry(entry: dict, label: str) -> dict:
    """The identity description of a `pipeline:` or `oracle:` entry (no secret in it)."""
    version = entry.get("version")
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
