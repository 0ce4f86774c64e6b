"""`ragaudit corpus --export DIR` never writes over the corpus and never ends in a traceback
(issue 40, items 19 and 20): an export into the corpus folder or below it (`--format md`
into `corpus/documents` replaced the committed documents, and every later command then
refused the corpus as differing from its manifest) is refused; an export onto a file or
onto /dev/null is one line (it was a FileExistsError traceback). Each is
`ragaudit.cli.main.main` in this process: exit 2, one stderr line, the corpus still
matching its manifest. The corpus is written once by the installed `ragaudit` script, and
the export that succeeds runs the script too."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ragaudit.cli.main import main

RAGAUDIT = [str(Path(sys.executable).parent / "ragaudit")]
FOLDER = "writing there would change the input, so nothing was written (name a path outside it)"
NOT_A_FOLDER = "is a file, not a folder; name a folder to write the documents into"


def ragaudit(root: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAGAUDIT_HOME": str(root / "home")}
    return subprocess.run(
        [*RAGAUDIT, *argv], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )


def in_process(monkeypatch, capfd, root: Path, *argv: str) -> tuple[int, str, str]:
    """`ragaudit ARGV` in this process, from `root`: (exit status, stdout, stderr)."""
    monkeypatch.chdir(root)
    monkeypatch.setenv("RAGAUDIT_HOME", str(root / "home"))
    capfd.readouterr()
    status = main(list(argv))
    captured = capfd.readouterr()
    return status, captured.out, captured.err


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    """A planted corpus of n=1 written once by `ragaudit corpus`; each test takes a copy."""
    root = tmp_path_factory.mktemp("written")
    assert ragaudit(root, "corpus", "--out", "c", "--n", "1").returncode == 0
    return root / "c"


@pytest.fixture
def corpus(written, tmp_path) -> Path:
    """A copy of the planted corpus of n=1, and a file beside it."""
    shutil.copytree(written, tmp_path / "c")
    (tmp_path / "notes.txt").write_text("mine\n", encoding="utf-8")
    return tmp_path / "c"


def _state(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


CASES = {
    "the corpus folder": (["--export", "c"], f"--export c: is the corpus folder c; {FOLDER}"),
    "its documents folder, as md": (
        ["--export", "c/documents", "--format", "md"],
        f"--export c/documents: lies in the corpus folder c; {FOLDER}",
    ),
    "a new folder inside it": (
        ["--export", "c/export"],
        f"--export c/export: lies in the corpus folder c; {FOLDER}",
    ),
    "through ..": (
        ["--export", "elsewhere/../c/documents", "--format", "txt"],
        f"--export elsewhere/../c/documents: lies in the corpus folder c; {FOLDER}",
    ),
    "an existing file": (["--export", "notes.txt"], f"--export notes.txt: {NOT_A_FOLDER}"),
    "/dev/null": (["--export", "/dev/null"], f"--export /dev/null: {NOT_A_FOLDER}"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_an_export_over_the_corpus_or_onto_a_file_is_one_line(corpus, case, monkeypatch, capfd):
    argv, words = CASES[case]
    root = corpus.parent
    (root / "elsewhere").mkdir()
    before = _state(root)
    status, out, err = in_process(monkeypatch, capfd, root, "corpus", "--out", "c", *argv)
    assert (status, out) == (2, ""), err[-2000:]
    assert err == f"ragaudit corpus: {words}\n"
    assert _state(root) == before
    check = in_process(monkeypatch, capfd, root, "corpus", "--check", "--out", "c")
    assert check[0] == 0, check[2][-2000:]


def test_an_export_beside_the_corpus_is_written(corpus):
    done = ragaudit(corpus.parent, "corpus", "--out", "c", "--export", "exported")
    assert done.returncode == 0, done.stderr[-2000:]
    assert (corpus.parent / "exported" / "documents.jsonl").is_file()
