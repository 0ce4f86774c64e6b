"""`ragaudit audit --dry-run`: every input checked, then the embedding calls the audit would
make (the distinct chunk texts and case questions, counted by hand on a three-document
corpus cut one chunk per document), how many the call cache holds (keys built from the
digest it recorded for the model, without loading it; written here by hand), the time from
the seconds the cache recorded for the embedder (or that none were); exit 0, nothing
embedded or written. Bad input is still exit 2 with one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.run_fixtures import MINILM, store_questions

from ragaudit.backends.cache import CallCache
from ragaudit.cli.main import main

SETTINGS = "name: prod\nembedder: local:minilm\nsplitter: document\nk: 2\n"
CASES = """intents:
  - intent: tides
    expect: [tides]
    phrasings:
      - q: When is high tide?
      - q: What time is the high tide?
  - intent: wind
    expect: [wind]
    phrasings:
      - q: Where does the wind blow from?
"""


@pytest.fixture
def audit_files(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in [("tides", "High tide is at six."), ("wind", "The wind is from the west."),
                       ("rain", "Rain falls in April.")]:  # fmt: skip
        (corpus / f"{name}.txt").write_text(text + "\n")
    (tmp_path / "settings.yaml").write_text(SETTINGS)
    (tmp_path / "cases.yaml").write_text(CASES)
    return tmp_path


def audit(folder: Path, *flags: str) -> list[str]:
    return ["audit", str(folder / "corpus"), str(folder / "cases.yaml"), "--settings",
            str(folder / "settings.yaml"), "--dry-run", *flags]  # fmt: skip


def test_audit_dry_run_counts_the_embedding_calls_and_writes_nothing(audit_files, capsys):
    assert main(audit(audit_files)) == 0
    out = capsys.readouterr().out
    # 3 documents -> 3 chunks (splitter: document), plus 3 questions; nothing recorded, so
    # the time is that of a short timed sample of the embedder here (its 3 passages)
    assert (
        "audit: embed local:minilm: 6 calls, 0 cached, 6 to compute (no call of local:minilm "
        "stored yet); time ~" in out
    )
    assert "(a timed sample of 3 texts here: no recorded calls yet)" in out
    assert "nothing was called or written" in out
    assert not (audit_files / "home").exists()


def files(home: Path) -> dict[Path, bytes]:
    """Every file under `home` and its bytes, less SQLite's -wal/-shm sidecars (a reader of
    a WAL database makes them; the database file is what holds the calls)."""
    return {
        p: p.read_bytes()
        for p in home.rglob("*")
        if p.is_file() and not p.name.endswith(("-wal", "-shm"))
    }


def test_audit_dry_run_estimates_from_the_recorded_seconds(audit_files, capsys):
    cache = CallCache()
    for i, seconds in enumerate([0.2, 0.6, 0.4, 0.8]):  # mean 0.5 s
        cache.put("local:minilm", "embed", f"k{i}", b"[]", identity="x", seconds=seconds)
    cache.close()
    before = files(audit_files / "home")
    assert main(audit(audit_files)) == 0
    out = capsys.readouterr().out
    assert "6 calls, cached: no digest recorded for local:minilm yet (its stored calls " in out
    assert "~3.0 s (at most: every call, at the mean of 4 recorded)" in out
    assert "dry run: 6 calls; estimated time ~3.0 s; nothing was called or written" in out
    assert files(audit_files / "home") == before


def test_audit_dry_run_tells_the_cached_calls_from_the_recorded_digest(audit_files, capsys):
    cache = CallCache()
    store_questions(cache, "sha256:old", ["Where does the wind blow from?"])
    store_questions(cache, "sha256:new", ["When is high tide?", "What time is the high tide?"])
    cache.remember_digest("local", MINILM["model"], "sha256:new")
    cache.close()
    before = files(audit_files / "home")
    assert main(audit(audit_files)) == 0
    out = capsys.readouterr().out
    # two of the three questions stored under the digest last seen; the third under an
    # older one, and no chunk: 4 to compute at the mean 0.5 s of the 3 recorded
    assert (
        "audit: embed local:minilm: 6 calls, 2 cached, 4 to compute (keyed by the digest "
        "recorded for local:minilm, sha256:new); time ~2.0 s (mean of 3 recorded)" in out
    )
    assert files(audit_files / "home") == before
    cache = CallCache()
    cache.remember_digest("local", MINILM["model"], "sha256:newer")  # the weights changed
    cache.close()
    assert main(audit(audit_files)) == 0
    assert (
        "6 calls, 0 cached, 6 to compute (keyed by the digest recorded for local:minilm, "
        "sha256:newer)" in capsys.readouterr().out
    )


def test_audit_dry_run_refuses_bad_input(audit_files, capsys):
    (audit_files / "cases.yaml").write_text(CASES.replace("expect: [wind]", "expect: [snow]"))
    assert main(audit(audit_files)) == 2
    err = capsys.readouterr().err.strip()
    assert "snow" in err and len(err.splitlines()) == 1
