"""A response mapping's path: JSONPath when it starts with `$`, JMESPath otherwise.

A stack file's `http:` entry says where the answer, the contexts and each context's text,
id and score sit in the service's JSON reply. Both languages are common in the peers'
configs (promptfoo takes JavaScript, Giskard a callable); a path is compiled when the stack
file is read, so one that cannot be parsed is refused before any call.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ResponsePath:
    """One compiled path and the text it was written as."""

    text: str
    language: str
    """``jsonpath`` or ``jmespath``."""
    compiled: Any

    def find(self, value: Any) -> list[Any]:
        """Every value the path selects in `value` (a JMESPath list result is its items;
        a JMESPath null is no value)."""
        if self.language == "jsonpath":
            return [match.value for match in self.compiled.find(value)]
        found = self.compiled.search(value)
        if found is None:
            return []
        return list(found) if isinstance(found, list) else [found]

    def one(self, value: Any) -> tuple[bool, Any]:
        """(found, the one value): a JSONPath's first match, a JMESPath's result as is."""
        if self.language == "jsonpath":
            matches = self.compiled.find(value)
            return (True, matches[0].value) if matches else (False, None)
        found = self.compiled.search(value)
        return found is not None, found


@functools.lru_cache(maxsize=256)
def _jsonpath(text: str) -> Any:
    """`text` parsed by jsonpath-ng (its parser is rebuilt on every parse: ~50 ms)."""
    from jsonpath_ng.ext import parse

    return parse(text)


def compile_path(text: str) -> ResponsePath:
    """`text` compiled; ValueError with the parser's reason when it cannot be parsed."""
    text = text.strip()
    if not text:
        raise ValueError("an empty path")
    if text.startswith("$"):
        from jsonpath_ng.exceptions import JsonPathLexerError, JsonPathParserError

        try:
            return ResponsePath(text, "jsonpath", _jsonpath(text))
        except (JsonPathLexerError, JsonPathParserError, Exception) as error:
            raise ValueError(f"JSONPath {text!r} cannot be parsed: {_first_line(error)}") from None
    import jmespath
    from jmespath.exceptions import JMESPathError

    try:
        return ResponsePath(text, "jmespath", jmespath.compile(text))
    except JMESPathError as error:
        raise ValueError(f"JMESPath {text!r} cannot be parsed: {_first_line(error)}") from None


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:160] if lines else type(error).__name__
