"""An audit keeps the last good results file as the matrix does (issue 40, item 11): a
good audit replaces `audit-latest.json` and keeps the good file it held as
`audit-latest.prev.json` (it used to be replaced with no copy kept); an audit whose cases
lost a call writes `audit-latest.failed.json` and leaves both files as they were.

The column is real user code (helpers.harbour): a word-overlap retriever, and one that
raises on every question; no model loads."""

from __future__ import annotations

import hashlib

import pytest
from helpers.harbour import write_harbour

from ragaudit.cli.main import main


@pytest.fixture
def harbour(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.syspath_prepend(str(tmp_path))
    return write_harbour(tmp_path)


def audit(root, stack: str) -> int:
    corpus, cases = str(root / "corpus"), str(root / "cases.yaml")
    return main(["audit", corpus, cases, "--stack", str(root / f"{stack}.yaml")])


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_good_audit_keeps_the_one_it_replaces_and_a_failed_one_costs_neither(harbour, capsys):
    results = harbour / "home" / "results"
    latest = results / "audit-latest.json"
    prev, failed = results / "audit-latest.prev.json", results / "audit-latest.failed.json"
    assert audit(harbour, "good") == 0
    first = sha(latest)
    assert audit(harbour, "good") == 0
    assert sha(prev) == first
    assert f"kept the previous results as {prev}" in capsys.readouterr().out.splitlines()
    second = sha(latest)

    assert audit(harbour, "down") == 1
    out = capsys.readouterr().out.splitlines()
    assert (sha(latest), sha(prev)) == (second, first)
    assert failed.is_file()
    assert f"results: {failed}" in out
    assert f"the last good run stays in {latest}" in out
