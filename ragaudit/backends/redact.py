"""The one redacting formatter for messages built from what a server sent back.

A server may echo what it was sent (the `Authorization` header among it) in an error
message, a reply field or a model listing, and a message may be cut or escaped on its way
to stderr or a results file. So a key is not matched whole: any run of MIN_RUN or more
consecutive characters of the key, or of its escaped forms (repr of the text and of its
bytes; JSON, with `/` escaped or not; URL-encoded with `/` kept or not, in either hex
case; base64 and URL-safe base64 at each of the three byte alignments a key can have
inside a longer encoded text, such as a `Basic` header), wherever it starts, becomes
`***`. A key shorter than MIN_RUN is matched whole. Redact before cutting
a message short: a cut can only shorten a run that was already replaced.
"""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import quote, quote_plus

MIN_RUN = 8
"""The shortest run of the key's characters that is redacted."""
MASK = "***"


class Redactor:
    """Replaces every run of MIN_RUN+ consecutive characters of `secret` in a text."""

    def __init__(self, secret: str) -> None:
        self._secret = secret
        forms = escaped_forms(secret) if secret else set()
        self._grams = {
            form[start : start + MIN_RUN]
            for form in forms
            for start in range(len(form) - MIN_RUN + 1)
        }

    def __call__(self, text: object) -> str:
        """`text` as a string with the secret's runs masked."""
        text = str(text)
        if not self._secret:
            return text
        if len(self._secret) < MIN_RUN:
            return text.replace(self._secret, MASK)
        covered = bytearray(len(text))
        for start in range(len(text) - MIN_RUN + 1):
            if text[start : start + MIN_RUN] in self._grams:
                covered[start : start + MIN_RUN] = b"\x01" * MIN_RUN
        if not any(covered):
            return text
        out, masking = [], False
        for char, hidden in zip(text, covered, strict=True):
            if hidden and not masking:
                out.append(MASK)
            elif not hidden:
                out.append(char)
            masking = bool(hidden)
        return "".join(out)

    def changes(self, text: str) -> bool:
        """True when `text` holds a run of the secret."""
        return self(text) != text


def escaped_forms(secret: str) -> set[str]:
    """`secret` as a reply may carry it: raw, repr, JSON, URL-encoded and base64."""
    escaped = json.dumps(secret)[1:-1]
    forms = {secret, repr(secret)[1:-1], repr(secret.encode())[2:-1], escaped}
    forms.add(escaped.replace("/", "\\/"))  # JSON writers that escape the slash
    for quoted in (quote(secret, safe=""), quote(secret), quote_plus(secret, safe="")):
        forms |= {quoted, re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), quoted)}
    data = secret.encode("utf-8")
    for skip in range(3):  # where the key's first whole byte falls in a base64 group of 3
        tail = data[skip:]
        whole = len(tail) - len(tail) % 3
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            # a last partial group's first character(s) depend on the key's bytes alone
            forms.add((encode(tail[:whole]) + encode(tail[whole:])[: len(tail) - whole]).decode())
    return forms


def one_line(text: str, redact: Redactor, limit: int = 300) -> str:
    """`text`'s first line, redacted, then cut to `limit` characters (in that order)."""
    text = redact(str(text)).strip()
    first = text.splitlines()[0] if text else ""
    return first[:limit] if first else "no message"
