"""A whole-request deadline on every remote call of the backends and the judges (issue 40,
item 5), against a real process on 127.0.0.1 that trickles its reply a byte a second
(helpers/slow_service.py): httpx's timeouts bound each read, which a trickle never passes.
- an `openai:` server trickling its status line and headers is cut off at
  RAGAUDIT_TIMEOUT (its body was already bounded; its headers were not);
- an Ollama server trickling its reply body is cut off at RAGAUDIT_TIMEOUT;
- the judges' recording proxy: its upstream call to a judge trickling its headers ends at
  the deadline, and the library in front of it is answered 502 with the reason.
Each call runs in a thread waited for a bounded time, so a call never cut off fails the
test instead of hanging it."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from helpers.slow_service import start_slow

from ragaudit.backends.base import effective_params
from ragaudit.backends.cache import CallCache
from ragaudit.backends.ollama_backend import OllamaChatEngine
from ragaudit.backends.openai_backend import OpenAIEmbeddingEngine
from ragaudit.backends.openai_http import OpenAIServer
from ragaudit.backends.retry import RetryPolicy
from ragaudit.errors import ModelCallFailed
from ragaudit.judges.proxy import Judge, RecordingProxy

HELLO = [{"role": "user", "content": "hello there"}]


@pytest.fixture
def slow():
    started = []

    def start(mode: str):
        started.append(start_slow(mode))
        return started[-1]

    yield start
    for service in started:
        service.stop()


def within(limit: float, call) -> tuple[object, float]:
    """(what `call()` returned or raised, its seconds); fails when it runs past `limit`."""
    box: dict = {}

    def run() -> None:
        started = time.monotonic()
        try:
            box["outcome"] = call()
        except Exception as error:  # the outcome under test
            box["outcome"] = error
        box["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(limit)
    assert not thread.is_alive(), f"still running after {limit} s: no deadline cut it off"
    return box["outcome"], box["seconds"]


def test_an_openai_server_trickling_its_headers_is_cut_off_at_the_deadline(slow):
    server = slow("trickle_headers")  # status line, headers and body: a byte a second
    policy = RetryPolicy(retries=0, timeout=2.0)
    engine = OpenAIEmbeddingEngine("slow", f"{server.base_url}/v1", "NO_SUCH_KEY_VARIABLE", policy)
    outcome, seconds = within(15, lambda: engine.embed_batch(["a"], "passage"))
    assert isinstance(outcome, ModelCallFailed)
    assert "no complete reply within the 2 s deadline (RAGAUDIT_TIMEOUT)" in str(outcome)
    assert 2.0 <= seconds < 3.0


def test_an_ollama_server_trickling_its_reply_is_cut_off_at_the_deadline(slow):
    server = slow("trickle")  # the headers at once, then the body a byte a second
    engine = OllamaChatEngine("slow", host=server.base_url, retry=RetryPolicy(retries=0, timeout=2))
    params = engine.effective_params(effective_params({}))
    outcome, seconds = within(15, lambda: engine.chat(HELLO, params))
    assert isinstance(outcome, ModelCallFailed)
    assert str(outcome) == (
        f"ollama server at {server.base_url} failed /api/chat for 'slow' after 1 attempt(s): "
        "no complete reply within the 2 s deadline (RAGAUDIT_TIMEOUT)"
    )
    assert 2.0 <= seconds < 3.0
    assert server.seen() == {"/api/chat": 1}


def test_the_judge_proxy_upstream_call_ends_at_the_deadline(slow, tmp_path):
    server = slow("trickle_headers")
    base_url = f"{server.base_url}/v1"
    policy = RetryPolicy(retries=0, timeout=2)
    upstream = OpenAIServer("slow", base_url, "NO_SUCH_KEY_VARIABLE", policy)
    cache = CallCache(tmp_path / "cache.sqlite")
    with RecordingProxy(Judge("slow", base_url, "digest-1"), cache, upstream) as proxy:
        url, evaluation = proxy.open_evaluation(1)
        body = {"model": "any", "messages": HELLO}
        ask = lambda: httpx.post(f"{url}/chat/completions", json=body, timeout=60)  # noqa: E731
        reply, seconds = within(15, ask)
    assert reply.status_code == 502
    message = reply.json()["error"]["message"]
    assert "no complete reply within the 2 s deadline (RAGAUDIT_TIMEOUT)" in message
    assert 2.0 <= seconds < 3.0
    assert (evaluation.calls, evaluation.failed) == (1, 1)
    assert cache.stats() == {"replayed": 0, "computed": 0, "failed": 1}
