"""mutate names every corpus file it skips, as audit does (issue 40, item 12): a binary,
an empty and a non-UTF-8 file are listed on stderr (`corpus: N documents, K files
skipped`, then `[skipped] path: reason` each) and in the results file's corpus section;
before, mutate dropped them without a word. The column is helpers.harbour's word-overlap
retriever (no model)."""

from __future__ import annotations

import json

from helpers.harbour import write_harbour

from ragaudit.cli.main import main


def test_mutate_lists_the_files_it_skipped(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.syspath_prepend(str(tmp_path))
    root = write_harbour(tmp_path)
    corpus = root / "corpus"
    (corpus / "scan.txt").write_bytes(b"%PDF-1.4\x00\x01\x02binary")
    (corpus / "blank.md").write_text("   \n", encoding="utf-8")
    (corpus / "latin1.txt").write_bytes("Caf\xe9 cr\xe8me".encode("latin-1"))
    out = tmp_path / "out.json"
    main(["mutate", str(corpus), str(root / "cases.yaml"), "--stack", str(root / "good.yaml"),
          "--operators", "supersede", "--no-generate", "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err.splitlines()
    # by hand: five readable documents (handbook, cranes, three news items)
    listed = [
        "corpus: 5 documents, 3 files skipped",
        "  [skipped] blank.md: empty",
        "  [skipped] latin1.txt: not UTF-8 (byte 3)",
        "  [skipped] scan.txt: binary (NUL bytes)",
    ]
    start = err.index(listed[0])
    assert err[start : start + 4] == listed
    section = json.loads(out.read_text(encoding="utf-8"))["corpus"]
    assert section["skipped_count"] == 3
    assert section["skipped"] == [
        {"path": "blank.md", "reason": "empty"},
        {"path": "latin1.txt", "reason": "not UTF-8 (byte 3)"},
        {"path": "scan.txt", "reason": "binary (NUL bytes)"},
    ]
