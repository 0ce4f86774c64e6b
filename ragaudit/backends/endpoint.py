"""A server's address checked before anything connects to it: an http(s) URL with a host,
a port from 1 to 65535 when one is given, no user name or password (a key belongs in an
environment variable, never in a URL that the results file records), and no query or
fragment (the API's paths are appended to it). A stack file's `base_url` and a command
line's server flag are checked here, so a bad one is refused before any model loads."""

from __future__ import annotations

from urllib.parse import urlsplit

from ragaudit.errors import RagauditError

EXAMPLE = "http://127.0.0.1:8080/v1"


def endpoint_problem(url: object) -> str | None:
    """Why `url` names no server ragaudit can ask, or None when it is good."""
    if not isinstance(url, str) or not url.strip():
        return f"give an http(s) URL with a host, e.g. {EXAMPLE}"
    given = url.strip()
    if any(char.isspace() or ord(char) < 32 or ord(char) == 127 for char in given):
        return "a URL holds no spaces or control characters"
    try:
        parts = urlsplit(given)
        port = parts.port  # raises on a port that is not a number from 0 to 65535
    except ValueError:
        return "the port is not a number from 1 to 65535"
    if parts.scheme.lower() not in ("http", "https"):
        if not parts.scheme:
            return f"the URL names no scheme; give e.g. {EXAMPLE}"
        return f"{parts.scheme}: is not http or https; give e.g. {EXAMPLE}"
    if not parts.hostname:
        return f"the URL names no host; give e.g. {EXAMPLE}"
    if port == 0:
        return "the port is not a number from 1 to 65535"
    if parts.username is not None or parts.password is not None:
        return "a user name or password in the URL would be recorded; name the key's variable"
    if parts.query or parts.fragment or given.endswith(("?", "#")):
        return "the URL may not carry a query or fragment (ragaudit appends the API's paths)"
    return None


def check_endpoint(url: object, label: str) -> str:
    """`url` without surrounding spaces or a trailing slash, or one RagauditError naming
    `label` (the field or variable it came from) and what is wrong with it."""
    problem = endpoint_problem(url)
    if problem is not None:
        raise RagauditError(f"{label}={url!r:.80}: {problem}")
    return str(url).strip().rstrip("/")
