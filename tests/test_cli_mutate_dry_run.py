"""`ragaudit mutate --dry-run` (issue 38): the builds and the calls the run would make, a
time from a short timed sample of the embedder on a first run (never "~0.0 s" for lack of
a record), and nothing written."""

from __future__ import annotations

from test_mutate_discriminates import CASES, FILLER, POLICY, TABLE

from ragaudit.cli.main import main


def test_mutate_dry_run_prints_builds_and_calls_and_writes_nothing(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    monkeypatch.setenv("RAGAUDIT_HOME", str(home))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "handbook.md").write_text(POLICY, encoding="utf-8")
    (corpus / "cranes.md").write_text(TABLE, encoding="utf-8")
    for i, text in enumerate(FILLER):
        (corpus / f"news-{i}.md").write_text(text, encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "whole.yaml").write_text("name: whole\nsplitter: document\nk: 2\n", "utf-8")
    argv = ["mutate", str(corpus), str(tmp_path / "cases.yaml"), "--settings",
            str(tmp_path / "whole.yaml"), "--operators", "supersede", "--no-generate"]  # fmt: skip
    assert main([*argv, "--dry-run"]) == 0
    out = capsys.readouterr().out
    # both intents get a superseding revision: 2 overlays. One chunk per document: the 5
    # documents and the 2 revisions are 7 passages, plus the 2 questions: 9 calls
    assert "builds: 1 base index, 2 mutant overlays on it" in out
    assert "mutate: embed local:minilm: 9 calls, 0 cached, 9 to compute" in out
    assert "(a timed sample of 7 texts here: no recorded calls yet)" in out
    assert "nothing was called or written" in out
    assert not home.exists()
