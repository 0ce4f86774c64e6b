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


def build_index(
    client: Any,
    embedder: Any,
    chunking_name: str,
    chunks: Sequence[Any],
    embed_model: Any,
    *,
    on_batch: Callable[[int], None] | None = None,
) -> ChunkIndex:
    """Open the (embedder, chunking) collection, adding only the chunks it lacks.

    Embeddings come from `embedder.embed(role="passage")` in batches of distinct texts (the
    model cache makes a rerun replay them); a failed batch is recorded, not raised, and the
    returned index is then incomplete. `embed_model` is the llama-index embedding over the
    same embedder (used only if llama-index ever needs to embed a query itself).
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
    for start in range(0, len(missing), EMBED_BATCH):
        batch = missing[start : start + EMBED_BATCH]
        texts = list(dict.fromkeys(chunk.text for chunk in batch))
        try:
            vectors = dict(zip(texts, embedder.embed(texts, role="passage"), strict=True))
        except ModelCallFailed as error:
            result.failed_chunk_ids.extend(chunk.chunk_id for chunk in batch)
            result.errors.append(str(error))
        else:
            # nodes that carry .embedding are stored as is, never re-embedded
            index.insert_nodes(_nodes(batch, vectors))
            result.added += len(batch)
        if on_batch:
            on_batch(len(batch))
    return result
