"""The one document type: a planted-corpus document and a document of a user's own corpus
are the same thing to chunking, indexing and retrieval.

Low in the layers (tests/test_layers.py), so probes, stack, corpus and audit all share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
