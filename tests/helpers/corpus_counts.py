"""Figures of the shipped corpus that tests expect, read from its files (corpus/manifest.json,
questions.jsonl, documents.jsonl and documents/*.txt), never typed: so the same test holds
with 11 probes and with a probe added by docs/extending.md's recipe (corpus regenerated).

The n-share follows the spec of `PlantedCorpus.subset` (its docstring): the first n
instances of each probe, their documents, and the first round(filler * n / N) filler
documents. Chunk texts are cut by `ragaudit.stack.chunking` (tested on its own); what the
tests using this check is how a run asks and counts them, not how they are cut.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from ragaudit.documents import Document
from ragaudit.stack.chunking import Chunking, chunk_document

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def manifest(corpus: Path = CORPUS) -> dict:
    """The corpus's manifest.json."""
    return json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))


def corpus_probes(corpus: Path = CORPUS) -> list[str]:
    """The probes the corpus was generated with, in probe order (its manifest)."""
    return list(manifest(corpus)["probes"])


def question_records(n: int = 1, corpus: Path = CORPUS) -> list[dict]:
    """The first `n` records of each probe in questions.jsonl, in file order."""
    kept, taken = [], {}
    for line in (corpus / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        taken[record["probe"]] = taken.get(record["probe"], 0) + 1
        if taken[record["probe"]] <= n:
            kept.append(record)
    return kept


def distinct_questions(n: int = 1, corpus: Path = CORPUS) -> list[str]:
    """The distinct question texts of the n-share, first seen first."""
    return list(dict.fromkeys(r["question"] for r in question_records(n, corpus)))


def share_documents(n: int = 1, corpus: Path = CORPUS) -> list[Document]:
    """The documents of the n-share: those of its instances, then its share of filler."""
    facts = manifest(corpus)
    kept = {r["instance_id"] for r in question_records(n, corpus)}
    fillers = round(facts["filler_documents"] * n / facts["n"])
    documents = []
    for line in (corpus / "documents.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["metadata"].get("source_type") == "filler":
            if fillers == 0:
                continue
            fillers -= 1
        elif entry["metadata"].get("instance_id") not in kept:
            continue
        with open(corpus / entry["file"], encoding="utf-8", newline="") as handle:
            documents.append(Document(entry["doc_id"], handle.read(), entry["metadata"]))
    return documents


def distinct_passages(
    chunkings: Iterable[Chunking], n: int = 1, corpus: Path = CORPUS
) -> list[str]:
    """The distinct chunk texts of the n-share cut at each of `chunkings` (a run embeds
    each distinct text once, whichever chunkings share it)."""
    documents = share_documents(n, corpus)
    texts = (c.text for ch in chunkings for d in documents for c in chunk_document(d, ch))
    return list(dict.fromkeys(texts))
