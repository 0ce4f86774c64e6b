"""The one document type and the one corpus type: a planted-corpus document and a document
of a user's own corpus are the same thing to chunking, indexing and retrieval, and so are
the two corpora.

Low in the layers (tests/test_layers.py), so probes, stack, corpus and audit all share it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ragaudit.errors import RagauditError


@dataclass(frozen=True)
class Document:
    """One corpus document: its id, exact text and metadata."""

    doc_id: str
    """Unique in its corpus: a planted document's id, or a user file's path without suffix."""
    text: str
    """The exact text every chunk's span points into."""
    metadata: dict = field(default_factory=dict)
    """Free-form: title, date, supersedes, probe, instance_id, source_type."""
    source_type: str | None = field(default=None, kw_only=True)
    """A user corpus's source type (its top folder, or a JSONL `source_type`), which an
    audit's slot policy reserves slots for; None for a planted document."""
    path: str | None = field(default=None, kw_only=True)
    """Where a user corpus's document was read (`file` or `file.jsonl:line`)."""


@dataclass(frozen=True)
class SkippedFile:
    """A file of a user's corpus that was not read, and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class Corpus:
    """The one corpus type: documents, each found by its id.

    The planted corpus (`corpus.build.PlantedCorpus`) extends it with the instances planted
    in its documents and the seed and n that made them; a user's corpus
    (`auditing.corpus_io.read_user_corpus`) fills in where it was read and the files it skipped.
    """

    documents: Sequence[Document]
    """In corpus order: a tuple for the planted corpus, a list for a user's, as read."""
    root: str | None = field(default=None, kw_only=True)
    """Where a user's corpus was read (its folder or JSONL file); None for the planted one."""
    skipped: tuple[SkippedFile, ...] = field(default=(), kw_only=True)
    """The files of a user's corpus that were not read, and why."""

    def document(self, doc_id: str) -> Document:
        """The document with this id (RagauditError naming it if there is none)."""
        index = self._doc_index()
        if doc_id not in index:
            raise RagauditError(f"no document {doc_id!r} in the corpus")
        return index[doc_id]

    def _doc_index(self) -> dict[str, Document]:
        cached = self.__dict__.get("_index")
        if cached is None:
            cached = {doc.doc_id: doc for doc in self.documents}
            object.__setattr__(self, "_index", cached)
        return cached

    def ids(self) -> set[str]:
        """Every document's id."""
        return {doc.doc_id for doc in self.documents}
