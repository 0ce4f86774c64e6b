"""One Chroma collection per (embedder, chunking), filled with the embeddings we computed
(Chroma's own embedding function never runs: it would download), and open to llama-index
as a VectorStoreIndex (`ChunkIndex.index`)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragaudit import paths
from ragaudit.backends.llamaindex import as_llamaindex_embedding
from ragaudit.errors import ModelCallFailed

EMBED_BATCH = 64


def open_client(path: str | Path | None = None, *, in_memory: bool = False) -> Any:
    """The one way ragaudit opens Chroma (telemetry off): a PersistentClient under `path`
    (default data/chroma), or with `in_memory` an EphemeralClient that writes nothing."""
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    if in_memory:
        return chromadb.EphemeralClient(settings=settings)
    target = Path(path) if path else paths.chroma_dir()
    target.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(target), settings=settings)


def chunk_text(chunk: Any) -> str:
    """What a matrix chunk is embedded and searched by: its text. (The audit's split parents
    are searched by a different text than they show; it passes its own reader.)"""
    return chunk.text


def chunks_fingerprint(
    chunks: Sequence[Any], embedder: Any, searched_text: Callable[[Any], str] = chunk_text
) -> str:
    """sha256 over chunk ids, the texts embedded and the embedder's identity: a collection
    is reused only for exactly these chunks embedded by exactly this model."""
    digest = hashlib.sha256()
    digest.update(f"{embedder.spec}\0{embedder.name}\0{embedder.digest}\n".encode())
    for chunk in chunks:
        digest.update(f"{chunk.chunk_id}\0{searched_text(chunk)}\n".encode())
    return digest.hexdigest()


def collection_name(embedder_spec: str, chunking_name: str, fingerprint: str) -> str:
    """``minilm__recursive-1000-200__3fa2c1d0e9``: Chroma wants 3–512 characters of
    [a-zA-Z0-9._-], starting and ending alphanumeric."""
    model = re.sub(r"[^a-zA-Z0-9._-]+", "-", embedder_spec).strip("-._") or "model"
    chunking = re.sub(r"[^a-zA-Z0-9._-]+", "-", chunking_name).strip("-._") or "chunks"
    name = f"{model[:200]}__{chunking[:200]}__{fingerprint[:10]}"
    return name[:512]


@dataclass
class ChunkIndex:
    """An opened (embedder, chunking) index and what building it cost."""

    name: str
    collection: Any
    embedder: Any
    chunk_ids: list[str]
    searched_text: Callable[[Any], str] = chunk_text
    """How a chunk is read for embedding and BM25 (the same text for both)."""
    added: int = 0
    """Chunks embedded and added by this call (0 when the collection was complete)."""
    failures: dict[str, str] = field(default_factory=dict)
    """chunk_id -> why it could not be embedded; those chunks are not in the collection."""
    embed_model: Any = None
    """The llama-index embedding over `embedder` (None: built with the index, if ever)."""
    _index: Any = field(default=None, repr=False)

    @property
    def index(self) -> Any:
        """The llama-index VectorStoreIndex over the collection, opened on first use: a
        rerun that adds nothing and ranks through Chroma directly never imports llama-index
        (seconds of start-up)."""
        if self._index is None:
            from llama_index.core import VectorStoreIndex
            from llama_index.vector_stores.chroma import ChromaVectorStore

            if self.embed_model is None:
                self.embed_model = as_llamaindex_embedding(self.embedder)
            store = ChromaVectorStore(chroma_collection=self.collection)
            self._index = VectorStoreIndex.from_vector_store(store, embed_model=self.embed_model)
        return self._index

    @property
    def failed_chunk_ids(self) -> list[str]:
        """The chunks left out of the collection, in chunking order."""
        return list(self.failures)

    @property
    def errors(self) -> list[str]:
        """The distinct embedding errors; non-empty means retrieval here is not trusted."""
        return list(dict.fromkeys(self.failures.values()))

    @property
    def complete(self) -> bool:
        """Every chunk of the chunking is in the collection."""
        return not self.failures


def chunk_nodes(
    chunks: Sequence[Any],
    vectors: dict[str, list[float]] | None = None,
    searched_text: Callable[[Any], str] = chunk_text,
) -> list[Any]:
    """llama-index TextNodes for `chunks`: id_ = chunk_id, the searched text, metadata
    doc_id/start/end kept out of what is embedded, and the vector from `vectors` when given
    (text -> vector; a node without one is embedded by whoever indexes it)."""
    from llama_index.core.schema import TextNode

    keys = ["doc_id", "start", "end"]
    return [
        TextNode(
            id_=chunk.chunk_id,
            text=searched_text(chunk),
            embedding=vectors[searched_text(chunk)] if vectors is not None else None,
            metadata={"doc_id": chunk.doc_id, "start": chunk.start, "end": chunk.end},
            # keep metadata out of what gets embedded/returned as content
            excluded_embed_metadata_keys=keys,
            excluded_llm_metadata_keys=keys,
        )
        for chunk in chunks
    ]


def embed_texts(
    embedder: Any,
    texts: Sequence[str],
    *,
    role: str = "passage",
    on_batch: Callable[[int], None] | None = None,
    tokens: Mapping[str, int] | None = None,
) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Vectors (passages, or queries with role="query") for the distinct `texts`, in
    batches, and text -> error for those that failed: never raised, never an empty vector.

    A failing batch is retried one text at a time, so one bad text costs one item. Once a
    whole batch has failed text by text the backend is taken as down and later failing
    batches are recorded whole (a down server would otherwise cost a retried call per
    text). Asking once per distinct text keeps the cache's "replayed" count meaning
    "stored by an earlier run". Texts go longest first across the whole call, in tokens
    where the embedder can count them (`tokens`, else counted here), so each model batch
    pads to texts of its own length: a model computes every padded position, and sorted by
    characters the matrix's batches held 277,037 positions for 220,991 tokens (224,732
    sorted by tokens). A vector does not depend on its batch: MiniLM's and E5's are bitwise the
    same alone or batched (tests/test_embedding_batches.py).
    """
    distinct = list(dict.fromkeys(texts))
    counts = tokens if tokens is not None else _token_counts(embedder, distinct)
    distinct.sort(key=lambda t: (counts[t], len(t)) if counts else len(t), reverse=True)
    vectors: dict[str, list[float]] = {}
    errors: dict[str, str] = {}
    backend_down = False
    for start in range(0, len(distinct), EMBED_BATCH):
        batch = distinct[start : start + EMBED_BATCH]
        try:
            vectors.update(zip(batch, embedder.embed(batch, role=role), strict=True))
        except ModelCallFailed as error:
            if backend_down or len(batch) == 1:  # nothing to isolate, or no one to ask
                errors.update(dict.fromkeys(batch, str(error)))
            else:
                got = _embed_one_by_one(embedder, batch, role, errors)
                vectors.update(got)
                backend_down = not got
        if on_batch:
            on_batch(len(batch))
    return vectors, errors


def _token_counts(embedder: Any, texts: list[str]) -> dict[str, int] | None:
    """text -> its length in the embedder's tokens (a tokenizer pass, no model call); None
    when the embedder cannot count (a remote model, a user's llama-index embedding)."""
    counter = getattr(embedder, "count_tokens", None)
    counts = counter(texts) if counter and texts else None
    return dict(zip(texts, counts, strict=True)) if counts is not None else None


def _embed_one_by_one(
    embedder: Any, batch: list[str], role: str, errors: dict[str, str]
) -> dict[str, list[float]]:
    vectors: dict[str, list[float]] = {}
    for text in batch:
        try:
            vectors[text] = embedder.embed([text], role=role)[0]
        except ModelCallFailed as error:
            errors[text] = str(error)
    return vectors


def _present_ids(collection: Any, wanted: list[str]) -> set[str]:
    present: set[str] = set()
    for start in range(0, len(wanted), 5000):  # stay under SQLite's variable limit
        present.update(collection.get(ids=wanted[start : start + 5000], include=[])["ids"])
    return present


def build_index(
    client: Any,
    embedder: Any,
    chunking_name: str,
    chunks: Sequence[Any],
    embed_model: Any = None,
    *,
    vectors: dict[str, list[float]] | None = None,
    errors: dict[str, str] | None = None,
    on_batch: Callable[[int], None] | None = None,
    searched_text: Callable[[Any], str] = chunk_text,
) -> ChunkIndex:
    """Open the (embedder, chunking) collection, adding only the chunks it lacks.

    Missing chunks are embedded with `embed_texts` unless `vectors` (text -> vector, e.g.
    shared across chunkings) is given; a chunk whose text has no vector is recorded as
    failed (with its entry in `errors`) and the index is then incomplete. `searched_text`
    reads the text a chunk is embedded (and BM25-searched) by. `embed_model` is the
    llama-index embedding over the same embedder, or None to build it only if llama-index
    is ever opened (it never embeds: every node and query arrives with its vector).
    """
    fingerprint = chunks_fingerprint(chunks, embedder, searched_text)
    name = collection_name(embedder.spec, chunking_name, fingerprint)
    collection = client.get_or_create_collection(
        name,
        metadata={"embedder": embedder.spec, "chunking": chunking_name, "fingerprint": fingerprint},
        configuration={"hnsw": {"space": "cosine"}},
        embedding_function=None,
    )
    wanted = [chunk.chunk_id for chunk in chunks]
    present = _present_ids(collection, wanted)
    missing = [chunk for chunk in chunks if chunk.chunk_id not in present]

    result = ChunkIndex(name, collection, embedder, wanted, searched_text, embed_model=embed_model)
    if vectors is None:
        texts = [searched_text(chunk) for chunk in missing]
        vectors, errors = embed_texts(embedder, texts, on_batch=on_batch)
    errors = errors or {}
    # as few adds as Chroma takes: each add is a transaction of its own
    step = client.get_max_batch_size()
    for start in range(0, len(missing), step):
        part = missing[start : start + step]
        batch = [chunk for chunk in part if searched_text(chunk) in vectors]
        for chunk in part:
            if searched_text(chunk) not in vectors:
                error = errors.get(searched_text(chunk), "no vector for this chunk")
                result.failures[chunk.chunk_id] = error
        if batch:
            _add_chunks(collection, batch, vectors, searched_text)
            result.added += len(batch)
    return result


def _add_chunks(
    collection: Any,
    chunks: Sequence[Any],
    vectors: dict[str, list[float]],
    searched_text: Callable[[Any], str],
) -> None:
    """Store chunks with their vectors straight into Chroma: every vector is already
    computed, and llama-index's insert_nodes cost a cold run seconds of import and index
    set-up to do the same `add`. The records (id, vector, text, doc_id/start/end) are what
    llama-index's ChromaVectorStore reads back as TextNodes (`ChunkIndex.index`)."""
    collection.add(
        ids=[chunk.chunk_id for chunk in chunks],
        embeddings=[vectors[searched_text(chunk)] for chunk in chunks],
        documents=[searched_text(chunk) for chunk in chunks],
        metadatas=[{"doc_id": c.doc_id, "start": c.start, "end": c.end} for c in chunks],
    )
