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
reason. The input window is unknown unless the listing states the context (`meta.n_ctx`).
Network errors and HTTP 5xx are retried (retry.py), a 4xx fails at once; a call that still
fails raises one line naming the base URL, the request and the model.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from urllib.parse import urlsplit

import httpx
import numpy as np

from ragaudit.backends.base import UNKNOWN_WINDOW, ChatMessage, InputWindow, Role, effective_params
from ragaudit.backends.retry import (
    RetriesExhausted,
    RetryPolicy,
    call_with_retries,
    describe_network_error,
)
from ragaudit.errors import ModelCallFailed, RagauditError

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
    parts = urlsplit(given.strip())
    try:
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        raise RagauditError(
            f"{label}={given!r}: the port is not a number from 1 to 65535"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RagauditError(
            f"{label}={given!r} is not an http(s) URL with a host (e.g. http://127.0.0.1:8080/v1)"
        )
    return given.strip().rstrip("/")


class OpenAIServer:
    """One OpenAI-compatible server as a model sees it: its URL, the key's variable, retries.

    `request(what, path, body)` sends GET (body None) or POST and returns the decoded JSON;
    every failure is one ModelCallFailed naming the base URL, `what` and the model."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.model = model
        self.base_url = openai_base_url(base_url)
        self.api_key_env = api_key_env or DEFAULT_KEY_ENV
        self.retry = retry or RetryPolicy.from_env()
        key = os.environ.get(self.api_key_env) or ""
        self._key = key  # only to keep it out of messages (see _redact)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.Client(headers=headers, timeout=self.retry.timeout)

    def request(self, what: str, path: str, body: dict | None = None):
        """The JSON the server answers to GET/POST `path` (retried as retry.py says)."""
        url = f"{self.base_url}{path}"

        def send():
            if body is None:
                response = self._client.get(url)
            else:
                response = self._client.post(url, json=body)
            response.raise_for_status()
            return response.json()

        return self._call(what, send)

    def _call(self, what: str, send: Callable[[], object]):
        where = f"openai-compatible server at {self.base_url}"
        try:
            return call_with_retries(send, self.retry)
        except RetriesExhausted as error:
            cause = self._describe(error.last_error)
            raise ModelCallFailed(
                self._redact(
                    f"{where} failed {what} for {self.model!r} after {error.attempts} "
                    f"attempt(s): {cause}"
                )
            ) from error
        except Exception as error:
            cause = self._describe(error)
            raise ModelCallFailed(
                self._redact(f"{where} refused {what} for {self.model!r}: {cause}")
            ) from error

    def _describe(self, error: BaseException) -> str:
        if isinstance(error, httpx.HTTPStatusError):
            status = error.response.status_code
            cause = f"HTTP {status}: {_server_message(error.response)}"
            if status == 401:
                cause += (
                    f" (the key in ${self.api_key_env} was refused)"
                    if self._key
                    else f" (no key sent: ${self.api_key_env} is unset)"
                )
            return cause
        if isinstance(error, httpx.ConnectError):
            return f"cannot connect ({error})"
        if isinstance(error, json.JSONDecodeError):
            return "the reply is not JSON"
        return describe_network_error(error)

    def _redact(self, text: str) -> str:
        # A server may echo what it was sent; the key never leaves in a message.
        return text.replace(self._key, "***") if self._key else text

    def listing_entry(self) -> tuple[dict | None, str | None]:
        """The model's entry in GET /models, or None and why it cannot be had."""
        try:
            listing = self.request("the model list (GET /models)", "/models")
        except ModelCallFailed as error:
            return None, str(error)
        entries = listing.get("data") if isinstance(listing, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and self.model in _names(entry):
                return entry, None
        return None, f"{self.model!r} is not among the models listed by {self.base_url}/models"


def _names(entry: dict) -> list[str]:
    aliases = entry.get("aliases")
    return [entry.get("id")] + (list(aliases) if isinstance(aliases, list) else [])


def _server_message(response: httpx.Response) -> str:
    """The error the server gave ({"error": {"message"}} in the OpenAI format), one line."""
    try:
        error = response.json().get("error")
        text = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        text = None
    text = str(text or response.text or response.reason_phrase).strip()
    return text.splitlines()[0][:300] if text else "no message"


def listed_digest(entry: dict | None, reason: str | None) -> tuple[str, str | None]:
    """(digest, reason) from a /models entry: its own digest field, else the sha256 of
    llama.cpp's model meta, else "unavailable" and why."""
    if entry is None:
        return "unavailable", reason
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
        self.server = OpenAIServer(model, base_url, api_key_env, retry)
        self.base_url = self.server.base_url
        self.api_key_env = self.server.api_key_env
        self._entry, reason = self.server.listing_entry()
        self.digest, self.digest_reason = listed_digest(self._entry, reason)


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
        reply = self.server.request(
            f"POST /embeddings of {len(texts)} text(s)", "/embeddings", body
        )
        data = reply.get("data") if isinstance(reply, dict) else None
        if not isinstance(data, list) or len(data) != len(texts):
            got = len(data) if isinstance(data, list) else "no list"
            raise ValueError(
                f"asked {self.base_url}/embeddings for {len(texts)} vectors, got {got}"
            )
        ordered = sorted(data, key=lambda item: item.get("index", 0))
        return np.array([item["embedding"] for item in ordered], dtype=np.float32)


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
        """The first choice's reply text."""
        body = self.request_body(messages, params)
        reply = self.server.request("POST /chat/completions", "/chat/completions", body)
        choices = reply.get("choices") if isinstance(reply, dict) else None
        if not isinstance(choices, list) or not choices:
            raise ValueError(f"{self.base_url}/chat/completions replied with no choices")
        return (choices[0].get("message") or {}).get("content") or ""


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
