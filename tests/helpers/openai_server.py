"""Real OpenAI-compatible servers for tests: llama.cpp's HTTP server (`xllamacpp.Server`)
on 127.0.0.1 with the Qwen 0.5B GGUF, one started for chat and one for embeddings.

Each requires the API key `API_KEY` (llama.cpp's --api-key: a request without it, or with
another, is refused with HTTP 401), so a test that gets an answer has proved the client sent
`Authorization: Bearer <key>`. Servers start on first use and stop at the session's end.
Registered as a plugin from tests/conftest.py.
"""

from __future__ import annotations

import gc
import socket
import time
from dataclasses import dataclass

import httpx
import pytest

from ragaudit.backends.qwen import gguf_path, note_engine_started

API_KEY = "sk-test-ragaudit-4c9e1f"
CHAT_MODEL = "qwen-chat"
EMBED_MODEL = "qwen-embed"
N_CTX = 1024


@dataclass
class LlamaServer:
    """One running llama.cpp server: `base_url` ends in /v1, `model` is its alias."""

    base_url: str
    model: str
    server: object

    def stop(self) -> None:
        """Shut the server down (xllamacpp stops it when the object is freed)."""
        self.server = None
        gc.collect()


def unused_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (yet)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_llama_server(model: str, *, embedding: bool) -> LlamaServer:
    """llama.cpp's server for the 0.5B Qwen under the alias `model`: quiet, one slot, one
    thread (the machine is shared), the embedding endpoint with mean pooling if `embedding`."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(gguf_path("0.5b"))
    params.model_alias = {model}
    params.n_ctx = N_CTX
    params.n_batch = params.n_ubatch = N_CTX  # an embedding input must fit one ubatch
    params.n_parallel = 1
    params.verbosity = 0
    params.warmup = False
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 1
    params.api_keys = [API_KEY]
    if embedding:
        params.embedding = True
        params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    port = unused_port()
    params.hostnames = ["127.0.0.1"]
    params.port = port
    note_engine_started(gguf_path("0.5b"))  # the suite's guard: only slow tests load one
    running = LlamaServer(f"http://127.0.0.1:{port}/v1", model, xllamacpp.Server(params))
    _wait_until_listening(running.base_url)
    return running


def _wait_until_listening(base_url: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            httpx.get(f"{base_url}/models", timeout=2.0)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.fixture(scope="session")
def openai_chat_server():
    """llama.cpp serving /v1/chat/completions for CHAT_MODEL (key API_KEY)."""
    running = start_llama_server(CHAT_MODEL, embedding=False)
    yield running
    running.stop()


@pytest.fixture(scope="session")
def openai_embedding_server():
    """llama.cpp serving /v1/embeddings for EMBED_MODEL (key API_KEY)."""
    running = start_llama_server(EMBED_MODEL, embedding=True)
    yield running
    running.stop()
