"""One Chroma collection per (embedder, chunking), built through llama-index with the
embeddings we computed (Chroma's own embedding function never runs: it would download)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragaudit import paths
from ragaudit.errors import ModelCallFailed

EMBED_BATCH = 64


def open_client(path: str | Path | None = None) -> Any:
    """A Chroma PersistentClient under data/chroma (telemetry off)."""
    import chromadb
    from chromadb.config import Settings

    target = Path(path) if path else paths.chroma_dir()
    target.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(
        path=str(target), settings=Settings(anonymized_telemetry=False)
    )


def chunks_fingerprint(chunks: Sequence[Any], embedder: Any) -> str:
    """sha256 over chunk ids, chunk texts and the embedder's identity: a collection is
    reused only for exactly these chunks embedded by exactly this model."""
    digest = hashlib.sha256()
    digest.update(f"{embedder.spec}\0{embedder.name}\0{embedder.digest}\n".encode())
    for chunk in chunks:
        digest.update(f"{chunk.chunk_id}\0{chunk.text}\n".encode())
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
    index: Any
    """The llama-index VectorStoreIndex over the collection."""
    chunk_ids: list[str]
    added: int = 0
    """Chunks embedded and added by this call (0 when the collection was complete)."""
    failed_chunk_ids: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Embedding failures; a non-empty list means retrieval over this index is not trusted."""

    @property
    def complete(self) -> bool:
        """Every chunk of the chunking is in the collection."""
        return not self.failed_chunk_ids


def _nodes(chunks: Sequence[Any], vectors: dict[str, list[float]]) -> list[Any]:
    from llama_index.core.schema import TextNode

    return [
        TextNode(
            id_=chunk.chunk_id,
            text=chunk.text,
            embedding=vectors[chunk.text],
            metadata={
                "doc_id": chunk.doc_id,
                "start": chunk.start,
                "end": chunk.end,
                "index": chunk.index,
            },
            # keep metadata out of what gets embedded/returned as content
            excluded_embed_metadata_keys=["doc_id", "start", "end", "index"],
            excluded_llm_metadata_keys=["doc_id", "start", "end", "index"],
        )
        for chunk in chunks
    ]


def embed_texts(
    embedder: Any,
    texts: Sequence[str],
    *,
    role: str = "passage",
    on_batch: Callable[[int], None] | None = None,
) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Vectors (passages, or queries with role="query") for the distinct `texts`, in
    batches; a failed batch is recorded per text (text -> error), never raised. Asking
    once per distinct text keeps the cache's "replayed" count meaning "stored by an
    earlier run"."""
    distinct = list(dict.fromkeys(texts))
    vectors: dict[str, list[float]] = {}
    errors: dict[str, str] = {}
    for start in range(0, len(distinct), EMBED_BATCH):
        batch = distinct[start : start + EMBED_BATCH]
        try:
            vectors.update(zip(batch, embedder.embed(batch, role=role), strict=True))
        except ModelCallFailed as error:
            errors.update(dict.fromkeys(batch, str(error)))
        if on_batch:
            on_batch(len(batch))
    return vectors, errors


def build_index(
    client: Any,
    embedder: Any,
    chunking_name: str,
    chunks: Sequence[Any],
    embed_model: Any,
    *,
    vectors: dict[str, list[float]] | None = None,
    errors: dict[str, str] | None = None,
    on_batch: Callable[[int], None] | None = None,
) -> ChunkIndex:
    """Open the (embedder, chunking) collection, adding only the chunks it lacks.

    Missing chunks are embedded with `embed_texts` unless `vectors` (text -> vector, e.g.
    shared across chunkings) is given; a chunk whose text has no vector is recorded as
    failed (with its entry in `errors`) and the index is then incomplete. `embed_model` is
    the llama-index embedding over the same embedder (llama-index never needs it: every
    node and query arrives with its vector).
    """
    from llama_index.core import VectorStoreIndex
    from llama_index.vector_stores.chroma import ChromaVectorStore

    fingerprint = chunks_fingerprint(chunks, embedder)
    name = collection_name(embedder.spec, chunking_name, fingerprint)
    collection = client.get_or_create_collection(
        name,
        metadata={"embedder": embedder.spec, "chunking": chunking_name, "fingerprint": fingerprint},
        configuration={"hnsw": {"space": "cosine"}},
        embedding_function=None,
    )
    wanted = [chunk.chunk_id for chunk in chunks]
    present: set[str] = set()
    for start in range(0, len(wanted), 5000):
        present.update(collection.get(ids=wanted[start : start + 5000], include=[])["ids"])
    missing = [chunk for chunk in chunks if chunk.chunk_id not in present]

    store = ChromaVectorStore(chroma_collection=collection)
    index = VectorStoreIndex.from_vector_store(store, embed_model=embed_model)
    result = ChunkIndex(name, collection, index, wanted)
    if vectors is None:
        vectors, errors = embed_texts(embedder, [c.text for c in missing], on_batch=on_batch)
    errors = errors or {}
    for start in range(0, len(missing), EMBED_BATCH):
        batch = [c for c in missing[start : start + EMBED_BATCH] if c.text in vectors]
        for chunk in missing[start : start + EMBED_BATCH]:
            if chunk.text not in vectors:
                result.failed_chunk_ids.append(chunk.chunk_id)
                error = errors.get(chunk.text, "no vector for this chunk")
                if error not in result.errors:
                    result.errors.append(error)
        if batch:
            # nodes that carry .embedding are stored as is, never re-embedded
            index.insert_nodes(_nodes(batch, vectors))
            result.added += len(batch)
    return result
