"""The Lab's engine: the corpus, one live index per (embedder, chunking), rankings per probe.

Expensive things are Streamlit resources shared by every session (`st.cache_resource`):
the corpus, and an in-memory Chroma index per (embedder, chunking) whose
embeddings come through the model-call cache, so a chunking embedded once (by a run or
by the Lab) is rebuilt from stored vectors, and a setting seen once is instant. Rankings
are kept to the pool depth per (index, probe, hybrid), so changing k is a slice.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ragaudit import paths
from ragaudit.backends.cache import CallCache
from ragaudit.backends.llamaindex import as_llamaindex_embedding
from ragaudit.backends.specs import load_embedder
from ragaudit.corpus.files import load_corpus
from ragaudit.results.format import fmt_lab_refusal
from ragaudit.results.view import matrix_columns, stack_configs, stack_embedder
from ragaudit.stack.chunking import Chunking, chunk_corpus
from ragaudit.stack.diagnostics import ChunkingView, diagnose
from ragaudit.stack.index import build_index, open_client
from ragaudit.stack.retrieval import POOL_DEPTH, Retriever

_lock = threading.Lock()


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


def corpus_documents() -> dict[str, str]:
    """doc_id -> text of the committed corpus (cached per process)."""
    return {doc.doc_id: doc.text for doc in load_lab_corpus().documents}


def load_lab_corpus(n: int | None = None) -> Any:
    """The planted-fault corpus (its first `n` instances per probe, as a run subsets it),
    loaded once per server process."""
    import streamlit as st

    @st.cache_resource(show_spinner="Loading the corpus…")
    def _load(corpus_dir: str) -> Any:
        return load_corpus(corpus_dir)

    corpus = _load(str(paths.corpus_dir()))
    return corpus.subset(n) if n is not None and n < corpus.n else corpus


def build_lab_index(embedder_spec: str, chunking: Chunking, n: int | None = None) -> LabIndex:
    """Chunk the corpus, embed through the call cache, and index in memory."""
    started = time.perf_counter()
    chunks = chunk_corpus(load_lab_corpus(n).documents, chunking)
    cache = CallCache()
    embedder = load_embedder(embedder_spec, cache)
    with _lock:  # one build at a time: two sessions asking for the same index share it
        # In memory: the Lab never writes into the run's vector store under data/.
        client = open_client(in_memory=True)
        index = build_index(
            client, embedder, chunking.name, chunks, as_llamaindex_embedding(embedder)
        )
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
    )


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
            instance.question, hybrid, POOL_DEPTH
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
