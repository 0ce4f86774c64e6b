"""llama.cpp's OpenAI-compatible HTTP server for a shipped Qwen (`local:qwen2.5-<size>`),
run in this process (xllamacpp) on 127.0.0.1 and stopped by it.

One start for everything that serves the bundled generator over HTTP: the local LLM judge
(judges/server.py), `ragaudit serve` (a user's own pipeline, offline) and the pipeline
examples (examples/pipeline/run.py). Sampling is left to each request (the client's
temperature, seed and max_tokens), as on a hosted server.
"""

from __future__ import annotations

import gc
import socket
import time
from dataclasses import dataclass, field

import httpx

from ragaudit.backends.base import DEFAULT_N_CTX
from ragaudit.backends.qwen import (
    WEIGHTS,
    QwenWeights,
    gguf_path,
    llm_threads,
    missing_extra,
    note_engine_started,
    weights_for,
)
from ragaudit.errors import RagauditError
from ragaudit.registry import unknown_name_message

HOST = "127.0.0.1"
"""Loopback only: the server takes no key unless given one, so nothing outside may reach it."""
START_SECONDS = 120.0
"""How long the server may take to answer after it is created (the 1.5B loads in seconds)."""


@dataclass
class LocalServer:
    """A running server: send requests to `base_url` naming `model`; `stop()` ends it."""

    spec: str
    model: str
    """The name it answers to (listed by /v1/models)."""
    base_url: str
    """``http://127.0.0.1:<port>/v1``."""
    port: int
    digest: str
    """The sha256 of the GGUF it runs (verified before it loaded)."""
    settings: dict
    """How it was started: slots, the context of each, the reply cap, llama.cpp's threads."""
    _server: object = field(default=None, repr=False)

    def stop(self) -> None:
        """Stop the server and free its port (xllamacpp stops it when the object is freed)."""
        if self._server is not None:
            self._server = None
            gc.collect()

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def check_servable(spec: str, weights: dict[str, QwenWeights] = WEIGHTS) -> None:
    """Refuse, in one line and before any work, a spec this process cannot serve: only the
    shipped generators can be (a remote model is served where it runs), and only with the
    local extra installed (looked up in `weights`; a test names packages not installed)."""
    local = weights_for(spec, weights)
    if local is None:
        valid = [f"local:qwen2.5-{size}" for size in weights]
        if not spec.startswith("local:"):  # a near-miss of another backend's spec is no help
            raise RagauditError(
                f"{spec}: not a shipped generator (a remote model is served where it runs); "
                f"valid: {', '.join(valid)}"
            )
        raise RagauditError(unknown_name_message("local generator", spec, valid))
    if missing := missing_extra(spec, local):
        raise RagauditError(missing)


def start_local_server(
    spec: str,
    *,
    port: int | None = None,
    slots: int = 1,
    slot_context: int = DEFAULT_N_CTX,
    max_reply_tokens: int | None = None,
    model: str | None = None,
    api_key: str | None = None,
    threads: int | None = None,
) -> LocalServer:
    """Serve `spec` on 127.0.0.1:`port` (None: an unused port) and return once it answers.

    `slots` requests run at once, each with `slot_context` tokens of context;
    `max_reply_tokens` caps every reply (None: the request's max_tokens, else the context's
    end); `model` is the name it answers to (default: the weights' name); with `api_key`
    a request must carry it; `threads` default to RAGAUDIT_LLM_THREADS, else one per core.
    """
    check_servable(spec)
    import xllamacpp

    weights = weights_for(spec)
    name = model or weights.name
    path = gguf_path(weights.size)
    threads = threads or llm_threads()
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {name}
    params.n_ctx = slot_context * slots  # llama.cpp shares the context out among the slots
    params.n_parallel = slots
    if max_reply_tokens is not None:
        params.n_predict = max_reply_tokens
    params.verbosity = 0
    params.warmup = False
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
    if api_key is not None:
        params.api_keys = [api_key]
    port = unused_port() if port is None else port
    params.hostnames = [HOST]
    params.port = port
    note_engine_started(path)  # the test suite's guard: only slow tests start one
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as error:  # what xllamacpp raises for a port it cannot bind, too
        raise RagauditError(f"llama.cpp could not serve {spec} on {HOST}:{port}: {error}") from None
    base_url = f"http://{HOST}:{port}/v1"
    settings = {
        "slots": slots,
        "slot_context": slot_context,
        "max_reply_tokens": max_reply_tokens,
        "llm_threads": threads,
    }
    running = LocalServer(spec, name, base_url, port, weights.sha256, settings, server)
    try:
        _wait_until_listening(running, api_key)
    except BaseException:  # an interrupt while it loads stops it too
        running.stop()
        raise
    return running


def unused_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (yet)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def _wait_until_listening(
    running: LocalServer, api_key: str | None, seconds: float = START_SECONDS
) -> None:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key is not None else {}
    deadline = time.monotonic() + seconds
    while True:
        try:
            reply = httpx.get(f"{running.base_url}/models", headers=headers, timeout=2.0)
            if reply.status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RagauditError(
                f"llama.cpp serving {running.spec} at {running.base_url} did not answer "
                f"within {seconds:.0f} s"
            )
        time.sleep(0.2)
