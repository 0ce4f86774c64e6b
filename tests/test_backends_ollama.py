"""The Ollama backend against a local process speaking Ollama's HTTP API
(tests/helpers/ollama_fake.py)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.ollama_fake import MODELS, unused_port

from ragaudit.backends.cache import CallCache
from ragaudit.backends.ollama_backend import list_models, ollama_host
from ragaudit.backends.retry import RetryPolicy
from ragaudit.backends.specs import describe_model, load_embedder, load_generator
from ragaudit.errors import ModelCallFailed, RagauditError

FAST = RetryPolicy(retries=3, delay=0.01, timeout=10)
HELLO = [{"role": "user", "content": "hello there"}]


@pytest.fixture
def cache(ragaudit_home):
    return CallCache()


def test_embed_and_chat_round_trip_with_digest(cache, fake_ollama):
    server = fake_ollama()
    embedder = load_embedder("ollama:mxbai-embed-large", cache=cache, host=server.url, retry=FAST)
    assert embedder.digest == MODELS["mxbai-embed-large:latest"]
    assert embedder.digest_reason is None
    vectors = np.array(embedder.embed(["red apples", "red apples and pears", "tax law"]))
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert embedder.dimensions == 64
    generator = load_generator("ollama:qwen2.5:7b", cache=cache, host=server.url, retry=FAST)
    assert generator.generate(HELLO) == "fake reply to: hello there"
    assert generator.generate_detailed(HELLO).replayed is True
    assert describe_model(generator)["backend"] == "ollama"
    assert server.requests()["/api/chat"] == 1  # the second answer came from the cache


def test_dropped_connections_are_retried_then_served(cache, fake_ollama):
    server = fake_ollama("drop", failures=2)
    embedder = load_embedder("ollama:mxbai-embed-large", cache=cache, host=server.url, retry=FAST)
    # the first two requests (both /api/tags) were dropped; the third got the digest
    assert server.requests() == {"/api/tags": 3}
    assert embedder.digest == MODELS["mxbai-embed-large:latest"]
    assert len(embedder.embed(["one text"])) == 1
    assert cache.stats() == {"replayed": 0, "computed": 1, "failed": 0}


def test_persistent_500s_are_counted_failed_and_raised(cache, fake_ollama):
    server = fake_ollama("error500", failures=-1)
    generator = load_generator("ollama:qwen2.5:7b", cache=cache, host=server.url, retry=FAST)
    assert generator.digest == "unavailable"
    assert "HTTP 500" in generator.digest_reason
    with pytest.raises(ModelCallFailed, match="after 4 attempt"):
        generator.generate(HELLO)
    assert server.requests()["/api/chat"] == 4
    assert cache.stats() == {"replayed": 0, "computed": 0, "failed": 1}
    [failure] = cache.failures()
    assert failure["model"] == "ollama:qwen2.5:7b" and failure["kind"] == "generate"
    assert "HTTP 500" in failure["error"]


def test_a_failure_mid_run_keeps_every_text_in_a_count(cache, fake_ollama):
    # /api/tags and the first /api/embed batch are served, then the server breaks.
    server = fake_ollama("fail_after", failures=2)
    embedder = load_embedder("ollama:mxbai-embed-large", cache=cache, host=server.url, retry=FAST)
    # batches of 16 (Ollama's request size) + 16 + 8: the first is served; the second fails
    # and counts the 8 behind it too (40 - 16 = 24)
    texts = [f"text number {i}" for i in range(40)]
    with pytest.raises(ModelCallFailed, match="24 text"):
        embedder.embed(texts)
    assert cache.stats() == {"replayed": 0, "computed": 16, "failed": 24}
    # the finished batch was committed: a rerun replays it and asks only for the rest
    assert cache.stored_calls() == 16


def test_a_missing_model_fails_at_once_without_retries(cache, fake_ollama):
    server = fake_ollama()
    embedder = load_embedder("ollama:not-pulled", cache=cache, host=server.url, retry=FAST)
    assert embedder.digest == "unavailable"
    assert "not among the models" in embedder.digest_reason
    with pytest.raises(ModelCallFailed, match="not found"):
        embedder.embed(["x", "y"])
    assert server.requests()["/api/embed"] == 1
    assert cache.stats()["failed"] == 2


def test_unreachable_server_is_one_line_naming_the_url(cache, monkeypatch):
    url = f"http://127.0.0.1:{unused_port()}"
    monkeypatch.setenv("OLLAMA_HOST", url)  # the default host comes from OLLAMA_HOST
    embedder = load_embedder("ollama:mxbai-embed-large", cache=cache, retry=FAST)
    assert embedder.digest == "unavailable" and url in embedder.digest_reason
    with pytest.raises(ModelCallFailed) as caught:
        embedder.embed(["x"])
    message = str(caught.value)
    assert url in message and "unreachable" in message and "\n" not in message
    assert cache.failures()[0]["error"].startswith(f"ollama server at {url} is unreachable")


def test_retry_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("RAGAUDIT_RETRIES", "1")
    monkeypatch.setenv("RAGAUDIT_RETRY_DELAY", "0")
    assert RetryPolicy.from_env() == RetryPolicy(retries=1, delay=0.0)
    monkeypatch.setenv("RAGAUDIT_RETRIES", "many")
    with pytest.raises(Exception, match="RAGAUDIT_RETRIES='many'"):
        RetryPolicy.from_env()


def test_replay_still_works_after_the_server_is_gone(ragaudit_home, fake_ollama):
    server = fake_ollama()
    first = CallCache()
    embedder = load_embedder("ollama:mxbai-embed-large", cache=first, host=server.url, retry=FAST)
    vectors = embedder.embed(["kept text"])
    reply = load_generator("ollama:qwen2.5:7b", cache=first, host=server.url).generate(HELLO)
    server.stop()
    later = CallCache()  # a later run, the server gone
    gone = f"http://127.0.0.1:{unused_port()}"
    embedder = load_embedder("ollama:mxbai-embed-large", cache=later, host=gone, retry=FAST)
    generator = load_generator("ollama:qwen2.5:7b", cache=later, host=gone, retry=FAST)
    # the digest is honestly unavailable, and the reason says which one keyed the replay
    assert embedder.digest == "unavailable"
    assert MODELS["mxbai-embed-large:latest"] in embedder.digest_reason
    assert embedder.embed(["kept text"]) == vectors
    assert generator.generate(HELLO) == reply
    assert later.stats() == {"replayed": 2, "computed": 0, "failed": 0}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("http://", "OLLAMA_HOST='http://' names no host (e.g. http://127.0.0.1:11434)"),
        ("http:///", "OLLAMA_HOST='http:///' names no host (e.g. http://127.0.0.1:11434)"),
        (
            "127.0.0.1:abc",
            "OLLAMA_HOST='127.0.0.1:abc': the port is not a number from 1 to 65535 "
            "(e.g. http://127.0.0.1:11434)",
        ),
        ("ftp://example.org", "OLLAMA_HOST='ftp://example.org': the scheme must be http or https"),
    ],
)
def test_an_ollama_host_without_a_server_is_one_line_naming_it(monkeypatch, value, message):
    monkeypatch.setenv("OLLAMA_HOST", value)
    with pytest.raises(RagauditError) as caught:
        ollama_host()
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("value", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:11434"),
        ("http://gpu-box:8080/", "http://gpu-box:8080"),
        ("https://proxy.example/ollama/", "https://proxy.example:11434/ollama"),
    ],
)
def test_ollama_host_fills_in_scheme_and_port(monkeypatch, value, url):
    monkeypatch.setenv("OLLAMA_HOST", value)
    assert ollama_host() == url


def test_list_models_names_the_host_and_the_models_wanted(fake_ollama):
    server = fake_ollama()
    assert list_models(server.url, ["mxbai-embed-large"], FAST) == MODELS
    gone = f"http://127.0.0.1:{unused_port()}"
    with pytest.raises(ModelCallFailed) as caught:
        list_models(gone, ["mxbai-embed-large", "qwen2.5:7b"], RetryPolicy(retries=0))
    assert str(caught.value) == (
        f"ollama server at {gone} is unreachable (the model list (/api/tags) for "
        "'mxbai-embed-large', 'qwen2.5:7b', 1 attempt(s): connection refused); is "
        "`ollama serve` running there, or does OLLAMA_HOST point elsewhere?"
    )
