"""A random high-entropy key holding `/`, `+` and `"`, how a service echoes it, and where it
leaked: any run of 8 consecutive characters of the key, raw or in a form a writer or a
server gives it (JSON, with `/` escaped or not; repr of the text and of its bytes;
URL-encoded with `/` kept or not, `+` or `%20` for a space, either hex case; base64 and
URL-safe base64 at every byte alignment), in a file under a folder or in captured output.

The forms are worked out here from their definitions, not taken from ragaudit's redactor:
a base64 run is the characters whose 6 bits all come from the key's bytes, found by
encoding the key behind 0, 1 and 2 filler bytes.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import string
from pathlib import Path
from urllib.parse import quote, quote_plus

RUN = 8
ALPHABET = string.ascii_letters + string.digits + '/+"-_.~'


def new_key(length: int = 40) -> str:
    """`sk-` and `length` random characters, `/`, `+` and `"` among them."""
    chars = [secrets.choice(ALPHABET) for _ in range(length - 3)]
    for special in '/+"':
        chars.insert(secrets.randbelow(len(chars) + 1), special)
    return "sk-" + "".join(chars)


def echoed(value: str) -> str:
    """What an echoing service sends back: `value` in every form the module names."""
    data = value.encode()
    return (
        f"bad token {value} | url {quote(value, safe='')} | path {quote(value)} | plus "
        f"{quote_plus(value)} | b64 {base64.b64encode(data).decode()} | b64url "
        f"{base64.urlsafe_b64encode(data).decode()} | json {json.dumps(value)} | repr "
        f"{value!r} | bytes {data!r}"
    )


def _base64_runs(data: bytes) -> set[str]:
    """Each stretch of base64 characters carrying only the bits of `data`."""
    found = set()
    for filler in range(3):
        padded = b"\0" * filler + data + b"\0\0"
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(padded).decode()
            first = -(-8 * filler // 6)  # the first character starting inside `data`
            last = (8 * (filler + len(data))) // 6  # characters ending inside `data`
            found.add(text[first:last])
    return found


def key_forms(key: str) -> set[str]:
    """The key as the module docstring lists it."""
    forms = {key, json.dumps(key)[1:-1], json.dumps(key)[1:-1].replace("/", "\\/")}
    forms |= {repr(key)[1:-1], repr(key.encode())[2:-1]}
    for quoted in (quote(key, safe=""), quote(key), quote_plus(key)):
        forms |= {quoted, re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), quoted)}
    return forms | _base64_runs(key.encode())


def key_runs(key: str) -> set[str]:
    """Every run of RUN consecutive characters of every form of `key`."""
    return {form[i : i + RUN] for form in key_forms(key) for i in range(len(form) - RUN + 1)}


def leaks_in(data: bytes | str, key: str) -> list[str]:
    """The runs of `key` that `data` holds."""
    blob = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return sorted(run for run in key_runs(key) if run.encode() in blob)


def leaks_in_folder(folder: Path, key: str) -> list[str]:
    """`path: run` for each file under `folder` holding a run of `key`."""
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            found += [
                f"{path.relative_to(folder)}: {run!r}"
                for run in leaks_in(path.read_bytes(), key)[:1]
            ]
    return found
