"""`ragaudit corpus --export DIR --format md|txt`: one file per document, `<id>.md` or
`<id>.txt`, holding exactly the text of the corpus's `documents/<id>.txt` (no metadata, so
nothing of the answer key); the expected files are read straight from the corpus folder.
(`--format jsonl` is exercised by tests/test_userpipeline_http.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragaudit.cli.main import main

DOCUMENTS = Path(__file__).resolve().parents[1] / "corpus" / "documents"
MANIFEST = DOCUMENTS.parent / "manifest.json"


@pytest.mark.parametrize("fmt", ["md", "txt"])
def test_each_document_is_one_file_holding_its_exact_text(tmp_path, capsys, fmt):
    expected = {f"{p.stem}.{fmt}": p.read_bytes() for p in DOCUMENTS.glob("*.txt")}
    count = json.loads(MANIFEST.read_text(encoding="utf-8"))["documents"]
    assert len(expected) == count
    out = tmp_path / "exported"
    assert main(["corpus", "--export", str(out), "--format", fmt]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {count} documents to {out} ({count} files)"
    written = {p.name: p.read_bytes() for p in out.iterdir()}
    assert written.keys() == expected.keys()
    assert [name for name in expected if written[name] != expected[name]] == []
