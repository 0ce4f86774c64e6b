"""The judge server: a local llama.cpp server that ragaudit starts and stops itself (the
offline default, `local:qwen2.5-<size>`), or any OpenAI-compatible server a user names
(`openai:<model>` with --base-url).

The local server (backends/local_server.py, as `ragaudit serve` starts it) runs the
shipped Qwen GGUF in this process on 127.0.0.1 with `slots` parallel sequences, each with
its own context of SLOT_CONTEXT tokens, and caps a reply at MAX_REPLY_TOKENS (a judge that
never stops would otherwise run to the context's end). Its sampling seed is left to the
server (each request samples afresh at the temperature the library asks), as a hosted
judge would.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.backends.catalogue import GENERATOR, OPENAI
from ragaudit.backends.local_server import LocalServer, check_servable, start_local_server
from ragaudit.backends.openai_backend import listed_digest, listing_entry, openai_base_url
from ragaudit.backends.openai_http import OpenAIServer
from ragaudit.backends.qwen import LOCAL_SPECS
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
    _server: LocalServer | None = None

    def stop(self) -> None:
        """Stop a server this process started."""
        if self._server is not None:
            self._server.stop()


def check_spec(spec: str, base_url: str | None) -> None:
    """Refuse, in one line and before any work, a judge spec that cannot serve."""
    if spec in LOCAL_SPECS:
        if base_url:
            raise RagauditError(
                f"--base-url {base_url}: {spec} is started here; --base-url goes with "
                "--judge openai:<model>"
            )
        check_servable(spec)
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
    local = start_local_server(
        spec, slots=slots, slot_context=SLOT_CONTEXT, max_reply_tokens=MAX_REPLY_TOKENS
    )
    upstream = OpenAIServer(local.model, local.base_url, "RAGAUDIT_LOCAL_JUDGE_KEY", retry)
    settings = {"server": "llama.cpp (xllamacpp) started by ragaudit", **local.settings}
    judge = Judge(
        local.model, local.base_url, local.digest, None, f"llama.cpp started by ragaudit ({spec})"
    )
    return RunningJudge(spec, judge, upstream, settings, local)
