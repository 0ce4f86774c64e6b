"""Control calls to the tests' fake services on 127.0.0.1 (their `/__mode`, `/__seen`,
`/__stats`, ... routes): plain HTTP through urllib, which builds no TLS context (httpx's
module-level get and post build one per call, about 30 ms each)."""

from __future__ import annotations

import json
import urllib.request

_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""No proxy: the services are on this machine, whatever *_proxy says."""


def get_json(url: str, timeout: float = 5) -> object:
    """The JSON body of GET `url`."""
    with _DIRECT.open(url, timeout=timeout) as reply:
        return json.loads(reply.read())


def post_json(url: str, body: object = None, timeout: float = 5) -> object:
    """POST `body` as JSON (an empty body when None) to `url`; the reply's JSON, if any."""
    data = b"" if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method="POST", headers={"Content-Type": "application/json"}
    )
    with _DIRECT.open(request, timeout=timeout) as reply:
        text = reply.read()
    return json.loads(text) if text.strip() else None
