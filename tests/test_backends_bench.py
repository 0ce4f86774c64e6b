"""The backends benchmark runs end to end on tiny inputs and reports ratios (not timed)."""

from __future__ import annotations

import json

import pytest

from benchmarks import backends


@pytest.mark.slow
def test_backends_bench_prints_every_figure(ragaudit_home, tmp_path, capsys):
    out = tmp_path / "figures.json"
    argv = ["--texts", "8", "--e5-texts", "4", "--rounds", "2", "--prompts", "1"]
    argv += ["--gen-tokens", "4", "--context-chars", "200", "--generator", "local:qwen2.5-0.5b"]
    assert backends.main([*argv, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.count(" ratio ") == 5 and printed.count("target >= 0.9") == 4
    assert "each prompt evaluated whole on both sides" in printed and "reuse saves" in printed
    figures = json.loads(out.read_text())
    assert [row["spec"] for row in figures["embedders"]] == ["local:minilm", "local:e5-small"]
    assert all(row["computed"] == row["texts"] for row in figures["embedders"])
    generator = figures["generator"]
    assert generator["prompt_tokens"] > 0
    # like with like: both sides evaluated every prompt token (no prefix reused on either)
    evaluated = generator["prompt_tokens_evaluated"]
    assert evaluated["raw"] == evaluated["wrapper"] == generator["prompt_tokens"]
    # under reuse, both evaluate the same part of the second prompt, less than all of it
    raw, wrapper, whole = (generator["reuse"][k] for k in ("raw", "wrapper", "whole"))
    assert raw["evaluated"] == wrapper["evaluated"] < wrapper["tokens"] == whole["evaluated"]
    assert figures["generator"]["replayed_calls_per_s"] > 0
    # the benchmark's caches live in a temp dir, never in the user's cache
    assert not (ragaudit_home / "cache.sqlite").exists()


def test_bench_texts_are_distinct_and_about_a_thousand_characters():
    texts = backends.make_texts(50)
    assert len(set(texts)) == 50
    assert all(990 <= len(text) <= 1000 for text in texts)
