"""Reading a user's corpus: folders and JSONL; bad files listed and skipped with a count;
an empty corpus and malformed JSONL are clear errors."""

from __future__ import annotations

import json

import pytest

from ragaudit.auditing.corpus_io import html_to_text, read_user_corpus
from ragaudit.errors import RagauditError


def make_folder(root):
    (root / "statutes").mkdir(parents=True)
    (root / "statutes" / "estate.md").write_text("Article 16. Items excluded.", encoding="utf-8")
    (root / "guide.txt").write_text("File within six months.", encoding="utf-8")
    (root / "page.html").write_text(
        "<html><head><title>t</title><style>p{}</style></head><body><h1>Deadlines</h1>"
        "<p>File the return within <b>six</b> months.</p><script>x()</script></body></html>",
        encoding="utf-8",
    )
    (root / "scan.txt").write_bytes(b"%PDF-1.4\x00\x01\x02binary")
    (root / "latin1.txt").write_bytes("Caf\xe9 cr\xe8me".encode("latin-1"))
    (root / "blank.md").write_text("   \n", encoding="utf-8")
    (root / "notes.docx").write_bytes(b"PK\x03\x04")
    return root


def test_folder_reads_ids_and_source_types_and_lists_what_it_skipped(tmp_path):
    corpus = read_user_corpus(make_folder(tmp_path / "corpus"))
    by_id = {d.doc_id: d for d in corpus.documents}
    assert set(by_id) == {"statutes/estate", "guide", "page"}
    assert by_id["statutes/estate"].source_type == "statutes"
    assert by_id["guide"].source_type is None
    assert by_id["page"].text == "Deadlines\n\nFile the return within six months."
    skipped = {s.path: s.reason for s in corpus.skipped}
    assert skipped == {
        "scan.txt": "binary (NUL bytes)",
        "latin1.txt": "not UTF-8 (byte 3)",
        "blank.md": "empty",
        "notes.docx": "unsupported extension .docx",
    }


def test_a_link_out_of_the_folder_is_listed_and_never_opened(tmp_path):
    root = make_folder(tmp_path / "corpus")
    # A file whose read fails with EIO for any user (the process's own memory file): it
    # used to be opened through the link and listed as unreadable; now the link out of the
    # folder is refused before anything is read.
    (root / "mem.txt").symlink_to("/proc/self/mem")
    skipped = {s.path: s.reason for s in read_user_corpus(root).skipped}
    assert skipped["mem.txt"] == "symlink to a file outside the corpus folder (not read)"
    assert len(skipped) == 5


def test_empty_corpus_is_a_clear_error_counting_the_skipped(tmp_path):
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "scan.txt").write_bytes(b"\x00\x00")
    with pytest.raises(
        RagauditError, match=r"corpus .*corpus: empty, no readable document \(1 files"
    ):
        read_user_corpus(root)
    with pytest.raises(RagauditError, match="no such file or folder"):
        read_user_corpus(tmp_path / "missing")


def test_jsonl_documents_with_source_type_and_metadata(tmp_path):
    path = tmp_path / "docs.jsonl"
    rows = [
        {"id": "s1", "text": "Article 1.", "source_type": "statute", "metadata": {"year": 2020}},
        {"id": "r1", "text": "Ruling one."},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    corpus = read_user_corpus(path)
    assert [(d.doc_id, d.source_type) for d in corpus.documents] == [
        ("s1", "statute"),
        ("r1", None),
    ]
    assert corpus.documents[0].metadata == {"year": 2020}


@pytest.mark.parametrize(
    "lines, expected",
    [
        (['{"id": "a", "text": "x"}', '{"id": "b", "text": '], "line 2: not valid JSON"),
        (['{"id": "a", "text": "x"}', '{"id": "a", "text": "y"}'], "line 2: id 'a' already used"),
        (['{"id": "a"}'], "line 1: field text: missing"),
        (['{"id": "a", "text": "x", "source": "s"}'], "line 1: field source: unknown field"),
        (['["a", "x"]'], "line 1: expected an object"),
        (
            ['{"id": "a", "text": "x", "metadata": {"year": NaN}}'],
            "line 1: not valid JSON (NaN is not a number JSON allows",
        ),
        pytest.param(
            ['{"id": "a", "text": "x", "metadata": ' + "[" * 10_000],
            "line 1: not valid JSON (nested too deeply to read)",
            id="deep",
        ),
    ],
)
def test_malformed_jsonl_names_the_line(tmp_path, lines, expected):
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(RagauditError) as error:
        read_user_corpus(path)
    assert str(error.value).startswith(f"corpus {path}: ")
    assert expected in str(error.value)


def test_html_blocks_become_lines():
    assert html_to_text("<ul><li>one</li><li>two &amp; three</li></ul>") == "one\n\ntwo & three"


def test_an_html_pre_block_keeps_its_lines_and_is_fenced_as_code():
    # PostgreSQL's manual (postgresql-doc-15): a <pre> example's values were mined as facts
    page = (
        "<p>The  default is\n<code>1000</code>.</p>"
        '<pre class="programlisting">CREATE TABLE t (\n    n int DEFAULT 5\n);</pre>'
    )
    assert html_to_text(page) == (
        "The default is\n1000.\n\n```\nCREATE TABLE t (\n    n int DEFAULT 5\n);\n```"
    )
    from ragaudit.casemining.mine import mine_candidates
    from ragaudit.documents import Document

    mined = {c.answer for c in mine_candidates([Document("page", html_to_text(page))])}
    assert "5" not in mined


def test_a_users_corpus_and_the_planted_corpus_are_the_one_corpus_type(tmp_path):
    from ragaudit.corpus.build import build_corpus
    from ragaudit.documents import Corpus

    root = make_folder(tmp_path / "corpus")
    users = read_user_corpus(root)
    planted = build_corpus(n=1, probes=["control"])
    assert isinstance(users, Corpus) and isinstance(planted, Corpus)
    # a document is found by its id the same way in both
    assert users.document("guide").text == "File within six months."
    assert users.ids() == {"statutes/estate", "guide", "page"}
    first = planted.instances[0].answer_doc_ids[0]
    assert planted.document(first).metadata["probe"] == "control"
    assert first in planted.ids() and len(planted.ids()) == len(planted.documents)
    for corpus in (users, planted):
        with pytest.raises(RagauditError, match="^no document 'nosuch' in the corpus$"):
            corpus.document("nosuch")
    # where a corpus was read, and what it skipped: a user's only
    assert (users.root, len(users.skipped)) == (str(root), 4)
    assert (planted.root, planted.skipped) == (None, ())
