"""Issue 40, item 23: a plain (not gzip) results file is capped like a gzip one, at 256 MB,
refused in one line from its size on disk, before any byte of it is read. The files are
sparse (truncate): 300 MB on paper, no disk space, and reading one whole would show in the
memory this process traces."""

from __future__ import annotations

import tracemalloc

import pytest

from ragaudit.cli.main import main
from ragaudit.errors import RagauditError
from ragaudit.results.io import load_results


def _sparse(path, megabytes: int):
    with path.open("wb") as handle:
        handle.truncate(megabytes * 2**20)
    return path


def test_a_300_mb_plain_file_is_refused_without_being_read(tmp_path):
    big = _sparse(tmp_path / "latest.json", 300)
    tracemalloc.start()
    try:
        with pytest.raises(RagauditError) as refused:
            load_results(big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(refused.value) == (
        f"{big}: 300.0 MB, over the 256 MB limit for one results file (plain or gunzipped); "
        "not read"
    )
    assert peak < 16 * 2**20, f"{peak / 2**20:.0f} MB held: the file was read"


def test_gate_and_compare_say_it_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    big = _sparse(tmp_path / "big.json", 300)
    other = _sparse(tmp_path / "other.json", 257)  # one MB over: refused too
    for argv, name in (
        (["gate", "--baseline", str(big), "--results", str(other)], big),
        (["compare", str(other), str(big), "--out", str(tmp_path / "out")], other),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{name}: " in err and "256 MB limit" in err, err
    assert not (tmp_path / "out").exists()
