"""One deadline for a whole HTTP request: connecting, sending, the reply's headers and its
whole body.

httpx's timeouts bound each read, so a server that trickles its reply (headers or body)
a byte a second passes every one of them: with a 5 s timeout a request was still running
at 40 s. A client from `deadline_client(seconds)` gives each request one deadline, and each
socket operation of that request (connecting, TLS, every write, every read) waits at most
the time left until it; past it the request raises httpx's timeout exception
(httpx.ReadTimeout, ...), which the callers already retry, count and describe.

How: the connection pool's network backend is wrapped, so every stream it opens clamps its
timeouts to the deadline of the request the calling thread is sending or reading (a
thread-local, set while the request is sent and while its body is read). Kept-alive
connections serve each request under its own deadline, and requests in flight in other
threads keep theirs. An HTTP proxy named by the environment (HTTP_PROXY, HTTPS_PROXY,
ALL_PROXY, NO_PROXY) is used as httpx would, under the same deadline.
"""

from __future__ import annotations

import functools
import ssl
import threading
import time
import urllib.request
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpcore
import httpx

_current = threading.local()


def _clamped(timeout: float | None, expired: type[Exception]) -> float | None:
    """`timeout` cut to the time left of this thread's request; `expired` when none is."""
    deadline = getattr(_current, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("no complete reply by the deadline")
    return left if timeout is None else min(timeout, left)


class _Under:
    """This thread's requests are under `deadline` while in the block."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    def __enter__(self) -> None:
        self.outer = getattr(_current, "deadline", None)
        _current.deadline = self.deadline

    def __exit__(self, *exc: object) -> None:
        _current.deadline = self.outer


class _Stream(httpcore.NetworkStream):
    """A socket stream whose every operation ends by the current request's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self.inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, _clamped(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, _clamped(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> _Stream:
        timeout = _clamped(timeout, httpcore.ConnectTimeout)
        return _Stream(self.inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str):
        return self.inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    """The pool's own backend, each stream it opens wrapped in a _Stream."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self.inner = inner

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        timeout = _clamped(timeout, httpcore.ConnectTimeout)
        return _Stream(self.inner.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        timeout = _clamped(timeout, httpcore.ConnectTimeout)
        return _Stream(self.inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class _Body(httpx.SyncByteStream):
    """A reply body read under its request's deadline."""

    def __init__(self, inner: httpx.SyncByteStream, deadline: float) -> None:
        self.inner, self.deadline = inner, deadline

    def __iter__(self) -> Iterator[bytes]:
        chunks = iter(self.inner)
        while True:
            with _Under(self.deadline):
                chunk = next(chunks, None)
            if chunk is None:
                return
            yield chunk

    def close(self) -> None:
        self.inner.close()


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's transport with one deadline, `seconds` after it starts, per request."""

    def __init__(self, seconds: float, **settings) -> None:
        super().__init__(**settings)
        pool = self._pool  # httpcore's pool: its backend opens every connection
        pool._network_backend = _Backend(pool._network_backend)
        self.seconds = seconds

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        deadline = time.monotonic() + self.seconds
        with _Under(deadline):
            response = super().handle_request(request)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Body(response.stream, deadline),
            extensions=response.extensions,
        )


def environment_proxy(url: str) -> str | None:
    """The proxy the environment names for `url` (None: none, or NO_PROXY covers it)."""
    parts = urlsplit(url)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy or (parts.hostname and urllib.request.proxy_bypass(parts.hostname)):
        return None
    return proxy


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """httpx's default TLS context (certifi's roots, SSL_CERT_FILE/DIR as the process
    started), built once: building one costs ~30 ms, and every client builds a transport."""
    return httpx.create_ssl_context()


def deadline_transport(seconds: float, url: str) -> DeadlineTransport:
    """A transport for requests to `url` (through the environment's proxy, if any), each
    ended by a deadline `seconds` after it starts."""
    return DeadlineTransport(seconds, proxy=environment_proxy(url), verify=_ssl_context())


def deadline_client(seconds: float, url: str, **settings) -> httpx.Client:
    """An httpx client for the server at `url` whose every request ends by a deadline
    `seconds` after it starts (headers, a base URL... in `settings`); redirects are not
    followed."""
    return httpx.Client(transport=deadline_transport(seconds, url), timeout=seconds, **settings)
