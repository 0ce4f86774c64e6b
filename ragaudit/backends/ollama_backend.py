"""Ollama: embeddings (`/api/embed`) and chat (`/api/chat`) through the official client.

The server is OLLAMA_HOST (default http://127.0.0.1:11434). The digest is the one the
server lists for the model in `/api/tags`; when it cannot be had it is "unavailable" with
the reason. Network-level failures are retried (retry.py); a call that still fails raises
with the URL tried, and the cache front counts it as failed.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import numpy as np

from ragaudit.backends.base import ChatMessage, Role
from ragaudit.backends.retry import (
    RetriesExhausted,
    RetryPolicy,
    call_with_retries,
    describe_network_error,
)
from ragaudit.errors import ModelCallFailed, RagauditError

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_N_CTX = 8192  # Ollama silently truncates prompts beyond num_ctx; k=8 needs ~2,200
DEFAULT_PARAMS = {"temperature": 0.0, "seed": 17, "max_tokens": 256, "top_p": 1.0, "stop": []}


def ollama_host(host: str | None = None) -> str:
    """The server URL: `host`, else OLLAMA_HOST, else http://127.0.0.1:11434 (scheme and
    port filled in the way the ollama CLI does)."""
    raw = (host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST).strip().rstrip("/")
    if "://" not in raw:
        raw = f"http://{raw}"
    parts = urlsplit(raw)
    if not parts.hostname:
        raise RagauditError(f"OLLAMA_HOST={raw!r} names no host")
    netloc = parts.netloc if parts.port else f"{parts.netloc}:11434"
    return f"{parts.scheme}://{netloc}{parts.path}"


def _tagged(model: str) -> str:
    return model if ":" in model else f"{model}:latest"


class _OllamaEngine:
    backend = "ollama"

    def __init__(self, model: str, host: str | None = None, retry: RetryPolicy | None = None):
        import ollama

        self.name = model
        self.host = ollama_host(host)
        self.retry = retry or RetryPolicy.from_env()
        self._client = ollama.Client(host=self.host, timeout=self.retry.timeout)
        self.digest, self.digest_reason = self._lookup_digest()

    def _call(self, what: str, request):
        try:
            return call_with_retries(request, self.retry)
        except RetriesExhausted as error:
            if isinstance(error.last_error, ConnectionError):
                raise ModelCallFailed(
                    f"ollama server at {self.host} is unreachable ({what} for {self.name!r}, "
                    f"{error.attempts} attempt(s): "
                    f"{describe_network_error(error.last_error)}); is `ollama serve` running "
                    "there, or does OLLAMA_HOST point elsewhere?"
                ) from error
            raise ModelCallFailed(
                f"ollama server at {self.host} failed {what} for {self.name!r} after "
                f"{error.attempts} attempt(s): {describe_network_error(error.last_error)}"
            ) from error
        except Exception as error:
            raise ModelCallFailed(
                f"ollama server at {self.host} refused {what} for {self.name!r}: "
                f"{describe_network_error(error)}"
            ) from error

    def _lookup_digest(self) -> tuple[str, str | None]:
        try:
            listing = self._call("the model list (/api/tags)", self._client.list)
        except ModelCallFailed as error:
            return "unavailable", str(error)
        wanted = _tagged(self.name)
        for entry in listing.models:
            if _tagged(entry.model or "") == wanted and entry.digest:
                return entry.digest, None
        return "unavailable", f"{self.name!r} is not among the models listed by {self.host}"


class OllamaEmbeddingEngine(_OllamaEngine):
    """Embeddings from an Ollama server; the model ignores roles (Ollama has none)."""

    uses_roles = False
    batch_size = 32

    def dimensions(self) -> int | None:
        """Unknown until the first embedding (the cache front asks once)."""
        return None

    def embed_batch(self, texts: list[str], role: Role) -> np.ndarray:
        """Vectors from /api/embed, one request per batch."""
        response = self._call(
            "/api/embed", lambda: self._client.embed(model=self.name, input=list(texts))
        )
        return np.array(response.embeddings, dtype=np.float32)


class OllamaChatEngine(_OllamaEngine):
    """Chat replies from an Ollama server (greedy and seeded by default)."""

    def __init__(
        self,
        model: str,
        host: str | None = None,
        retry: RetryPolicy | None = None,
        n_ctx: int | None = None,
    ):
        super().__init__(model, host, retry)
        self.n_ctx = n_ctx or DEFAULT_N_CTX

    def effective_params(self, params: dict) -> dict:
        """Defaults merged with `params` plus the context size; unknown keys are refused."""
        unknown = sorted(set(params) - set(DEFAULT_PARAMS))
        if unknown:
            raise RagauditError(
                f"generation parameter {unknown[0]!r} is not supported; "
                f"valid: {', '.join(sorted(DEFAULT_PARAMS))}"
            )
        effective = {**DEFAULT_PARAMS, **params, "num_ctx": self.n_ctx}
        effective["stop"] = list(effective["stop"] or [])
        return effective

    def chat(self, messages: list[ChatMessage], params: dict) -> str:
        """The reply from /api/chat."""
        options = {
            "temperature": float(params["temperature"]),
            "seed": int(params["seed"]),
            "num_predict": int(params["max_tokens"]),
            "top_p": float(params["top_p"]),
            "num_ctx": int(params["num_ctx"]),
        }
        if params["stop"]:
            options["stop"] = list(params["stop"])
        response = self._call(
            "/api/chat",
            lambda: self._client.chat(model=self.name, messages=messages, options=options),
        )
        return response.message.content or ""
