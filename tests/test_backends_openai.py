"""The openai: embedder and generator against a real OpenAI-compatible server: llama.cpp's
own HTTP server (tests/helpers/openai_server.py), which refuses any request without its API key."""

from __future__ import annotations

import hashlib
import json

import httpx
import numpy as np
import pytest
from helpers.openai_server import API_KEY, CHAT_MODEL, EMBED_MODEL, N_CTX, unused_port

from ragaudit.backends.cache import CallCache
from ragaudit.backends.retry import RetryPolicy
from ragaudit.backends.specs import (
    check_embedder_spec,
    check_generator_spec,
    describe_model,
    load_embedder,
    load_generator,
)
from ragaudit.cli.main import main
from ragaudit.errors import ModelCallFailed, RagauditError

FAST = RetryPolicy(retries=2, delay=0.01, timeout=60)
QUESTION = [{"role": "user", "content": "What is 2+2? Reply with the number only."}]
TEXTS = [
    "The refund window is 30 days.",
    "Refunds are accepted within thirty days.",
    "The office cat is named Biscuit.",
]


@pytest.fixture(autouse=True)
def key(ragaudit_home, monkeypatch):
    """The servers' key in OPENAI_API_KEY (the default variable); user state in a temp dir."""
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def cache(ragaudit_home):
    return CallCache()


def embedder_at(server, cache, **options):
    return load_embedder(
        f"openai:{server.model}",
        cache,
        retry=FAST,
        options={"base_url": server.base_url, **options},
    )


def generator_at(server, cache, **options):
    return load_generator(
        f"openai:{server.model}",
        cache,
        retry=FAST,
        options={"base_url": server.base_url, **options},
    )


@pytest.mark.slow
def test_embeddings_are_unit_vectors_that_rank_a_paraphrase_first(openai_embedding_server, cache):
    embedder = embedder_at(openai_embedding_server, cache)
    vectors = np.array(embedder.embed(TEXTS))
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    embedder.embed(TEXTS)
    assert cache.stats() == {"replayed": 3, "computed": 3, "failed": 0}
    assert embedder.dimensions == 896  # Qwen2.5-0.5B's hidden size
    assert embedder.engine.remote is True


@pytest.mark.slow
def test_a_batch_gives_each_text_its_own_vector(openai_embedding_server, cache, tmp_path):
    batched = np.array(embedder_at(openai_embedding_server, cache).embed(TEXTS))
    alone = CallCache(tmp_path / "alone.sqlite")
    singly = np.array([embedder_at(openai_embedding_server, alone).embed([t])[0] for t in TEXTS])
    assert np.allclose(batched, singly, atol=1e-4)  # each vector is its own text's


@pytest.mark.slow
def test_chat_reply_is_deterministic_and_honours_max_tokens(openai_chat_server, cache, tmp_path):
    generator = generator_at(openai_chat_server, cache)
    reply = generator.generate(QUESTION, {"max_tokens": 8})
    assert "4" in reply
    assert generator.generate_detailed(QUESTION, {"max_tokens": 8}).replayed is True
    fresh = generator_at(openai_chat_server, CallCache(tmp_path / "fresh.sqlite"))
    assert fresh.generate(QUESTION, {"max_tokens": 8}) == reply  # temperature 0, seed 17
    one_token = fresh.generate(
        [{"role": "user", "content": "Write a long poem."}], {"max_tokens": 1}
    )
    assert 0 < len(one_token) < 12
    assert generator.engine.remote is True


@pytest.mark.slow
def test_an_unknown_generation_parameter_is_refused(openai_chat_server, cache):
    generator = generator_at(openai_chat_server, cache)
    with pytest.raises(RagauditError, match="'top_k' is not supported; valid: max_tokens"):
        generator.generate(QUESTION, {"top_k": 1})


@pytest.mark.slow
def test_the_model_entry_names_the_server_and_the_key_variable_never_the_key(
    openai_chat_server, cache, ragaudit_home
):
    generator = generator_at(openai_chat_server, cache)
    generator.generate(QUESTION, {"max_tokens": 4})
    described = describe_model(generator)
    assert described["base_url"] == openai_chat_server.base_url
    assert described["api_key_env"] == "OPENAI_API_KEY"
    assert described["backend"] == "openai"
    assert API_KEY not in json.dumps(described)
    cache.close()
    assert API_KEY.encode() not in (ragaudit_home / "cache.sqlite").read_bytes()


@pytest.mark.slow
def test_a_key_in_a_named_variable_is_sent(openai_chat_server, cache, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("MY_LLAMA_KEY", API_KEY)
    generator = generator_at(openai_chat_server, cache, api_key_env="MY_LLAMA_KEY")
    assert "4" in generator.generate(QUESTION, {"max_tokens": 8})  # the server checked it
    assert describe_model(generator)["api_key_env"] == "MY_LLAMA_KEY"


@pytest.mark.slow
def test_a_wrong_key_is_refused_at_once_and_never_repeated(openai_chat_server, cache, monkeypatch):
    wrong = "sk-wrong-key-0000-never-print-me"
    monkeypatch.setenv("OPENAI_API_KEY", wrong)
    generator = generator_at(openai_chat_server, cache)
    with pytest.raises(ModelCallFailed) as raised:
        generator.generate(QUESTION)
    message = str(raised.value)
    assert f"openai-compatible server at {openai_chat_server.base_url} refused" in message
    assert "POST /chat/completions for 'qwen-chat': HTTP 401" in message  # no retry: 4xx
    assert "the key in $OPENAI_API_KEY was refused" in message
    assert wrong not in message
    [failure] = cache.failures()
    assert wrong not in json.dumps(failure) and "HTTP 401" in failure["error"]
    assert generator.digest == "unavailable" and wrong not in generator.digest_reason


@pytest.mark.slow
def test_no_key_sends_no_header_and_says_which_variable_is_unset(
    openai_chat_server, cache, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY")
    generator = generator_at(openai_chat_server, cache)
    with pytest.raises(ModelCallFailed, match=r"no key sent: \$OPENAI_API_KEY is unset"):
        generator.generate(QUESTION)


@pytest.mark.slow
def test_a_server_error_is_retried_then_counted_failed(openai_embedding_server, cache):
    embedder = embedder_at(openai_embedding_server, cache)
    too_long = " ".join(f"w{i}" for i in range(1500))  # past the server's batch: HTTP 500
    with pytest.raises(ModelCallFailed) as raised:
        embedder.embed([too_long])
    message = str(raised.value)
    assert f"failed POST /embeddings of 1 text(s) for {EMBED_MODEL!r} after 3 attempt(s)" in message
    assert "HTTP 500: input (" in message and "is too large to process" in message
    assert cache.stats() == {"replayed": 0, "computed": 0, "failed": 1}


@pytest.mark.slow
def test_a_client_error_is_not_retried(openai_chat_server, cache):
    generator = generator_at(openai_chat_server, cache)
    too_long = [{"role": "user", "content": " ".join(f"w{i}" for i in range(1500))}]
    with pytest.raises(ModelCallFailed) as raised:
        generator.generate(too_long)
    message = str(raised.value)
    assert "refused POST /chat/completions for 'qwen-chat': HTTP 400" in message
    assert f"exceeds the available context size ({N_CTX} tokens)" in message


def test_an_unreachable_server_is_retried_and_named(cache):
    base_url = f"http://127.0.0.1:{unused_port()}/v1"
    embedder = load_embedder("openai:m1", cache, retry=FAST, options={"base_url": base_url})
    assert embedder.digest == "unavailable"
    assert "the model list (GET /models) for 'm1' after 3 attempt(s): cannot connect" in (
        embedder.digest_reason
    )
    with pytest.raises(ModelCallFailed, match=f"server at {base_url} failed POST /embeddings"):
        embedder.embed(["one text"])
    assert cache.stats()["failed"] == 1


@pytest.mark.slow
def test_the_digest_is_the_listed_model_meta_without_server_settings(
    openai_embedding_server, cache
):
    listing = httpx.get(
        f"{openai_embedding_server.base_url}/models",
        headers={"Authorization": f"Bearer {API_KEY}"},
    ).json()
    [entry] = [e for e in listing["data"] if e["id"] == EMBED_MODEL]
    meta = {k: v for k, v in entry["meta"].items() if k != "n_ctx"}
    expected = hashlib.sha256(
        json.dumps(meta, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    embedder = embedder_at(openai_embedding_server, cache)
    assert embedder.digest == f"meta-sha256:{expected}"
    assert "not of the weights" in embedder.digest_reason
    window = embedder.input_window()
    assert window.tokens == N_CTX and window.basis == "unknown"


@pytest.mark.slow
def test_a_model_the_server_does_not_list_has_no_digest(openai_chat_server, cache):
    generator = load_generator(
        "openai:not-served", cache, retry=FAST, options={"base_url": openai_chat_server.base_url}
    )
    assert generator.digest == "unavailable"
    assert generator.digest_reason == (
        f"'not-served' is not among the models listed by {openai_chat_server.base_url}/models"
    )


@pytest.mark.slow
def test_openai_base_url_comes_from_the_environment(openai_chat_server, cache, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", openai_chat_server.base_url + "/")
    generator = load_generator(f"openai:{CHAT_MODEL}", cache, retry=FAST)
    assert describe_model(generator)["base_url"] == openai_chat_server.base_url
    assert generator.digest.startswith("meta-sha256:")


def test_specs_and_options_are_checked_before_any_call(monkeypatch):
    check_embedder_spec("openai:text-embedding-3-small")
    check_generator_spec("openai:gpt-4o-mini")
    with pytest.raises(RagauditError, match="embedder spec 'openai:'"):
        check_embedder_spec("openai:")
    with pytest.raises(RagauditError, match="local:minilm: base_url applies to openai:"):
        load_embedder("local:minilm", options={"base_url": "http://127.0.0.1:1/v1"})
    with pytest.raises(RagauditError, match="option 'api_key' is not supported"):
        load_generator("openai:m", options={"api_key": "x"})
    monkeypatch.setenv("OPENAI_BASE_URL", "127.0.0.1:8080")
    with pytest.raises(
        RagauditError, match="OPENAI_BASE_URL='127.0.0.1:8080': the URL names no scheme"
    ):
        load_generator("openai:m")


def test_ollama_engines_are_remote_and_local_ones_are_not(cache, fake_ollama):
    server = fake_ollama()
    ollama = load_embedder("ollama:mxbai-embed-large", cache, host=server.url, retry=FAST)
    assert ollama.engine.remote is True
    assert getattr(load_embedder("local:minilm", cache).engine, "remote", False) is False


@pytest.mark.slow
def test_ragaudit_run_takes_openai_specs_and_writes_no_key(ragaudit_home, monkeypatch, capsys):
    base_url = f"http://127.0.0.1:{unused_port()}/v1"  # nothing listens: every call fails
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    monkeypatch.setenv("RAGAUDIT_RETRIES", "0")
    status = main(
        ["run", "--n", "1", "--no-extra-configs", "--embedders", "openai:m-embed"]
        + ["--generator", "openai:m-chat", "--gen-configs", "A", "--gen-probes", "negation"]
    )
    assert status == 1  # the run was not refused (2): it ran, and its calls failed
    stderr = capsys.readouterr().err
    assert f"openai-compatible server at {base_url} failed POST /embeddings" in stderr
    results = ragaudit_home / "results"  # a run that lost calls may keep latest.json as it was
    failed = results / "latest.failed.json"
    written = (failed if failed.exists() else results / "latest.json").read_text()
    [embedder] = [m for m in json.loads(written)["models"] if m["spec"] == "openai:m-embed"]
    assert embedder["base_url"] == base_url and embedder["api_key_env"] == "OPENAI_API_KEY"
    assert API_KEY not in written and API_KEY not in stderr
    assert API_KEY.encode() not in (ragaudit_home / "cache.sqlite").read_bytes()
