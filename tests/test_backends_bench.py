"""The backends benchmark runs end to end on tiny inputs and reports ratios (not timed)."""

from __future__ import annotations

import json

import pytest

from ragaudit.bench import backends


@pytest.mark.slow
def test_backends_bench_prints_every_figure(ragaudit_home, tmp_path, capsys):
    out = tmp_path / "figures.json"
    argv = ["--texts", "8", "--e5-texts", "4", "--rounds", "2", "--prompts", "1"]
    argv += ["--gen-tokens", "4", "--context-chars", "200", "--generator", "local:qwen2.5-0.5b"]
    assert backends.main([*argv, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.count(" ratio ") == 4
    figures = json.loads(out.read_text())
    assert [row["spec"] for row in figures["embedders"]] == ["local:minilm", "local:e5-small"]
    assert all(row["computed"] == row["texts"] for row in figures["embedders"])
    assert figures["generator"]["prompt_tokens"] > 0
    assert figures["generator"]["replayed_calls_per_s"] > 0
    # the benchmark's caches live in a temp dir, never in the user's cache
    assert not (ragaudit_home / "cache.sqlite").exists()


def test_bench_texts_are_distinct_and_about_a_thousand_characters():
    texts = backends.make_texts(50)
    assert len(set(texts)) == 50
    assert all(990 <= len(text) <= 1000 for text in texts)
