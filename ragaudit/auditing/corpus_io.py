"""Read a user's corpus: a folder of .txt / .md / .html files, or a JSONL of documents.

A folder document's id is its path relative to the folder without the extension
(`statutes/estate-tax`), and its source type is its first folder (`statutes`), or null
for files at the top. A JSONL line is `{"id": ..., "text": ..., "source_type": ...,
"metadata": {...}}`. Unreadable, binary, non-UTF-8 or empty files are listed and skipped,
never silently dropped, and so is a symlink that leads out of the folder (a link to
/etc/hostname would put that file in the results), to a folder, or nowhere; a corpus with
no readable document is an error. The result is the one `Corpus` type
(ragaudit.documents), with where it was read and the files skipped."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html.parser import HTMLParser
from itertools import groupby
from pathlib import Path
from typing import Any

from ragaudit.documents import Corpus, Document, SkippedFile
from ragaudit.errors import RagauditError
from ragaudit.fileio import parse_json, read_text

TEXT_SUFFIXES = {".txt", ".md", ".markdown"}
HTML_SUFFIXES = {".html", ".htm"}


def read_user_corpus(path: Path) -> Corpus:
    """Read a user's corpus folder or JSONL file; see the module docstring for the format.
    The planted corpus is `corpus.files.load_planted_corpus`."""
    path = Path(path)
    if not path.exists():
        raise RagauditError(f"corpus {path}: no such file or folder")
    if path.is_dir():
        corpus = _load_folder(path)
    elif path.suffix.lower() in (".jsonl", ".ndjson"):
        corpus = _load_jsonl(path)
    else:
        raise RagauditError(f"corpus {path}: expected a folder or a .jsonl file")
    if not corpus.documents:
        skipped = f" ({len(corpus.skipped)} files skipped)" if corpus.skipped else ""
        raise RagauditError(f"corpus {path}: empty, no readable document{skipped}")
    return corpus


def _load_folder(root: Path) -> Corpus:
    documents: list[Document] = []
    skipped: list[SkippedFile] = []
    real_root = root.resolve()
    for file in sorted(root.rglob("*")):
        rel = file.relative_to(root).as_posix()
        refused = _link_refused(file, real_root) if file.is_symlink() else None
        if refused is None and file.is_dir():
            continue
        if refused is None and not file.is_file():
            refused = "not a regular file"
        if refused is not None:
            skipped.append(SkippedFile(rel, refused))
            continue
        suffix = file.suffix.lower()
        if suffix not in TEXT_SUFFIXES | HTML_SUFFIXES:
            skipped.append(SkippedFile(rel, f"unsupported extension {suffix or '(none)'}"))
            continue
        text, reason = _read_text(file)
        if text is None:
            skipped.append(SkippedFile(rel, reason))
            continue
        if suffix in HTML_SUFFIXES:
            text = html_to_text(text)
        if not text.strip():
            skipped.append(SkippedFile(rel, "empty"))
            continue
        parts = file.relative_to(root).with_suffix("").parts
        doc_id = "/".join(parts)
        documents.append(
            Document(
                doc_id=doc_id,
                text=text,
                source_type=parts[0] if len(parts) > 1 else None,
                path=rel,
            )
        )
    seen: dict[str, str] = {}
    for doc in documents:
        if doc.doc_id in seen:
            raise RagauditError(
                f"corpus {root}: {seen[doc.doc_id]} and {doc.path} both give id {doc.doc_id!r}"
            )
        seen[doc.doc_id] = doc.path or ""
    return Corpus(documents, root=str(root), skipped=tuple(skipped))


def _link_refused(link: Path, real_root: Path) -> str | None:
    """Why a symlink in the corpus folder is not read, or None when it leads to a file
    inside the folder. Links out are refused, not followed: the corpus is the folder."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):  # missing target, or a loop of links
        return "symlink to nothing (its target does not exist)"
    if target.is_dir():
        return "symlink to a folder (not followed)"
    if not target.is_relative_to(real_root):
        return "symlink to a file outside the corpus folder (not read)"
    return None


def _read_text(file: Path) -> tuple[str | None, str]:
    try:
        raw = file.read_bytes()
    except OSError as error:
        return None, f"unreadable ({error.strerror})"
    if b"\x00" in raw[:8192]:
        return None, "binary (NUL bytes)"
    try:
        return raw.decode("utf-8-sig"), ""
    except UnicodeDecodeError as error:
        return None, f"not UTF-8 (byte {error.start})"


def _load_jsonl(file: Path) -> Corpus:
    documents: list[Document] = []
    first_line: dict[str, int] = {}
    lines = read_text(file, f"corpus {file}").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"corpus {file}: line {number}"
        record = parse_json(line, where, one_line=True)
        if not isinstance(record, dict):
            raise RagauditError(f"{where}: expected an object with id and text")
        for key in record:
            if key not in ("id", "text", "source_type", "metadata"):
                raise RagauditError(f"{where}: field {key}: unknown field")
        doc_id, text = record.get("id"), record.get("text")
        if not isinstance(doc_id, str) or not doc_id:
            raise RagauditError(f"{where}: field id: missing or not a non-empty string")
        if not isinstance(text, str):
            raise RagauditError(f"{where}: field text: missing or not a string")
        source_type = record.get("source_type")
        if source_type is not None and not isinstance(source_type, str):
            raise RagauditError(f"{where}: field source_type: not a string")
        metadata = record.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise RagauditError(f"{where}: field metadata: not an object")
        if doc_id in first_line:
            raise RagauditError(f"{where}: id {doc_id!r} already used on line {first_line[doc_id]}")
        first_line[doc_id] = number
        documents.append(
            Document(doc_id, text, metadata, source_type=source_type, path=f"{file.name}:{number}")
        )
    return Corpus(documents, root=str(file))


class _TextExtractor(HTMLParser):
    BLOCK = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "pre",
             "dt", "dd"}  # fmt: skip
    SKIP = {"script", "style", "head", "title"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.runs: list[tuple[str, bool, int]] = []
        """(text, literal, depth): the page's text in order, `literal` inside <pre>, `depth`
        how many <dd> hold it."""
        self.skipping = 0
        self.literal = 0
        self.depth = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        elif tag in self.BLOCK:
            self.runs.append(("\n", False, self.depth))
        self.literal += tag == "pre"
        self.depth += tag == "dd"

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif tag in self.BLOCK:
            self.runs.append(("\n", False, self.depth))
        if tag == "pre":
            self.literal = max(0, self.literal - 1)
        if tag == "dd":
            self.depth = max(0, self.depth - 1)

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.runs.append((data, self.literal > 0, self.depth))


def html_to_text(html: str) -> str:
    """Visible text of an HTML page, block elements on their own lines. A <pre> block
    keeps its lines and is fenced (```), so that a reader of facts sees it is code (an
    example's `CREATE TABLE … 1000` in PostgreSQL's manual is no fact); a definition's
    <dd> is indented under its <dt> term, as a man page's option list is
    (`shared_buffers (integer)` over its description)."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    pieces = []
    for (literal, depth), runs in groupby(parser.runs, key=lambda run: run[1:]):
        text = "".join(run[0] for run in runs)
        if literal:
            lines = [line.rstrip() for line in text.strip("\n").splitlines()]
            pieces.append("\n```\n" + "\n".join(lines) + "\n```\n")
        else:
            lines = (" ".join(line.split()) for line in text.split("\n"))
            pieces.append("\n".join("    " * depth + line if line else "" for line in lines))
    text = "".join(pieces)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip()


DocumentsSource = Path | str | Corpus | Sequence[Any]
"""A user's corpus in any form the library takes (as_corpus)."""


def as_corpus(source: DocumentsSource) -> Corpus:
    """A user's corpus from a folder or JSONL path (read_user_corpus), a Corpus, or a list
    of documents built in Python: `(id, text)` pairs, `{"id", "text", "metadata"?,
    "source_type"?}` dicts, llama-index `Document`s (`id_`/`doc_id`, `text`) or LangChain
    `Document`s (`page_content`; the id from `id` or `metadata["id"|"source"]`). A
    document without an id, a repeated id or an empty list is one line naming the item;
    anything else (a single Document, a dict, a number) is one line naming its type."""
    if isinstance(source, (str, Path)):
        return read_user_corpus(Path(source))
    if isinstance(source, Corpus):
        return source
    one_document = hasattr(source, "page_content") or hasattr(source, "get_content")
    if one_document or isinstance(source, Mapping) or not isinstance(source, Iterable):
        # a Document alone or a dict would be iterated into its fields or keys
        raise RagauditError(
            "documents: expected a folder or JSONL path, a Corpus or a list of documents, "
            f"got {type(source).__name__}"
        )
    documents = [_document(item, index) for index, item in enumerate(source)]
    if not documents:
        raise RagauditError("documents: empty, no document given")
    seen: dict[str, int] = {}
    for index, doc in enumerate(documents):
        if doc.doc_id in seen:
            raise RagauditError(
                f"documents[{index}]: id {doc.doc_id!r} is also documents[{seen[doc.doc_id]}]'s"
            )
        seen[doc.doc_id] = index
    return Corpus(documents, root=None)


def _document(item: Any, index: int) -> Document:
    """One document given in Python (see as_corpus)."""
    if isinstance(item, Document):
        return item
    if isinstance(item, tuple) and len(item) == 2:
        doc_id, text, metadata = item[0], item[1], {}
    elif isinstance(item, dict):
        doc_id, text, metadata = item.get("id"), item.get("text"), item.get("metadata") or {}
    elif hasattr(item, "page_content"):  # a LangChain Document
        metadata = dict(getattr(item, "metadata", None) or {})
        doc_id = getattr(item, "id", None) or metadata.get("id") or metadata.get("source")
        text = item.page_content
    elif hasattr(item, "get_content") or hasattr(item, "text"):  # a llama-index Document
        metadata = dict(getattr(item, "metadata", None) or {})
        doc_id = getattr(item, "id_", None) or getattr(item, "doc_id", None)
        text = getattr(item, "text", None)
    else:
        raise RagauditError(
            f"documents[{index}]: expected an (id, text) pair, a dict with id and text, or a "
            f"llama-index or LangChain Document, got {type(item).__name__}"
        )
    if not isinstance(doc_id, str) or not doc_id:
        raise RagauditError(f"documents[{index}]: no id (give each document a string id)")
    if not isinstance(text, str) or not text.strip():
        raise RagauditError(f"documents[{index}] ({doc_id}): no text")
    source_type = item.get("source_type") if isinstance(item, dict) else None
    return Document(doc_id, text, dict(metadata), source_type=source_type, path=None)


def path_of(source: Any, otherwise: str | None, *, resolve: bool = False) -> str | None:
    """What a results file records as where an input was read: its path (absolute when
    `resolve`), else `otherwise` (an input given in Python has no path)."""
    if isinstance(source, (str, Path)):
        return str(Path(source).resolve()) if resolve else str(source)
    return otherwise
