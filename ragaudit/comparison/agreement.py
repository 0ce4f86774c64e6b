"""Whether two results files asked the same questions of the same indexed documents: the
check `compare` and `gate` share before pairing instances by id.

An instance id names a question; a flip between two runs means something only when the
question is the same and retrieval searched the same documents. A quick run (n=5) indexes
a fifth of the documents the n=25 reference does, so its flips against the reference
measure the size of the index, not a change in the stack. Model weights, prompts,
chunkers and pipelines are what a team changes: they are reported (`provenance`), not
checked here.

The indexed document set is read from the file: the document ids of `chunk_offsets` (every
document each chunking indexed). A pipeline that cannot show it records
`indexed_documents: "asserted by the user"` (on the file, or on its config: a `pipeline:`
column under `ingest: none`, which makes the whole file's set asserted); such a set is not
measured, so it agrees only with the same assertion, never with a recorded set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ragaudit.results.format import fmt_digest

ASSERTED = "asserted by the user"
"""The value of `indexed_documents` for a set the run could not record, only assert."""


@dataclass(frozen=True)
class DocumentSet:
    """The documents one run indexed, as its file records (or asserts) them."""

    source: str
    """`recorded` (chunk_offsets' ids), `asserted` (indexed_documents says so), `count`
    (only corpus.documents, a number) or `unrecorded`."""
    ids: frozenset[str] = frozenset()
    count: int | None = None
    assertion: str | None = None
    """What the user asserted, as canonical JSON: the same assertion agrees with itself."""

    def describe(self) -> str:
        """`638 documents`, `asserted by the user (…)`, `not recorded`."""
        if self.source == "recorded":
            return f"{len(self.ids):,} documents"
        if self.source == "asserted":
            return f"{ASSERTED} ({self.assertion})"
        if self.source == "count":
            return f"{self.count:,} documents (a count only, no ids)"
        return "not recorded"


@dataclass(frozen=True)
class Agreement:
    """The question and document checks of two files, A before B."""

    paired: bool
    """True when instance ids may be paired: nothing found to differ."""
    checked: bool
    """True when both checks were made on recorded values (False: a side records neither
    the ids nor a count, so agreement is assumed for `compare`, refused by `gate`)."""
    notes: tuple[str, ...]
    differs: tuple[str, ...]
    """One sentence per difference that forbids pairing (a subset of notes)."""


def _assertion(results: dict, config: dict | None) -> str | None:
    # The file as a whole (no config named) is asserted when any of its configs is: a
    # pipeline column under `ingest: none` records its assertion on its own config.
    configs = [] if config is not None else (results.get("configs") or [])
    for holder in (config or {}, results, *(c for c in configs if isinstance(c, dict))):
        value = holder.get("indexed_documents")
        if value is not None and (value == ASSERTED or isinstance(value, dict | list)):
            return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return None


def indexed_documents(results: dict, config: dict | None = None) -> DocumentSet:
    """The document set a run (or one config of it) searched."""
    asserted = _assertion(results, config)
    if asserted is not None:
        return DocumentSet("asserted", assertion=asserted)
    offsets = results.get("chunk_offsets")
    if isinstance(offsets, dict) and offsets:
        ids = {d for per_doc in offsets.values() if isinstance(per_doc, dict) for d in per_doc}
        if ids:
            return DocumentSet("recorded", frozenset(str(d) for d in ids))
    count = (results.get("corpus") or {}).get("documents")
    if isinstance(count, int) and not isinstance(count, bool):
        return DocumentSet("count", count=count)
    return DocumentSet("unrecorded")


def document_difference(a: DocumentSet, b: DocumentSet) -> str | None:
    """The sentence saying how two document sets differ; None when they agree (or when
    neither side records one: that is unchecked, not a difference)."""
    if "asserted" in (a.source, b.source):
        if a.source == b.source == "asserted" and a.assertion == b.assertion:
            return None
        return (
            f"the indexed documents cannot be shown to agree (A: {a.describe()}; "
            f"B: {b.describe()}): a set asserted by the user agrees only with itself"
        )
    if a.source == "recorded" and b.source == "recorded":
        if a.ids == b.ids:
            return None
        only_a, only_b = len(a.ids - b.ids), len(b.ids - a.ids)
        return (
            f"the indexed documents differ (A {a.describe()}, B {b.describe()}; "
            f"{only_a:,} only in A, {only_b:,} only in B): retrieval searched other indexes"
        )
    counts = [s.count if s.source == "count" else len(s.ids) for s in (a, b)]
    if "unrecorded" not in (a.source, b.source) and counts[0] != counts[1]:
        return (
            f"the indexed documents differ (A {counts[0]:,} documents, B {counts[1]:,}): "
            "retrieval searched other indexes"
        )
    return None


def _questions(results: dict) -> dict[str, str]:
    out = {}
    for record in results.get("instances") or []:
        if isinstance(record.get("question"), str):
            out.setdefault(str(record.get("instance_id")), record["question"])
    return out


def question_difference(a: dict, b: dict) -> str | None:
    """The sentence naming the questions that differ: the manifests' sha256 (which pins
    every question of the corpus), then the question text of every instance id both hold."""
    sha_a = (a.get("corpus") or {}).get("sha256")
    sha_b = (b.get("corpus") or {}).get("sha256")
    if sha_a and sha_b and sha_a != sha_b:
        return (
            f"the corpora differ (manifest sha256 A {fmt_digest(sha_a)}, B {fmt_digest(sha_b)}):"
            " an instance id does not name the same question in both"
        )
    questions_a, questions_b = _questions(a), _questions(b)
    both = questions_a.keys() & questions_b.keys()
    other = sorted(i for i in both if questions_a[i] != questions_b[i])
    if other:
        return (
            f"{len(other)} instance id(s) ask another question in B than in A "
            f"(first: {other[0]}): the ids do not name the same questions"
        )
    return None


def agreement(a: dict, b: dict) -> Agreement:
    """The shared pairing check of two results files: same questions, same indexed
    document set. Every difference is one sentence in `differs`."""
    docs_a, docs_b = indexed_documents(a), indexed_documents(b)
    differs = [d for d in (question_difference(a, b), document_difference(docs_a, docs_b)) if d]
    sha_recorded = all((r.get("corpus") or {}).get("sha256") for r in (a, b))
    docs_recorded = "unrecorded" not in (docs_a.source, docs_b.source)
    notes = [f"{d[0].upper()}{d[1:]}." for d in differs]
    if not differs and docs_recorded:
        notes.append(
            f"Same questions, same indexed documents (A {docs_a.describe()}, "
            f"B {docs_b.describe()}): checked before pairing by id."
        )
    elif not differs:
        notes.append(
            f"The indexed document set is not recorded in both files (A {docs_a.describe()}, "
            f"B {docs_b.describe()}): unchecked."
        )
    return Agreement(not differs, sha_recorded and docs_recorded, tuple(notes), tuple(differs))
