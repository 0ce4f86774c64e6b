"""Text from a reply made fit to store: a lone surrogate is replaced, never cached as is.

JSON may spell half of a UTF-16 pair, `"\\ud800"` (a JavaScript service that cuts an
emoji in half sends it), and Python reads it into a str that no UTF-8 writer accepts: the
results file, stderr and the cache would raise UnicodeEncodeError, and a cached answer
would raise again on every rerun. So before a reply's text is stored each lone surrogate
becomes U+FFFD, the character a UTF-8 decoder puts for bytes it cannot read, and the
rest of the reply is kept: half an emoji spoils one character, not the answer. A stored
row that holds one (written before this check) is refused when read and asked again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def holds_lone_surrogate(text: str) -> bool:
    """True when `text` cannot be written as UTF-8 (it holds half a surrogate pair)."""
    return _SURROGATE.search(text) is not None


def storable(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (a whole pair spelt as two
    halves becomes its one character)."""
    if not holds_lone_surrogate(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def each_string(value: Any, change: Callable[[str], str]) -> Any:
    """A JSON value with `change` applied to every string in it, object keys included."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {change(str(k)): each_string(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [each_string(item, change) for item in value]
    return value
