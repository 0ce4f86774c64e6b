"""A mutate run that lost calls never costs the good results file (issue 40, item 11): it
writes `mutate-latest.failed.json` and leaves `mutate-latest.json` byte for byte; a good
run replaces it and keeps the good file it held as `mutate-latest.prev.json`, which then
holds the last good run whatever follows (the matrix's rule, results.publish).

The column is real user code (helpers.harbour): a word-overlap retriever, and one that
raises on every question (a search service that is down); `--no-generate`, no model."""

from __future__ import annotations

import hashlib
import json

import pytest
from helpers.harbour import write_harbour

from ragaudit.cli.main import main


@pytest.fixture
def harbour(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.syspath_prepend(str(tmp_path))
    return write_harbour(tmp_path)


def mutate(root, stack: str, *flags: str) -> int:
    return main(["mutate", str(root / "corpus"), str(root / "cases.yaml"), "--stack",
                 str(root / f"{stack}.yaml"), "--operators", "supersede", "--no-generate",
                 *flags])  # fmt: skip


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_failed_mutate_leaves_the_good_file_and_the_prev_file_keeps_the_last_good(
    harbour, capsys
):
    results = harbour / "home" / "results"
    latest, failed = results / "mutate-latest.json", results / "mutate-latest.failed.json"
    prev = results / "mutate-latest.prev.json"

    mutate(harbour, "good")  # two survivors: exit 1, but no call failed
    first = sha(latest)
    capsys.readouterr()

    assert mutate(harbour, "down") == 1
    err = capsys.readouterr().err
    assert sha(latest) == first  # left as the good run wrote it
    assert sorted(p.name for p in results.glob("mutate-latest*")) == [
        "mutate-latest.failed.json", "mutate-latest.json"
    ]  # fmt: skip
    lost = json.loads(failed.read_text(encoding="utf-8"))
    # both phrasings are asked over the unmutated corpus and over the mutants' corpus
    assert len(lost["conditions"]["failed_calls"]) == 4
    assert (
        f"{latest} left as it was: model calls failed and records lost them, so this run's "
        f"results are in {failed} (--allow-failed-calls writes {latest})"
    ) in err.splitlines()
    assert f"the last good run stays in {latest}" in err.splitlines()

    mutate(harbour, "good")  # a good run replaces it; the good file it held is kept
    second = sha(latest)
    assert sha(prev) == first
    assert f"kept the previous results as {prev}" in capsys.readouterr().err

    assert mutate(harbour, "down") == 1
    assert (sha(latest), sha(prev)) == (second, first)

    # asked to write anyway: the failed run replaces it, the good run it held is kept,
    # and a second such run keeps the last good run in the prev file
    assert mutate(harbour, "down", "--allow-failed-calls") == 1
    assert sha(prev) == second
    assert json.loads(latest.read_text(encoding="utf-8"))["conditions"]["failed_calls"]
    assert mutate(harbour, "down", "--allow-failed-calls") == 1
    assert sha(prev) == second
    assert f"the last good run stays in {prev}" in capsys.readouterr().err
