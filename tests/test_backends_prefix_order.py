"""Prompts run in an order that lets llama.cpp reuse the prefix each shares with the one
before it; RAGAUDIT_PREFIX_CACHE turns the reuse off."""

from __future__ import annotations

import pytest

from ragaudit.backends.qwen import QwenEngine, prefix_cache_enabled
from ragaudit.errors import RagauditError
from ragaudit.runner.generate import build_messages, prefix_order


def _prompt(name: str, question: str, texts: list[str]) -> tuple[str, list[dict]]:
    chunks = [{"chunk_id": t, "text": t} for t in texts]
    return name, build_messages(question, chunks)


def test_oracle_then_k3_then_k8_of_one_question_run_side_by_side():
    gold, second, third = "Gold chunk text.", "Second chunk.", "Third chunk."
    k8 = _prompt("k8", "q1?", [gold, second, third, "Four.", "Five.", "Six.", "Seven.", "8."])
    k3 = _prompt("k3", "q1?", [gold, second, third])
    oracle = _prompt("oracle", "q1?", [gold])
    other = _prompt("other", "q2?", ["Another question's chunk."])
    ordered = prefix_order([k8, other, k3, oracle])
    # By hand: the user texts all start "Context:\n[c1] "; "Another…" sorts before "Gold…";
    # after "[c1] Gold chunk text.\n\n" the oracle goes on "Question" and k3 "[c2]" ('Q' <
    # '['); k3 and k8 share three chunks, then k3 has "Question" where k8 has "[c4]".
    assert [name for name, _ in ordered] == ["other", "oracle", "k3", "k8"]


def test_the_order_depends_only_on_the_set_of_prompts():
    prompts = [_prompt(str(i), f"q{i % 3}?", [f"chunk {i % 2}", f"tail {i}"]) for i in range(6)]
    assert prefix_order(prompts) == prefix_order(list(reversed(prompts)))


def test_prefix_cache_is_on_unless_turned_off(monkeypatch):
    monkeypatch.delenv("RAGAUDIT_PREFIX_CACHE", raising=False)
    assert prefix_cache_enabled() is True
    monkeypatch.setenv("RAGAUDIT_PREFIX_CACHE", "0")
    assert prefix_cache_enabled() is False
    monkeypatch.setenv("RAGAUDIT_PREFIX_CACHE", "yes")
    with pytest.raises(RagauditError, match=r"RAGAUDIT_PREFIX_CACHE='yes': use 1"):
        prefix_cache_enabled()


@pytest.mark.parametrize("reuse", [True, False])
def test_the_request_asks_llama_cpp_for_prefix_reuse_as_configured(reuse):
    engine = QwenEngine.__new__(QwenEngine)  # the request body needs no loaded model
    engine.prefix_cache = reuse
    body = engine.request_body(build_messages("q?", []), engine.effective_params({}))
    assert body["cache_prompt"] is reuse
