"""OpenAI-compatible servers: embeddings (`/embeddings`) and chat (`/chat/completions`) over
plain HTTP (httpx), for vLLM, text-embeddings-inference, llama.cpp's server, LM Studio or
OpenAI itself.

The server is `base_url` (the part before `/embeddings`, e.g. http://127.0.0.1:8080/v1),
else OPENAI_BASE_URL, else https://api.openai.com/v1. The API key is read from the
environment variable named by `api_key_env` (default OPENAI_API_KEY) and sent as
`Authorization: Bearer …`; with the variable unset no header is sent. The key is never
written: not in a model description, a cache key or an error (messages are scrubbed of it).

The digest is what the server's /models listing says of the model: a `digest` or `sha256`
field when the entry has one, else for llama.cpp (whose entry carries the GGUF's `meta`:
size in bytes, parameter count, file type, vocabulary) the sha256 of that meta, so another
model served under the same name is a fresh set of calls; else "unavailable" with the
reason. A listing that echoes the key is not used (the digest is then unavailable). Calls
are keyed by the base URL too (backends/cached.py), so another server's calls never
replay. The input window is unknown unless the listing states the context (`meta.n_ctx`).

Every request is bounded and described as openai_http.py says (a deadline for the whole
request, a cap on the reply's size, Retry-After, a breaker after timeouts in a row, one
redacting formatter); replies are read strictly as openai_replies.py says (a permutation
of indexes, finite vectors, chat content that is text). Network errors, HTTP 5xx and 429
are retried (retry.py), another 4xx fails at once; a call that still fails raises one line
naming the base URL, the request and the model.
"""

from __future__ import annotations

import hashlib
import json
import os

import numpy as np

from ragaudit.backends.base import UNKNOWN_WINDOW, ChatMessage, InputWindow, Role, effective_params
from ragaudit.backends.endpoint import check_endpoint
from ragaudit.backends.openai_http import OpenAIServer
from ragaudit.backends.openai_replies import chat_text, embedding_vectors
from ragaudit.backends.redact import Redactor
from ragaudit.backends.reply_text import storable
from ragaudit.backends.retry import RetryPolicy
from ragaudit.errors import ModelCallFailed

BASE_URL_ENV = "OPENAI_BASE_URL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
_DIGEST_FIELDS = ("digest", "sha256")
_SETTING_FIELDS = ("n_ctx",)  # in llama.cpp's meta, but a server setting, not the model


def openai_base_url(base_url: str | None = None) -> str:
    """The server's base URL: `base_url`, else OPENAI_BASE_URL, else the OpenAI API; a value
    that names no http(s) server is a RagauditError naming where it came from."""
    label = "base_url" if base_url else BASE_URL_ENV
    given = base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
    return check_endpoint(given, label)


def listing_entry(server: OpenAIServer) -> tuple[dict | None, str | None]:
    """The model's entry in GET /models, or None and why it cannot be had."""
    try:
        listing = server.request("the model list (GET /models)", "/models")
    except ModelCallFailed as error:
        return None, str(error)
    entries = listing.get("data") if isinstance(listing, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and server.model in _names(entry):
            return entry, None
    return None, f"{server.model!r} is not among the models listed by {server.base_url}/models"


def _names(entry: dict) -> list[str]:
    aliases = entry.get("aliases")
    return [entry.get("id")] + (list(aliases) if isinstance(aliases, list) else [])


def listed_digest(
    entry: dict | None, reason: str | None, redact: Redactor | None = None
) -> tuple[str, str | None]:
    """(digest, reason) from a /models entry: its own digest field, else the sha256 of
    llama.cpp's model meta, else "unavailable" and why; an entry that holds the key
    (`redact` finds a run of it) is not used."""
    if entry is None:
        return "unavailable", reason
    if redact is not None and redact.changes(json.dumps(entry, ensure_ascii=False)):
        return "unavailable", "the /models entry echoes the API key; it was not used"
    for field in _DIGEST_FIELDS:
        if isinstance(entry.get(field), str) and entry[field].strip():
            return entry[field].strip(), None
    meta = entry.get("meta")
    if isinstance(meta, dict) and meta:
        model_meta = {k: v for k, v in meta.items() if k not in _SETTING_FIELDS}
        blob = json.dumps(model_meta, sort_keys=True, separators=(",", ":"))
        digest = "meta-sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()
        return digest, (
            f"sha256 of the model's meta in /models ({', '.join(sorted(model_meta))}), "
            "not of the weights"
        )
    fields = ", ".join(sorted(entry)) or "nothing"
    return "unavailable", f"/models lists {entry.get('id')!r} with no digest (only {fields})"


class _OpenAIEngine:
    backend = "openai"
    remote = True  # calls go to a server: a run may keep several in flight

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.name = model
        self.base_url = openai_base_url(base_url)
        self.api_key_env = api_key_env or DEFAULT_KEY_ENV
        self.server = OpenAIServer(model, self.base_url, self.api_key_env, retry)
        self.key_server = self.base_url
        """Model names and digests are this server's own: its calls are keyed by it."""
        self._entry, reason = listing_entry(self.server)
        self.digest, self.digest_reason = listed_digest(self._entry, reason, self.server.redact)
        if self.digest_reason:  # built from the listing: redacted like every reply
            self.digest_reason = self.server.redact(self.digest_reason)

    def share_breaker(self, breaker) -> None:
        """Stop asking the server when the run's other models on it found it hung."""
        self.server.share_breaker(breaker)


class OpenAIEmbeddingEngine(_OpenAIEngine):
    """Embeddings from POST /embeddings, one request per batch; roles are not sent (the
    protocol has none)."""

    uses_roles = False
    batch_size = 16  # stack.index asks 64 texts at a time: 4 requests may overlap (--workers)

    def dimensions(self) -> int | None:
        """Unknown until the first embedding (the cache front asks once)."""
        return None

    def input_window(self) -> InputWindow:
        """The context the server states in its listing (llama.cpp's meta.n_ctx); unknown
        otherwise. Tokens are not counted (the protocol has no tokenizer endpoint)."""
        meta = (self._entry or {}).get("meta")
        n_ctx = meta.get("n_ctx") if isinstance(meta, dict) else None
        if not isinstance(n_ctx, int) or n_ctx < 1:
            return UNKNOWN_WINDOW
        return InputWindow(
            n_ctx,
            "unknown",
            "unknown",
            f"n_ctx {n_ctx} stated by {self.base_url}/models; what the server does with a "
            "longer input it does not say",
        )

    def embed_batch(self, texts: list[str], role: Role) -> np.ndarray:
        """Vectors in the order of `texts` (the reply's `index` says which is which)."""
        body = {"model": self.name, "input": list(texts), "encoding_format": "float"}
        return self.server.request(
            f"POST /embeddings of {len(texts)} text(s)",
            "/embeddings",
            body,
            read=lambda reply: embedding_vectors(reply, len(texts)),
        )


class OpenAIChatEngine(_OpenAIEngine):
    """Chat replies from POST /chat/completions (greedy and seeded by default)."""

    def effective_params(self, params: dict) -> dict:
        """Defaults merged with `params`; unknown keys are refused."""
        return effective_params(params)

    def request_body(self, messages: list[ChatMessage], params: dict) -> dict:
        """The chat completion request for `messages` under effective `params`."""
        body = {
            "model": self.name,
            "messages": messages,
            "temperature": float(params["temperature"]),
            "seed": int(params["seed"]),
            "max_tokens": int(params["max_tokens"]),
            "top_p": float(params["top_p"]),
            "stream": False,
        }
        if params["stop"]:
            body["stop"] = list(params["stop"])
        return body

    def chat(self, messages: list[ChatMessage], params: dict) -> str:
        """The first choice's reply text (a run of the key in it masked and a lone
        surrogate replaced: a reply is stored and written)."""
        body = self.request_body(messages, params)
        text = self.server.request(
            "POST /chat/completions", "/chat/completions", body, read=chat_text
        )
        return storable(self.server.redact(text))


# What the `openai:` declaration in backends/catalogue.py names.


def embedding_engine(
    spec: str,
    *,
    retry: RetryPolicy | None = None,
    options: dict | None = None,
    **_settings: object,
) -> OpenAIEmbeddingEngine:
    """The engine of an `openai:<model>` embedder spec; `options` (base_url, api_key_env)
    come checked by backends.specs.server_options."""
    return OpenAIEmbeddingEngine(spec.removeprefix("openai:"), retry=retry, **(options or {}))


def chat_engine(
    spec: str,
    *,
    retry: RetryPolicy | None = None,
    options: dict | None = None,
    **_settings: object,
) -> OpenAIChatEngine:
    """The engine of an `openai:<model>` generator spec (options as for embedding_engine)."""
    return OpenAIChatEngine(spec.removeprefix("openai:"), retry=retry, **(options or {}))
