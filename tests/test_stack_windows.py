"""Embedder input windows: each embedder declares its window and counts a text's tokens with
its own tokenizer, the run and the audit count the chunks past it, and the report, the
inspector and the audit say so in one sentence (or "not measured in this file")."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from helpers.analysis_fixtures import analysed_results

from ragaudit.backends.cache import CallCache
from ragaudit.backends.retry import RetryPolicy
from ragaudit.backends.specs import load_embedder
from ragaudit.cli.main import main
from ragaudit.report.document import render_markdown
from ragaudit.results.format import fmt_chunk_window, fmt_window
from ragaudit.stack.windows import survey_window
from ragaudit.ui.windows import matrix_window_lines, retrieved_window_tags

FAST = RetryPolicy(retries=1, delay=0.01, timeout=10)


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    text: str


def apples(n: int) -> str:
    """n words that are one token each under both tokenizers ("apple", "▁apple")."""
    return " ".join(["apple"] * n)


@pytest.fixture
def cache(ragaudit_home):
    return CallCache()


def test_minilm_counts_wordpieces_plus_cls_and_sep_against_256(cache):
    minilm = load_embedder("local:minilm", cache)
    # [CLS] + n × "apple" + [SEP]
    assert minilm.count_tokens([apples(254), apples(255), "apple"]) == [256, 257, 3]
    window = minilm.input_window()
    assert (window.tokens, window.basis, window.overflow) == (256, "tokenizer", "truncated")
    assert cache.stats() == {"replayed": 0, "computed": 0, "failed": 0}  # no model call


def test_e5_counts_its_passage_prefix_and_is_windowed_not_cut(cache):
    e5 = load_embedder("local:e5-small", cache)
    # <s> ▁passage : + n × ▁apple + </s>
    assert e5.count_tokens([apples(508), apples(509)]) == [512, 513]
    window = e5.input_window()
    assert (window.tokens, window.basis, window.overflow) == (512, "tokenizer", "windowed")


def test_a_chunking_under_the_window_and_one_over_it(cache):
    minilm = load_embedder("local:minilm", cache)
    short = [Chunk("s/d#0", apples(100)), Chunk("s/d#1", apples(254))]
    long = [Chunk("l/d#0", apples(300)), Chunk("l/d#1", apples(254)), Chunk("l/d#2", "apple")]
    survey = survey_window(minilm, [c.text for c in short + long])
    under, over = survey.fields(short), survey.fields(long)
    assert (under["over_window"], under["longest_tokens"], under["over_window_chunks"]) == (
        0,
        256,
        {},
    )
    assert (over["over_window"], over["longest_tokens"], over["over_window_chunks"]) == (
        1,
        302,
        {"l/d#0": 302},
    )
    assert over["window_tokens"] == 256 and over["window_basis"] == "tokenizer"


def entry(**fields) -> dict:
    base = {
        "embedder": "local:minilm",
        "chunking": "recursive-1000-0",
        "chunks": 796,
        "window_tokens": 256,
        "window_basis": "tokenizer",
        "window_overflow": "truncated",
        "over_window": 28,
        "longest_tokens": 310,
        "over_window_chunks": {"recursive-1000-0/doc#3": 310},
    }
    return {**base, **fields}


def test_the_sentence_in_each_case():
    assert fmt_window(entry()) == (
        "28 of 796 chunks of recursive-1000-0 exceed local:minilm's 256-token window; "
        "only their first 256 tokens are embedded (longest: 310 tokens)"
    )
    assert fmt_window(entry(over_window=0, longest_tokens=209)) == (
        "0 of 796 chunks of recursive-1000-0 exceed local:minilm's 256-token window "
        "(longest: 209 tokens)"
    )
    assert fmt_window(
        entry(embedder="local:e5-small", window_tokens=512, window_overflow="windowed")
    ) == (
        "28 of 796 chunks of recursive-1000-0 exceed local:e5-small's 512-token window; each "
        "is embedded whole as the mean of 512-token windows, diluting it (longest: 310 tokens)"
    )
    assert fmt_window(
        entry(embedder="ollama:m", window_tokens=512, window_basis="estimated", over_window=1)
    ) == (
        "an estimated 1 of 796 chunks of recursive-1000-0 exceeds ollama:m's 512-token window; "
        "only its first 512 tokens are embedded (longest: 310 tokens, counted with another "
        "model's tokenizer)"
    )
    unknown = entry(
        window_tokens=None, window_basis="unknown", over_window=None, over_window_reason="why"
    )
    assert fmt_window(unknown) == (
        "796 chunks of recursive-1000-0 not measured against local:minilm's input window: why"
    )
    old = {"embedder": "local:minilm", "chunking": "recursive-1000-0", "chunks": 796}
    assert (
        fmt_window(old)
        == "local:minilm on recursive-1000-0: input window not measured in this file"
    )
    assert fmt_chunk_window(310, entry()) == (
        "310 tokens, over the 256-token window: only the first 256 embedded"
    )


def test_the_ollama_window_is_read_from_the_servers_metadata(cache, fake_ollama):
    server = fake_ollama()
    mxbai = load_embedder("ollama:mxbai-embed-large", cache=cache, host=server.url, retry=FAST)
    window = mxbai.input_window()
    # the fake's bert.context_length is 512, under the 8192 num_ctx sent
    assert (window.tokens, window.basis, window.overflow) == (512, "estimated", "truncated")
    mxbai.embed(["one text"])
    assert server.embed_options() == {"num_ctx": 8192}
    narrow = load_embedder(
        "ollama:mxbai-embed-large", cache=cache, host=server.url, retry=FAST, n_ctx=128
    )
    assert narrow.input_window().tokens == 128  # num_ctx cuts first
    narrow.embed(["one text"])  # another num_ctx is another call, not a replay
    assert server.embed_options() == {"num_ctx": 128}
    assert cache.stats()["computed"] == 2
    chat_model = load_embedder("ollama:qwen2.5:7b", cache=cache, host=server.url, retry=FAST)
    unknown = chat_model.input_window()
    assert unknown.tokens is None and unknown.basis == "unknown"
    assert unknown.source == "/api/show gives no general.architecture for 'qwen2.5:7b'"


OLD_RESULTS = {
    "schema_version": 2,
    "run": {"indexes": [{"embedder": "local:minilm", "chunking": "recursive-1000-0"}]},
    "instances": [],
    "cells": [],
}


@pytest.fixture(scope="module")
def analysed():
    return analysed_results()


def with_indexes(results: dict, indexes: list[dict]) -> dict:
    return {**results, "run": {**(results.get("run") or {}), "indexes": indexes}}


def test_an_older_file_reads_not_measured_in_the_report_and_the_inspector(analysed):
    old_index = {"embedder": "local:minilm", "chunking": "recursive-1000-0", "chunks": 796}
    assert "local:minilm on recursive-1000-0: input window not measured in this file" in (
        render_markdown(with_indexes(analysed, [old_index]))
    )
    assert "Input windows: not measured in this file." in render_markdown(
        with_indexes(analysed, [])
    )
    assert matrix_window_lines(OLD_RESULTS, "local:minilm") == [
        "Input windows of local:minilm: not measured in this file."
    ]
    record = {"embedder": "local:minilm", "chunking": "recursive-1000-0"}
    assert retrieved_window_tags(OLD_RESULTS, record, {"chunk_id": "x"}) == []


def test_the_report_matrix_and_instance_show_the_measured_windows(analysed):
    results = {"run": {"indexes": [entry(), entry(chunking="recursive-512-128", over_window=0)]}}
    markdown = render_markdown(with_indexes(analysed, results["run"]["indexes"]))
    assert f"- {fmt_window(entry())}\n" in markdown
    assert "- 0 of 796 chunks of recursive-512-128 exceed local:minilm's 256-token window" in (
        markdown
    )
    # the Matrix lists only the indexes with chunks past the window
    assert matrix_window_lines(results, "local:minilm") == [fmt_window(entry()) + "."]
    record = {"embedder": "local:minilm", "chunking": "recursive-1000-0"}
    hit = {"chunk_id": "recursive-1000-0/doc#3"}
    assert retrieved_window_tags(results, record, hit) == [
        "310 tokens, over the 256-token window: only the first 256 embedded"
    ]
    assert retrieved_window_tags(results, record, {"chunk_id": "recursive-1000-0/doc#4"}) == []


def test_a_document_splitter_audit_of_a_long_article_counts_it(tmp_path, ragaudit_home, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "long.md").write_text(apples(400) + "\n", encoding="utf-8")
    (corpus / "short.md").write_text("Pears are green.\n", encoding="utf-8")
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "intents:\n  - intent: pears\n    expect: [short]\n    phrasings:\n"
        "      - q: What colour are pears?\n",
        encoding="utf-8",
    )
    settings = tmp_path / "s.yaml"
    settings.write_text("splitter: document\nk: 2\ncandidate_pool: 2\n", encoding="utf-8")
    out = tmp_path / "audit.json"
    main(["audit", str(corpus), str(cases), "--settings", str(settings), "--out", str(out)])
    printed = capsys.readouterr().out
    index = json.loads(out.read_text(encoding="utf-8"))["index"]
    # the long article: [CLS] + 400 × apple + [SEP] = 402 tokens, one of the two chunks
    assert (index["over_window"], index["chunks"], index["longest_tokens"]) == (1, 2, 402)
    assert index["over_window_chunks"] == {"document/long#0": 402}
    assert (
        "window: 1 of 2 chunks of document exceeds local:minilm's 256-token window; only its "
        "first 256 tokens are embedded (longest: 402 tokens)"
    ) in printed
