"""The user's components by import path: ``package.module.Name`` or ``package.module:name``.

A stack file names real classes and factories (a llama-index node parser, a LangChain text
splitter, a retriever factory in the user's own code). Importing or constructing one can fail
in many ways; every failure here becomes one line that names the stack-file field, the path
and what went wrong, because the CLI prints RagauditError without a traceback.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from ragaudit.errors import RagauditError
from ragaudit.targets.bounded import CallTimedOut, call_bounded
from ragaudit.targets.given import Built, Given

BUILD_SECONDS = 300.0
"""How long importing or constructing a component may take unless the stack file's
`limits.build_seconds` says otherwise (stack.bounded.UserCodeLimits)."""

_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = rf"{_IDENTIFIER}(?:\.{_IDENTIFIER})*"
_IMPORT_PATH = re.compile(rf"^(?:{_DOTTED}\.{_IDENTIFIER}|{_DOTTED}:{_DOTTED})$")
_MESSAGE_LINES = 3
_MESSAGE_CHARS = 300


def exception_line(error: BaseException) -> str:
    """An exception's message on one line: its first line, followed by the next lines that
    carry the detail when the first is only a heading (pydantic's "1 validation error for
    SentenceSplitter" says nothing until the field and reason under it), capped in length."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    # pydantic closes every error with a documentation link: not what went wrong.
    lines = [line for line in lines if not line.startswith("For further information")]
    text = ": ".join(lines[:_MESSAGE_LINES]) if lines else "(no message)"
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 1] + "…"


def import_component(path: str, field: str, seconds: float = BUILD_SECONDS) -> Any:
    """The object at ``path`` (``pkg.mod.Name`` or ``pkg.mod:name``, the part after ``:`` may
    be dotted: ``pkg.mod:Class.factory``), its module imported within ``seconds``. A failure
    is one RagauditError naming ``field``:
    ``"<field>: cannot import '<path>' (<ExcType>: <message>)"``."""
    if isinstance(path, Given):  # given in Python: nothing to import
        return path.value
    try:
        if not isinstance(path, str) or not _IMPORT_PATH.match(path):
            raise ValueError(
                "not an import path: expected package.module.Name or package.module:name"
            )
        return call_bounded(lambda: _resolve(path), seconds)
    except (Exception, SystemExit) as error:  # a module calling sys.exit() is broken too
        raise RagauditError(
            f"{field}: cannot import {path!r} ({type(error).__name__}: {exception_line(error)})"
        ) from None


def build_component(path: str, args: dict, field: str, seconds: float = BUILD_SECONDS) -> Any:
    """Import ``path`` and call it with ``**args`` (a class is constructed, a factory called),
    each within ``seconds``. A raise, a call past its limit, and a None returned are one
    RagauditError: ``"<field>: <path> raised <ExcType>: <message>"``. An object given
    already built (targets.given.Built) is used as is."""
    if isinstance(path, Built):
        return path.value
    component = import_component(path, field, seconds)
    if not isinstance(args, dict):
        raise RagauditError(
            f"{field}: args for {path} must be a mapping, got {type(args).__name__}"
        )
    try:
        built = call_bounded(lambda: component(**args), seconds)
    except CallTimedOut as error:
        raise RagauditError(f"{field}: {path} gave {error} (limits.build_seconds)") from None
    except (Exception, SystemExit) as error:
        raise RagauditError(
            f"{field}: {path} raised {type(error).__name__}: {exception_line(error)}"
        ) from None
    if built is None:
        raise RagauditError(f"{field}: {path} returned None, not a component")
    return built


def _resolve(path: str) -> Any:
    if ":" in path:
        module_name, attributes = path.split(":")
        return _attributes(importlib.import_module(module_name), attributes.split("."))
    parts = path.split(".")
    # pkg.mod.Outer.Inner: the module is the longest prefix that exists. Only a prefix that
    # is itself missing is skipped; a module that exists but fails to import is reported.
    first_error: ModuleNotFoundError | None = None
    for cut in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if not _is_prefix(error.name, module_name):
                raise
            first_error = first_error or error
            continue
        try:
            return _attributes(module, parts[cut:])
        except AttributeError:
            # "No module named 'pkg.nosuch'" says more than "'pkg' has no attribute 'nosuch'".
            if first_error is not None:
                raise first_error from None
            raise
    assert first_error is not None  # the loop ran at least once: the pattern has a dot
    raise first_error


def _is_prefix(missing: str | None, module_name: str) -> bool:
    """Whether the module that could not be found is ``module_name`` or a package above it."""
    return missing is not None and (module_name == missing or module_name.startswith(missing + "."))


def _attributes(target: Any, names: list[str]) -> Any:
    for name in names:
        target = getattr(target, name)
    return target
