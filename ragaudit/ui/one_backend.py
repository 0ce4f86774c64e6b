"""One backend address for the inspector's pages, so that a page opened by its own address
(`/lab`, `/severity?probe=…`) logs no error in the browser's console.

Streamlit's frontend, opened at `/<page>`, looks for its server first at `/<page>/` and then
at `/`: it asks `/<page>/_stcore/health` and `/<page>/_stcore/host-config`, which answer 404,
and the browser logs each as a console error (streamlit#7074) before the frontend falls back
to `/`, where the inspector is served. Serving those two paths would not do: the frontend
would then take `/<page>/` as its base and ask the page's websocket and every page link
under it. The frontend reads its server's address from `window.__streamlit.BACKEND_BASE_URL`
when the page sets it, and then asks that address only; so every HTML page the server
sends sets it to the page's own origin (the inspector is served at `/`, never under a
prefix). The rest of the response is Streamlit's, unchanged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

SET_BACKEND = b'<script>window.__streamlit={BACKEND_BASE_URL:window.location.origin+"/"}</script>'
"""Set before Streamlit's own script runs (it reads the object once, as it loads)."""
_SERVED_BELOW = ("_stcore", "static", "media", "component", "app")
"""First path segments Streamlit serves files or endpoints under: never a page."""

Message = dict[str, Any]
Send = Callable[[Message], Awaitable[None]]


def is_page_request(scope: dict) -> bool:
    """A GET of a page's address (`/`, `/lab`): what Streamlit answers with index.html."""
    if scope.get("type") != "http" or scope.get("method") != "GET":
        return False
    path = scope.get("path", "/")
    first = path.strip("/").split("/", 1)[0]
    return first not in _SERVED_BELOW and "." not in path.rsplit("/", 1)[-1]


def with_backend(body: bytes) -> bytes:
    """index.html with SET_BACKEND first in its <head> (unchanged without one)."""
    return body.replace(b"<head>", b"<head>" + SET_BACKEND, 1)


class OneBackendBase:
    """ASGI middleware: a page's HTML gets SET_BACKEND; every other request passes as is."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Send) -> None:
        if not is_page_request(scope):
            await self.app(scope, receive, send)
            return
        # the HTML uncompressed, so it can be read; it is a few kilobytes, once per page load
        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"accept-encoding"]
        start: Message = {}
        parts: list[bytes] = []

        async def rewrite(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            parts.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(parts)
            kind = dict(start.get("headers", [])).get(b"content-type", b"")
            if kind.startswith(b"text/html"):
                body = with_backend(body)
                start["headers"] = [
                    (k, str(len(body)).encode() if k.lower() == b"content-length" else v)
                    for k, v in start.get("headers", [])
                ]
            await send(start)
            await send({"type": "http.response.body", "body": body})

        await self.app(dict(scope, headers=headers), receive, rewrite)
