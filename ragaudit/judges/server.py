"""The judge server: a local llama.cpp server that ragaudit starts and stops itself (the
offline default, `local:qwen2.5-<size>`), or any OpenAI-compatible server a user names
(`openai:<model>` with --base-url).

The local server runs the shipped Qwen GGUF in this process (xllamacpp) on 127.0.0.1 with
`slots` parallel sequences, each with its own context of SLOT_CONTEXT tokens, and caps a
reply at MAX_REPLY_TOKENS (a judge that never stops would otherwise run to the context's
end). Its sampling seed is left to the server (each request samples afresh at the
temperature the library asks), as a hosted judge would.
"""

from __future__ import annotations

import gc
import socket
import time
from dataclasses import dataclass

import httpx

from ragaudit.backends.catalogue import GENERATOR, OPENAI
from ragaudit.backends.openai_backend import listed_digest, listing_entry, openai_base_url
from ragaudit.backends.openai_http import OpenAIServer
from ragaudit.backends.qwen import (
    LOCAL_SPECS,
    WEIGHTS,
    gguf_path,
    llm_threads,
    missing_extra,
    note_engine_started,
    weights_for,
)
from ragaudit.backends.retry import RetryPolicy
from ragaudit.backends.specs import backend_of
from ragaudit.errors import RagauditError
from ragaudit.judges.proxy import Judge

SLOT_CONTEXT = 8192
MAX_REPLY_TOKENS = 1024
KEY_ENV = "OPENAI_API_KEY"


@dataclass
class RunningJudge:
    """A judge to send calls to, and how it was started (recorded in the scorecard)."""

    spec: str
    judge: Judge
    upstream: OpenAIServer
    settings: dict
    _server: object = None

    def stop(self) -> None:
        """Stop a server this process started (xllamacpp stops it when freed)."""
        if self._server is not None:
            self._server = None
            gc.collect()


def check_spec(spec: str, base_url: str | None) -> None:
    """Refuse, in one line and before any work, a judge spec that cannot serve."""
    if spec in LOCAL_SPECS:
        if base_url:
            raise RagauditError(
                f"--base-url {base_url}: {spec} is started here; --base-url goes with "
                "--judge openai:<model>"
            )
        if missing := missing_extra(spec, weights_for(spec)):
            raise RagauditError(missing)
        return
    if _served_by_openai(spec) and OPENAI.model(spec).strip():
        openai_base_url(base_url)  # raises on a URL that names no server
        return
    valid = ", ".join((*LOCAL_SPECS, "openai:<model> (with --base-url URL)"))
    raise RagauditError(f"--judge {spec}: not a judge spec; valid: {valid}")


def _served_by_openai(spec: str) -> bool:
    """The backend catalogue serves `spec` as a generator of an OpenAI-compatible server."""
    try:
        return backend_of(spec, GENERATOR) is OPENAI
    except RagauditError:
        return False


def start_judge(spec: str, base_url: str | None, slots: int, retry: RetryPolicy) -> RunningJudge:
    """The judge for `spec`, started here when it is local."""
    if spec in LOCAL_SPECS:
        return _start_local(spec, slots, retry)
    model = OPENAI.model(spec)
    url = openai_base_url(base_url)
    upstream = OpenAIServer(model, url, KEY_ENV, retry)
    digest, reason = listed_digest(*listing_entry(upstream), upstream.redact)
    settings = {"server": "named by the user", "slots": None}
    return RunningJudge(spec, Judge(model, url, digest, reason), upstream, settings)


def _start_local(spec: str, slots: int, retry: RetryPolicy) -> RunningJudge:
    import xllamacpp

    weights = weights_for(spec)
    size = next(size for size, w in WEIGHTS.items() if w is weights)
    path = gguf_path(size)
    threads = llm_threads()
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {weights.name}
    params.n_ctx = SLOT_CONTEXT * slots  # llama.cpp shares the context out among the slots
    params.n_parallel = slots
    params.n_predict = MAX_REPLY_TOKENS
    params.verbosity = 0
    params.warmup = False
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
    port = _unused_port()
    params.hostnames = ["127.0.0.1"]
    params.port = port
    note_engine_started(path)  # the test suite's guard: only slow tests start one
    server = xllamacpp.Server(params)
    url = f"http://127.0.0.1:{port}/v1"
    _wait_until_listening(url)
    upstream = OpenAIServer(weights.name, url, "RAGAUDIT_LOCAL_JUDGE_KEY", retry)
    settings = {
        "server": "llama.cpp (xllamacpp) started by ragaudit",
        "slots": slots,
        "slot_context": SLOT_CONTEXT,
        "max_reply_tokens": MAX_REPLY_TOKENS,
        "llm_threads": threads,
    }
    judge = Judge(
        weights.name, url, weights.sha256, None, f"llama.cpp started by ragaudit ({spec})"
    )
    return RunningJudge(spec, judge, upstream, settings, server)


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_listening(base_url: str, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(f"{base_url}/models", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RagauditError(f"the local judge server at {base_url} did not start")
        time.sleep(0.2)
