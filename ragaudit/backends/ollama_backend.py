"""Ollama: embeddings (`/api/embed`) and chat (`/api/chat`) through the official client.

The server is OLLAMA_HOST (default http://127.0.0.1:11434). The digest is the one the
server lists for the model in `/api/tags`; when it cannot be had it is "unavailable" with
the reason. An embedding's input window is what the server cuts at: the smaller of the
model's `<arch>.context_length` (`/api/show`) and the num_ctx sent with every /api/embed
(Ollama truncates each input to min(num_ctx, context_length) tokens). Ollama has no
tokenize endpoint, so chunk lengths are estimated with MiniLM's WordPiece tokenizer (the
vocabulary of BERT-based embedders such as mxbai-embed-large and nomic-embed-text; only
an estimate for any other) and recorded as "estimated". RAGAUDIT_TIMEOUT is a deadline for
the whole request (a server trickling its reply is cut off at it). Network-level failures
are retried (retry.py); a call that still fails raises with the URL tried, and the cache
front counts it as failed.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

import httpx
import numpy as np

from ragaudit.backends.base import (
    DEFAULT_N_CTX,
    ChatMessage,
    InputWindow,
    Role,
    effective_params,
)
from ragaudit.backends.deadline import deadline_transport
from ragaudit.backends.minilm import count_wordpiece_tokens
from ragaudit.backends.retry import (
    RetriesExhausted,
    RetryPolicy,
    call_with_retries,
    describe_network_error,
)
from ragaudit.errors import ModelCallFailed, RagauditError

DEFAULT_HOST = "http://127.0.0.1:11434"


def ollama_host(host: str | None = None) -> str:
    """The server URL: `host`, else OLLAMA_HOST, else http://127.0.0.1:11434 (scheme and
    port filled in the way the ollama CLI does). A value that names no usable server is a
    RagauditError naming the variable and the value (never the URL parser's ValueError)."""
    label = "host" if host else "OLLAMA_HOST"
    given = host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST
    raw = given.strip()
    parts = urlsplit(raw if "://" in raw else f"http://{raw}")
    try:
        port = parts.port
    except ValueError:  # a port that is not a number, or out of range
        raise RagauditError(
            f"{label}={given!r}: the port is not a number from 1 to 65535 (e.g. {DEFAULT_HOST})"
        ) from None
    if parts.scheme not in ("http", "https"):
        raise RagauditError(f"{label}={given!r}: the scheme must be http or https")
    if not parts.hostname:
        raise RagauditError(f"{label}={given!r} names no host (e.g. {DEFAULT_HOST})")
    netloc = parts.netloc if port is not None else f"{parts.netloc}:11434"
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


def _call(host: str, model: str, what: str, request, retry: RetryPolicy):
    """`request()` with retries; any failure is one ModelCallFailed naming the host,
    the request and the model (`model` is quoted as given, e.g. "'a', 'b'")."""
    try:
        return call_with_retries(request, retry)
    except RetriesExhausted as error:
        if isinstance(error.last_error, ConnectionError):
            raise ModelCallFailed(
                f"ollama server at {host} is unreachable ({what} for {model}, "
                f"{error.attempts} attempt(s): "
                f"{describe_network_error(error.last_error)}); is `ollama serve` running "
                "there, or does OLLAMA_HOST point elsewhere?"
            ) from error
        cause = describe_network_error(error.last_error)
        if isinstance(error.last_error, TimeoutError | httpx.TimeoutException):
            cause = f"no complete reply within the {retry.timeout:g} s deadline (RAGAUDIT_TIMEOUT)"
        raise ModelCallFailed(
            f"ollama server at {host} failed {what} for {model} after "
            f"{error.attempts} attempt(s): {cause}"
        ) from error
    except Exception as error:
        raise ModelCallFailed(
            f"ollama server at {host} refused {what} for {model}: {describe_network_error(error)}"
        ) from error


def list_models(
    host: str, models: list[str], retry: RetryPolicy | None = None, client: Any = None
) -> dict[str, str]:
    """The models the server at `host` lists in /api/tags, as tagged name -> digest
    (`models` are the ones wanted, named in the error when the server cannot be asked).
    `client` is an ollama.Client for `host` already open (an engine's); else one is made."""
    retry = retry or RetryPolicy.from_env()
    client = client or ollama_client(host, retry.timeout)
    wanted = ", ".join(repr(model) for model in models)
    listing = _call(host, wanted, "the model list (/api/tags)", client.list, retry)
    return {tagged(entry.model or ""): entry.digest or "" for entry in listing.models}


def ollama_client(host: str, seconds: float) -> Any:
    """The official client for `host`, each request ended by a deadline `seconds` after it
    starts: connecting, the headers and the whole body (backends.deadline)."""
    import ollama

    return ollama.Client(host=host, timeout=seconds, transport=deadline_transport(seconds, host))


def tagged(model: str) -> str:
    """The name as /api/tags lists it: `mxbai-embed-large` is `mxbai-embed-large:latest`."""
    return model if ":" in model else f"{model}:latest"


class _OllamaEngine:
    backend = "ollama"
    remote = True  # calls go to a server: a run may keep several in flight

    def __init__(
        self,
        model: str,
        host: str | None = None,
        retry: RetryPolicy | None = None,
        n_ctx: int | None = None,
    ):
        self.name = model
        self.n_ctx = n_ctx or DEFAULT_N_CTX
        self.host = ollama_host(host)
        self.retry = retry or RetryPolicy.from_env()
        self._client = ollama_client(self.host, self.retry.timeout)
        self.digest, self.digest_reason = self._lookup_digest()

    def _call(self, what: str, request):
        return _call(self.host, repr(self.name), what, request, self.retry)

    def _lookup_digest(self) -> tuple[str, str | None]:
        try:
            listed = list_models(self.host, [self.name], self.retry, self._client)
        except ModelCallFailed as error:
            return "unavailable", str(error)
        if listed.get(tagged(self.name)):
            return listed[tagged(self.name)], None
        return "unavailable", f"{self.name!r} is not among the models listed by {self.host}"


class OllamaEmbeddingEngine(_OllamaEngine):
    """Embeddings from an Ollama server; the model ignores roles (Ollama has none)."""

    uses_roles = False
    batch_size = 16  # stack.index asks 64 texts at a time: 4 requests may overlap (--workers)

    _window: InputWindow | None = None
    """Asked of /api/show on first use."""

    @property
    def params(self) -> dict:
        """Options sent with every embed, so the server's own default context cannot cut
        earlier; part of the call key, since a long text's vector depends on them."""
        return {"num_ctx": self.n_ctx}

    def dimensions(self) -> int | None:
        """Unknown until the first embedding (the cache front asks once)."""
        return None

    def input_window(self) -> InputWindow:
        """min(num_ctx sent, the model's context_length), asked of /api/show once; unknown
        (with the reason) when the server cannot say."""
        if self._window is None:
            self._window = self._lookup_window()
        return self._window

    def _lookup_window(self) -> InputWindow:
        sent = self.params["num_ctx"]
        try:
            shown = self._call("/api/show", lambda: self._client.show(self.name))
        except ModelCallFailed as error:
            return InputWindow(None, "unknown", "truncated", str(error))
        info = dict(shown.modelinfo or {})
        arch = info.get("general.architecture")
        key = f"{arch}.context_length" if arch else "general.architecture"
        length = info.get(key) if arch else None
        if not isinstance(length, int) or length < 1:
            return InputWindow(
                None, "unknown", "truncated", f"/api/show gives no {key} for {self.name!r}"
            )
        return InputWindow(
            min(sent, length),
            "estimated",
            "truncated",
            f"the smaller of {key} {length} (/api/show) and the num_ctx {sent} ragaudit sends",
        )

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Estimated token counts (MiniLM's WordPiece): Ollama cannot tokenize on request."""
        return count_wordpiece_tokens(texts)

    def embed_batch(self, texts: list[str], role: Role) -> np.ndarray:
        """Vectors from /api/embed, one request per batch."""
        response = self._call(
            "/api/embed",
            lambda: self._client.embed(model=self.name, input=list(texts), options=self.params),
        )
        return np.array(response.embeddings, dtype=np.float32)


class OllamaChatEngine(_OllamaEngine):
    """Chat replies from an Ollama server (greedy and seeded by default)."""

    def effective_params(self, params: dict) -> dict:
        """Defaults merged with `params` plus the context size; unknown keys are refused."""
        return {**effective_params(params), "num_ctx": self.n_ctx}

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


# What the `ollama:` declaration in backends/catalogue.py names.


def embedding_engine(
    spec: str,
    *,
    host: str | None = None,
    retry: RetryPolicy | None = None,
    n_ctx: int | None = None,
    **_settings: object,
) -> OllamaEmbeddingEngine:
    """The engine of an `ollama:<model>` embedder spec (checked by the caller)."""
    return OllamaEmbeddingEngine(spec.removeprefix("ollama:"), host=host, retry=retry, n_ctx=n_ctx)


def chat_engine(
    spec: str,
    *,
    host: str | None = None,
    retry: RetryPolicy | None = None,
    n_ctx: int | None = None,
    **_settings: object,
) -> OllamaChatEngine:
    """The engine of an `ollama:<model>` generator spec (checked by the caller)."""
    return OllamaChatEngine(spec.removeprefix("ollama:"), host=host, retry=retry, n_ctx=n_ctx)


def preflight(
    models: list[tuple[str, str]], retry: RetryPolicy | None = None, **_lookups: object
) -> None:
    """Every model is listed by the server (OLLAMA_HOST), asked once: else one line naming
    the host, what it has and the `ollama pull` to run, with the model's origin in front.
    An unreachable server is one ModelCallFailed line."""
    if not models:
        return
    host = ollama_host()
    names = [spec.removeprefix("ollama:") for spec, _ in models]
    listed = list_models(host, names, retry)
    for (spec, origin), model in zip(models, names, strict=True):
        if tagged(model) not in listed:
            have = ", ".join(sorted(listed)) or "none"
            raise RagauditError(
                f"{origin}{spec}: model {model!r} is not on the ollama server at {host} (it "
                f"has: {have}); run `ollama pull {model}` there, or name another model"
            )
