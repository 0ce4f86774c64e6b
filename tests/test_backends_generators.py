"""The embedded Qwen generators (real models): deterministic replies, replay, failures counted."""

from __future__ import annotations

import pytest

from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import describe_model, load_generator
from ragaudit.errors import ModelCallFailed, RagauditError

QUESTION = [
    {"role": "system", "content": "Answer in one short sentence."},
    {"role": "user", "content": "What is the capital of France?"},
]
SHORT = {"max_tokens": 24}


@pytest.fixture
def cache(ragaudit_home):
    return CallCache()


@pytest.mark.slow
def test_small_qwen_answers_and_replays_identically(cache):
    generator = load_generator("local:qwen2.5-0.5b", cache=cache)
    first = generator.generate_detailed(QUESTION, SHORT)
    assert "Paris" in first.text
    assert first.replayed is False
    second = generator.generate_detailed(QUESTION, SHORT)
    assert second.text == first.text and second.replayed is True
    assert cache.stats() == {"replayed": 1, "computed": 1, "failed": 0}
    # greedy decoding: recomputing without the cache gives the same reply
    recomputed = generator.engine.chat(QUESTION, generator.engine.effective_params(SHORT))
    assert recomputed == first.text


@pytest.mark.slow
def test_parameters_are_part_of_the_key(cache):
    generator = load_generator("local:qwen2.5-0.5b", cache=cache)
    generator.generate(QUESTION, {"max_tokens": 4})
    generator.generate(QUESTION, {"max_tokens": 5})
    assert cache.stats()["computed"] == 2
    assert generator.call_key(QUESTION, {"max_tokens": 4}) != generator.call_key(
        QUESTION, {"max_tokens": 5}
    )


@pytest.mark.slow
def test_llama_cpp_threads_and_prefix_reuse_key_the_replies_and_are_recorded(cache, monkeypatch):
    # They move logits in their last bits: a reply computed one way must not replay the other.
    keys, described = [], []
    for threads, reuse in (("1", "1"), ("2", "1"), ("2", "0")):
        monkeypatch.setenv("RAGAUDIT_LLM_THREADS", threads)
        monkeypatch.setenv("RAGAUDIT_PREFIX_CACHE", reuse)
        generator = load_generator("local:qwen2.5-0.5b", cache=cache)
        keys.append(generator.call_key(QUESTION, SHORT))
        model = describe_model(generator)
        described.append((model["llm_threads"], model["prefix_reuse"]))
    assert len(set(keys)) == 3
    assert described == [(1, True), (2, True), (2, False)]


@pytest.mark.slow
def test_prompt_beyond_the_context_is_a_counted_failure_not_an_empty_reply(ragaudit_home):
    cache = CallCache()
    generator = load_generator("local:qwen2.5-0.5b", cache=cache, n_ctx=256)
    too_long = [{"role": "user", "content": "word " * 2000}]
    with pytest.raises(ModelCallFailed, match="local:qwen2.5-0.5b"):
        generator.generate(too_long, SHORT)
    assert cache.stats() == {"replayed": 0, "computed": 0, "failed": 1}
    assert cache.failures()[0]["model"] == "local:qwen2.5-0.5b"
    assert cache.failures()[0]["kind"] == "generate"
    # the failure is not stored: a rerun tries again
    assert cache.stored_calls() == 0


@pytest.mark.slow
def test_unknown_parameter_and_bad_messages_are_refused(cache):
    generator = load_generator("local:qwen2.5-0.5b", cache=cache)
    with pytest.raises(RagauditError, match="'temprature'.*valid: max_tokens"):
        generator.generate(QUESTION, {"temprature": 0})
    with pytest.raises(RagauditError, match=r"messages\[0\]"):
        generator.generate([{"role": "robot", "content": "x"}])


def test_unknown_generator_spec_suggests_the_near_miss(cache):
    with pytest.raises(RagauditError, match="did you mean 'local:qwen2.5-1.5b'"):
        load_generator("local:qwen2.5-1.5", cache=cache)


@pytest.mark.slow
def test_the_default_1_5b_model_loads_and_answers(cache):
    generator = load_generator("local:qwen2.5-1.5b", cache=cache)
    assert describe_model(generator)["digest"] == (
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    )
    reply = generator.generate(QUESTION, SHORT)
    assert "Paris" in reply
