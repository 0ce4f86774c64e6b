"""The matrix benchmark's split of wall time into embedding compute and the rest."""

from __future__ import annotations

from benchmarks.matrix import embedding_seconds
from ragaudit.backends.cache import CallCache


def test_embedding_seconds_sums_the_named_models_embedding_rows_over_every_cache(tmp_path):
    cold = CallCache(tmp_path / "cache.sqlite")
    # a batch of 4 texts that took 1.0 s stores 0.25 s a row
    cold.put_many("local:minilm", "embed", [(f"k{n}", b"v") for n in range(4)], seconds=0.25)
    cold.put_many("local:e5-small", "embed", [("e", b"v")], seconds=9.0)  # another model
    cold.put_many("local:minilm", "generate", [("g", b"v")], seconds=7.0)  # not an embedding
    cold.put_many("local:minilm", "embed", [("old", b"v")])  # no recorded time: adds nothing
    naive = CallCache(tmp_path / "naive.sqlite")
    naive.put_many("local:minilm", "embed", [("a", b"v"), ("b", b"v")], seconds=1.5)
    # by hand: 4 x 0.25 = 1.0 in the first file; 2 x 1.5 = 3.0 in the second
    assert embedding_seconds([tmp_path / "cache.sqlite"], ["local:minilm"]) == 1.0
    files = [tmp_path / "cache.sqlite", tmp_path / "naive.sqlite"]
    assert embedding_seconds(files, ["local:minilm"]) == 4.0
    assert embedding_seconds(files, ["local:minilm", "local:e5-small"]) == 13.0
