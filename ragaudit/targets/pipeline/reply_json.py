"""A service's reply body read as JSON, or the one reason it cannot be, in words.

`json.loads` fails on what a broken or hostile service sends in ways that name nothing: a
body nested thousands of levels deep raises a bare RecursionError (and one a few hundred
deep would make a path of the response mapping raise it later), a number of more than
4,300 digits raises Python's ValueError about integer string conversion, and an empty
body reads as "not JSON: b''". So each is said as what it is, and a reply nested more than
MAX_DEPTH levels is refused before its mapping reads it (a real reply is a few deep).
"""

from __future__ import annotations

import json
import sys
from typing import Any

MAX_DEPTH = 100
"""The deepest nesting of objects and lists read from a reply."""
TOO_DEEP = (
    f"the reply body is JSON nested more than {MAX_DEPTH} levels deep (objects and lists "
    "in one another), deeper than ragaudit reads"
)


class UnreadableReply(ValueError):
    """A reply body that is not JSON ragaudit reads; its text is the reason."""


def reply_json(data: bytes) -> Any:
    """`data` decoded as JSON, or UnreadableReply saying why not."""
    if not data.strip():
        raise UnreadableReply("the reply body is empty, not JSON")
    try:
        value = json.loads(data)
    except RecursionError:
        raise UnreadableReply(TOO_DEEP) from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise UnreadableReply(f"the reply body is not JSON: {data[:80]!r}") from None
    except ValueError:  # the only other: an integer past Python's digit limit
        digits = sys.get_int_max_str_digits()
        reason = f"the reply body holds a number of more than {digits:,} digits"
        raise UnreadableReply(reason) from None
    depth = depth_of(value, MAX_DEPTH + 1)
    if depth > MAX_DEPTH:
        raise UnreadableReply(TOO_DEEP)
    return value


def depth_of(value: Any, enough: int) -> int:
    """How deep objects and lists nest in `value` (a scalar is 0), counted up to `enough`:
    iterative, so no depth makes it recurse."""
    if not isinstance(value, dict | list):
        return 0
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        deepest = max(deepest, depth)
        if deepest >= enough:
            return deepest
        children = item.values() if isinstance(item, dict) else item
        pending += [(child, depth + 1) for child in children if isinstance(child, dict | list)]
    return deepest
