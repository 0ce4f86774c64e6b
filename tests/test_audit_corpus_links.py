"""A symlink in a corpus folder that leads out of it is refused and named, never read
(issue 40, item 14): a link to /etc/hostname put that file's text in the results. A link
to a file inside the folder is read as before; a link to a folder, or to nothing, is
named too (they used to vanish without a word)."""

from __future__ import annotations

import json

from helpers.harbour import write_harbour

from ragaudit.auditing.corpus_io import read_user_corpus
from ragaudit.cli.main import main

OUT_OF_FOLDER = "symlink to a file outside the corpus folder (not read)"


def test_links_out_of_the_corpus_folder_are_skipped_and_named(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "guides").mkdir(parents=True)
    (corpus / "guides" / "deadlines.md").write_text("File within six months.", "utf-8")
    (tmp_path / "secret.md").write_text("the neighbour's text", "utf-8")
    (corpus / "secret.md").symlink_to(tmp_path / "secret.md")
    (corpus / "host.txt").symlink_to("/etc/hostname")
    (corpus / "sneaky.md").symlink_to("guides/../../secret.md")  # out through ..
    (corpus / "alias.md").symlink_to("guides/deadlines.md")  # inside: read
    (corpus / "elsewhere").symlink_to(tmp_path)  # a folder
    (corpus / "gone.md").symlink_to(tmp_path / "missing.md")
    loaded = read_user_corpus(corpus)
    assert {d.doc_id: d.text for d in loaded.documents} == {
        "alias": "File within six months.",
        "guides/deadlines": "File within six months.",
    }
    assert {s.path: s.reason for s in loaded.skipped} == {
        "secret.md": OUT_OF_FOLDER,
        "host.txt": OUT_OF_FOLDER,
        "sneaky.md": OUT_OF_FOLDER,
        "elsewhere": "symlink to a folder (not followed)",
        "gone.md": "symlink to nothing (its target does not exist)",
    }


def test_mutate_never_reads_a_linked_file_into_its_results(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.syspath_prepend(str(tmp_path))
    root = write_harbour(tmp_path)
    (root / "corpus" / "host.md").symlink_to("/etc/hostname")
    out = tmp_path / "out.json"
    main(["mutate", str(root / "corpus"), str(root / "cases.yaml"), "--stack",
          str(root / "good.yaml"), "--operators", "supersede", "--no-generate",
          "--out", str(out)])  # fmt: skip
    assert f"  [skipped] host.md: {OUT_OF_FOLDER}" in capsys.readouterr().err.splitlines()
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["corpus"]["skipped"] == [{"path": "host.md", "reason": OUT_OF_FOLDER}]
    assert results["corpus"]["documents"] == 5  # helpers.harbour's five, not the link
    assert "host" not in {chunk["doc_id"] for chunk in results["chunks"].values()}
