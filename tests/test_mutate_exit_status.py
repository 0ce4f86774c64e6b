"""`ragaudit mutate`'s exit status as mutmut and PIT users read it: without --fail-under any
survivor exits 1; with --fail-under SCORE only an operator scoring below SCORE does, and the
survivors are still listed. The column is test_mutate_discriminates' word-overlap stack (no
model): a plain ranking lets both supersede mutants survive (0/2) and keeps both originals
above their near-duplicates (2/2)."""

from __future__ import annotations

import json

import pytest
from test_mutate_discriminates import CASES, FILLER, POLICY, RETRIEVER, TABLE

from ragaudit.cli.main import main

STACK = """\
name: plain
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {chunk_size: 400, chunk_overlap: 0}
retriever:
  factory: overlap_retriever:make
  args: {}
k: 2
"""


@pytest.fixture
def harbour(tmp_path, monkeypatch):
    """test_mutate_discriminates' corpus, cases and retriever (its `workspace`)."""
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "handbook.md").write_text(POLICY, encoding="utf-8")
    (corpus / "cranes.md").write_text(TABLE, encoding="utf-8")
    for i, text in enumerate(FILLER):
        (corpus / f"news-{i}.md").write_text(" ".join([text] * 3), encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "overlap_retriever.py").write_text(RETRIEVER, encoding="utf-8")
    return tmp_path


def run(workspace, *flags: str, operators=("supersede", "near_duplicate")) -> tuple[int, dict]:
    stack = workspace / "plain.yaml"
    stack.write_text(STACK, encoding="utf-8")
    out = workspace / "plain.json"
    status = main(["mutate", str(workspace / "corpus"), str(workspace / "cases.yaml"),
                   "--stack", str(stack), "--operators", *operators, "--no-generate",
                   "--out", str(out), *flags])  # fmt: skip
    return status, json.loads(out.read_text(encoding="utf-8"))["mutation"]


@pytest.mark.parametrize(
    ("flags", "expected", "below"),
    [
        ((), 1, []),  # a survivor, no threshold: fails as before
        (("--fail-under", "0"), 0, []),  # supersede 0/2 = 0.0 is not below 0
        # 0.0 < 0.5; near_duplicate 2/2 = 1.0 is not
        (("--fail-under", "0.5"), 1, ["below --fail-under 0.5: supersede"]),
        (("--fail-under", "1"), 1, ["below --fail-under 1.0: supersede"]),
    ],
)
def test_fail_under_decides_the_exit_status_instead_of_any_survivor(
    harbour,
    capsys,
    flags,
    expected,
    below,
):
    status, section = run(harbour, *flags)
    scores = {s["operator"]: (s["killed"], s["applicable"]) for s in section["scores"]}
    assert scores == {"supersede": (0, 2), "near_duplicate": (2, 2)}
    assert status == expected
    captured = capsys.readouterr()
    # the survivors are listed whatever the threshold says
    assert "Survivors (2):" in captured.out
    assert "- supersede/overtime-rate:" in captured.out
    assert [line for line in captured.err.splitlines() if line.startswith("below")] == below


def test_an_operator_at_the_threshold_passes(harbour):
    # near_duplicate alone: 2/2 = 1.0, not below 1.0
    status, section = run(harbour, "--fail-under", "1", operators=("near_duplicate",))
    assert section["survivors"] == [] and status == 0
