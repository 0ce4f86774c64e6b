"""Issue 40, item 21: a `?results=` (or `?audit_results=`) name no file can have, 5,000
characters under the results folder, gets on every page the one-line refusal a name that is
not allowed gets (here /etc/passwd's, with the value shortened), never an `OSError: File
name too long` traceback. AppTest runs the real pages."""

from __future__ import annotations

import pytest
from helpers.ui_fixtures import open_app

from ragaudit.corpus.build import build_corpus
from ragaudit.corpus.files import write_corpus

PAGES = ("matrix", "instance", "lab", "severity", "runs", "audit")


@pytest.fixture
def results(ragaudit_home, monkeypatch, tmp_path):
    """The data folder's results folder, made; no file given at server start; a small
    corpus (the Lab embeds it live)."""
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    monkeypatch.delenv("RAGAUDIT_AUDIT_RESULTS", raising=False)
    write_corpus(build_corpus(n=1), tmp_path / "corpus")
    monkeypatch.setenv("RAGAUDIT_CORPUS", str(tmp_path / "corpus"))
    folder = ragaudit_home / "results"
    folder.mkdir()
    return folder


def _errors(page: str, value: str) -> tuple[list[str], list]:
    param = "audit_results" if page == "audit" else "results"
    at = open_app(None, page=f"pages/{page}.py", **{param: value})
    return [e.value for e in at.error], list(at.exception)


@pytest.mark.parametrize("page", PAGES)
def test_a_5000_character_name_is_refused_like_any_name_not_allowed(results, page):
    long_name = str(results / ("a" * (5000 - len(str(results)) - 1)))
    assert len(long_name) == 5000
    # written by hand: the first 100 characters, then how many there were
    shown = f"{long_name[:100]}… (5,000 characters)"
    errors, exceptions = _errors(page, long_name)
    assert exceptions == []
    refused, _ = _errors(page, "/etc/passwd")
    assert refused, f"{page}: /etc/passwd is not refused: the comparison shows nothing"
    assert errors == [line.replace("/etc/passwd", shown) for line in refused]
    assert all("\n" not in line and "File name too long" not in line for line in errors)
