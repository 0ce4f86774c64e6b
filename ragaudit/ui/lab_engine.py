"""The Lab's engine: the corpus, one live index per (embedder, chunking), rankings per probe.

Expensive things are Streamlit resources shared by every session (`st.cache_resource`):
the corpus, and an in-memory Chroma index per (embedder, chunking) whose
embeddings come through the model-call cache, so a chunking embedded once (by a run or
by the Lab) is rebuilt from stored vectors, and a setting seen once is instant. Rankings
are kept to the pool depth per (index, probe, hybrid), so changing k is a slice.

The vectors shipped with the reference run (lab_vectors) come first: the Lab's default
chunking, the reference's chunkings and every question under MiniLM, so opening the Lab
embeds nothing; any other text is embedded through the call cache as before.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ragaudit import paths
from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import load_embedder
from ragaudit.corpus.files import load_planted_corpus
from ragaudit.results.format import fmt_lab_refusal
from ragaudit.results.view import matrix_columns, stack_configs, stack_embedder
from ragaudit.stack.chunking import Chunking, chunk_corpus
from ragaudit.stack.diagnostics import ChunkingView, diagnose
from ragaudit.stack.index import (
    ChunkIndex,
    chunks_fingerprint,
    collection_name,
    embed_texts,
    open_client,
)
from ragaudit.stack.retrieval import POOL_DEPTH, Retriever
from ragaudit.ui.lab_vectors import read_shipped_once, shipped_for

_lock = threading.Lock()
_warm_lock = threading.Lock()
_warming: threading.Thread | None = None
_ADD_BATCH = 5000  # ids per collection.add: under Chroma's largest batch
_UNBUILT_HNSW = {"space": "cosine", "batch_size": 50_000, "sync_threshold": 50_000}


@dataclass
class LabIndex:
    """A live index over the whole corpus under one chunking."""

    embedder_spec: str
    chunking: str
    retriever: Any
    view: Any
    """diagnostics.ChunkingView over the same chunks."""
    chunk_by_id: dict[str, Any]
    build_seconds: float
    embedded: int
    """Chunks whose vectors were added to the index (from cache or computed)."""
    computed: int = 0
    """Embeddings the model computed for this index (the rest came from the call cache)."""
    errors: list[str] = field(default_factory=list)
    """Distinct embedding errors met while building (the first is shown)."""
    failed_chunks: int = 0
    """Chunks left out of the index because their embedding failed."""
    shipped: int = 0
    """Chunks whose vectors came from the vectors shipped with the reference run."""
    shipped_vectors: Any = None
    """lab_vectors.ShippedVectors for this embedder (its questions' vectors), or None."""

    def query_vector(self, question: str) -> list[float] | None:
        """The question's shipped vector, or None: the retriever then embeds it."""
        return None if self.shipped_vectors is None else self.shipped_vectors.vector(question)


def warm_up() -> None:
    """Start, once per server process, a background thread that imports Chroma and reads
    the shipped vectors: the two fixed costs of the Lab's first response (Chroma's import
    alone is 1-2 s here), paid while the person reads the page they opened first."""
    global _warming
    with _warm_lock:
        if _warming is not None:
            return
        _warming = threading.Thread(target=_warm, name="ragaudit-lab-warm-up", daemon=True)
    _warming.start()


def _warm() -> None:
    try:
        with _lock:  # as a build does: Chroma's clients are not made safely in parallel
            open_client(in_memory=True)
        read_shipped_once()
    except Exception:  # noqa: BLE001 - the Lab itself says what is wrong when opened
        pass


def corpus_documents() -> dict[str, str]:
    """doc_id -> text of the committed corpus (cached per process)."""
    return {doc.doc_id: doc.text for doc in load_lab_corpus().documents}


def load_lab_corpus(n: int | None = None) -> Any:
    """The planted-fault corpus (its first `n` instances per probe, as a run subsets it),
    loaded once per server process."""
    import streamlit as st

    @st.cache_resource(show_spinner="Loading the corpus…")
    def _load(corpus_dir: str) -> Any:
        return load_planted_corpus(corpus_dir)

    corpus = _load(str(paths.corpus_dir()))
    return corpus.subset(n) if n is not None and n < corpus.n else corpus


def build_lab_index(embedder_spec: str, chunking: Chunking, n: int | None = None) -> LabIndex:
    """Chunk the corpus, take the shipped vectors, embed the rest through the call cache,
    and index in memory."""
    started = time.perf_counter()
    chunks = chunk_corpus(load_lab_corpus(n).documents, chunking)
    cache = CallCache()
    embedder = load_embedder(embedder_spec, cache)
    shipped = shipped_for(embedder)
    texts = [chunk.text for chunk in chunks]
    vectors = shipped.vectors(texts) if shipped else {}
    from_shipped = sum(1 for text in texts if text in vectors)
    with _lock:  # one build at a time: two sessions asking for the same index share it
        computed, errors = embed_texts(embedder, [t for t in texts if t not in vectors])
        index = memory_index(embedder, chunking.name, chunks, {**vectors, **computed}, errors)
    return LabIndex(
        embedder_spec=embedder_spec,
        chunking=chunking.name,
        retriever=Retriever(embedder, chunks, index),
        view=ChunkingView(chunking.name, chunks),
        chunk_by_id={c.chunk_id: c for c in chunks},
        build_seconds=time.perf_counter() - started,
        embedded=index.added,
        computed=cache.stats()["computed"],
        errors=list(index.errors),
        failed_chunks=len(index.failed_chunk_ids),
        shipped=from_shipped,
        shipped_vectors=shipped,
    )


def memory_index(
    embedder: Any,
    chunking_name: str,
    chunks: list[Any],
    vectors: dict[str, list[float]],
    errors: dict[str, str],
) -> ChunkIndex:
    """An in-memory Chroma collection holding each chunk's vector (text -> vector in
    `vectors`; a chunk without one is recorded failed, with its reason from `errors`).

    In memory, so the Lab never writes into the run's vector store under data/. The Lab
    ranks exactly over the stored vectors (Retriever, stack/exact.py) and reads each
    chunk's text from the chunking itself, so the collection holds ids and vectors only,
    added through Chroma directly, and its HNSW graph is left unbuilt (one batch larger
    than any chunking: the Lab never asks Chroma to search). Of a first response on the
    reference, llama-index's import took 2 s and the documents and graph 0.4 s."""
    client = open_client(in_memory=True)
    fingerprint = chunks_fingerprint(chunks, embedder)
    name = collection_name(embedder.spec, chunking_name, fingerprint)
    collection = client.get_or_create_collection(
        name,
        metadata={"embedder": embedder.spec, "chunking": chunking_name, "fingerprint": fingerprint},
        configuration={"hnsw": _UNBUILT_HNSW},
        embedding_function=None,
    )
    index = ChunkIndex(name, collection, embedder, [chunk.chunk_id for chunk in chunks])
    held = [chunk for chunk in chunks if chunk.text in vectors]
    for chunk in chunks:
        if chunk.text not in vectors:
            index.failures[chunk.chunk_id] = errors.get(chunk.text, "no vector for this chunk")
    present = set(collection.get(ids=[c.chunk_id for c in held], include=[])["ids"])
    held = [chunk for chunk in held if chunk.chunk_id not in present]  # another session's
    for start in range(0, len(held), _ADD_BATCH):
        part = held[start : start + _ADD_BATCH]
        collection.add(
            ids=[chunk.chunk_id for chunk in part],
            embeddings=[vectors[chunk.text] for chunk in part],
        )
    index.added = len(held)
    return index


def probe_instances(probe: str, n: int | None = None) -> list[Any]:
    """The corpus instances of one probe, in corpus order."""
    return [i for i in load_lab_corpus(n).instances if i.probe == probe]


def probe_rankings(
    lab: LabIndex, probe: str, hybrid: bool, n: int | None = None
) -> dict[str, list[Any]]:
    """instance_id -> ranking to the pool depth (list of retrieval.Hit) for every instance."""
    rankings = {}
    for instance in probe_instances(probe, n):
        rankings[instance.instance_id] = lab.retriever.ranking(
            instance.question,
            hybrid,
            POOL_DEPTH,
            query_embedding=lab.query_vector(instance.question),
        )
    return rankings


def diagnose_at_k(lab: LabIndex, instance: Any, ranking: list[Any], k: int) -> dict:
    """The model-free diagnostics of one instance when the top `k` of `ranking` is retrieved."""
    return diagnose(instance, lab.view, ranking, k, lab.chunk_by_id)


def stack_refusal(results: dict | None, embedder: str) -> str | None:
    """One line refusing `embedder` when it is only a stack config's (the built-in matrix
    never ran on it): its records cut the corpus with the user's splitter, which the Lab
    does not run. None when the Lab can use it."""
    if not results or any(not c.stack for c in matrix_columns(results, embedder)):
        return None
    for config in stack_configs(results):
        if stack_embedder(config) == embedder:
            return fmt_lab_refusal(config["name"], embedder)
    return None
