"""The stack stage's retrieval: the planted-fault corpus through one user stack, as its own
column.

The user's stack, built over the corpus (targets.column: their splitter's located chunks,
their retriever); then either our one retrieval core ranks it (their embedder, dense or our
BM25 fusion, in a Chroma collection built like any chunking's) or their retriever factory
does. Each instance's question is ranked once to POOL_DEPTH (or what their retriever
returns), and each record is built and diagnosed by the same functions as the matrix's
(runner.retrieve.base_record, stack.diagnostics.diagnose). `run()` returns the stack's
own keys of MatrixRetrieval.run's fragment (instances, chunks, chunk_counts, chunk_offsets,
indexes, failed_calls); runner.stack_stage adds the run-wide ones (comparisons,
extra_measurements, anchor_selectivity) and makes it a stage of the run, whose fragment
runner.stage.fold_fragments folds with the matrix's.
"""

from __future__ import annotations

from typing import Any

from ragaudit.backends.llamaindex import as_llamaindex_embedding
from ragaudit.errors import ModelCallFailed
from ragaudit.runner.retrieve import base_record
from ragaudit.stack.chunking import chunk_offsets
from ragaudit.stack.diagnostics import ChunkingView, diagnose
from ragaudit.stack.index import build_index, embed_texts, open_client
from ragaudit.stack.oracle import oracle_chunk_ids_of
from ragaudit.stack.retrieval import POOL_DEPTH, Retriever
from ragaudit.stack.windows import survey_window
from ragaudit.targets.column import TargetColumn, chunk_json
from ragaudit.targets.stackfile import StackSpec


class StackRetrieval:
    """Retrieval and model-free diagnostics for one user stack over the corpus."""

    def __init__(
        self, corpus: Any, stack: StackSpec, embedder: Any | None, client: Any, progress: Any,
        column: TargetColumn | None = None,
    ) -> None:  # fmt: skip
        """`client`: the Chroma client our core indexes in (None: opened when first
        needed, so building the stage writes nothing). `column`: the stack already built
        over `corpus` (targets.column), else built now: their splitter cuts the corpus and
        their retriever is built before any model loads (a factory that raises is one line
        at once); our core's index needs the embedder, so it waits for run()."""
        self.corpus, self.stack, self.embedder = corpus, stack, embedder
        self.client, self.progress = client, progress
        self.column = column or TargetColumn(stack, corpus.documents)
        self.chunks, self.approximate = self.column.chunks, self.column.approximate
        self.view = ChunkingView(stack.chunking_name, self.chunks)
        self.chunk_by_id = {c.chunk_id: c for c in self.chunks}
        self.failed_calls: list[dict] = []
        self.index_stats: dict = {}
        self.user_retriever = self.column.retriever

    def instances(self) -> list[Any]:
        """The corpus instances whose probe this stack runs."""
        return [i for i in self.corpus.instances if self.stack.runs(i.probe)]

    def run(self, cache: Any = None) -> dict:
        """The fragment keys of MatrixRetrieval.run for this stack: instances, chunks,
        chunk_counts, chunk_offsets, indexes, failed_calls. Their retriever's calls are
        counted in `cache`'s counts (computed or failed, with the reason) when given."""
        instances = self.instances()
        name = self.stack.chunking_name
        if self.user_retriever is not None:
            records = self._rank_with_theirs(instances, cache)
        else:
            records = self._rank_with_core(instances)
        chunkings = {name: self.chunks}
        used = {hit["chunk_id"] for record in records for hit in record["retrieved"]}
        used |= oracle_chunk_ids_of(records, chunkings)
        self.index_stats["approximate_spans"] = self.approximate
        return {
            "instances": records,
            "chunks": {cid: chunk_json(self.chunk_by_id[cid]) for cid in sorted(used)},
            "chunk_counts": {name: len(self.chunks)},
            "chunk_offsets": chunk_offsets(chunkings),
            "indexes": [self.index_stats],
            "failed_calls": self.failed_calls,
        }

    def _record(self, instance: Any, ranking: list[Any]) -> dict:
        record = base_record(instance, self.stack, self.stack.embedder_label)
        record["retrieved"] = [hit.to_json() for hit in ranking[: self.stack.k]]
        record.update(diagnose(instance, self.view, ranking, self.stack.k, self.chunk_by_id))
        return record

    def _failed(self, instance: Any, error: str) -> dict:
        record = base_record(instance, self.stack, self.stack.embedder_label)
        record["retrieval_error"] = error
        record["diagnostics_reason"] = "retrieval failed, so nothing was measured"
        return record

    def _rank_with_theirs(self, instances: list[Any], cache: Any = None) -> list[dict]:
        """Their retriever ranks each distinct question once; a chunk it returns that the
        splitter did not cut (their own chunking of the documents) joins the chunks. A
        question it fails on (raises, times out, returns junk) is one failed call and its
        records lose their retrieval; the next question is asked."""
        label = self.stack.embedder_label
        self.index_stats.update(
            embedder=label, chunking=self.stack.chunking_name, collection=None,
            chunks=len(self.chunks), added=0, failed=0,
            over_window=None, over_window_reason="their retriever embeds the chunks itself",
        )  # fmt: skip
        caller = f"retriever:{self.stack.retriever['factory']}"  # counted as its own calls
        rankings: dict[str, list[Any] | str] = {}
        records = []
        self.progress.stage(f"retrieve stack {self.stack.name}", len(instances))
        for instance in instances:
            question = instance.question
            if question not in rankings:
                try:
                    rankings[question] = self.user_retriever.ranking(question, POOL_DEPTH)
                    if cache is not None:
                        cache.count(caller, "computed")
                except ModelCallFailed as error:
                    rankings[question] = f"retriever call failed: {error}"
                    if cache is not None:
                        cache.record_failure(caller, "retrieve", str(error), keys=[question])
                for chunk in self.user_retriever.extra_chunks:
                    self.chunk_by_id.setdefault(chunk.chunk_id, chunk)
            ranking = rankings[question]
            if isinstance(ranking, str):
                records.append(self._failed(instance, ranking))
                self._fail("retrieve", label, ranking, [records[-1]["key"]])
            else:
                records.append(self._record(instance, ranking))
            self.progress.advance(1)
        return records

    def _rank_with_core(self, instances: list[Any]) -> list[dict]:
        """Our core over their chunks: embed (call cache), one Chroma collection, dense or
        BM25-fused ranking to POOL_DEPTH, as any built-in chunking."""
        embedder = self.embedder
        self.client = self.client if self.client is not None else open_client()
        retriever, index_error = self._core_index()
        questions = list(dict.fromkeys(i.question for i in instances))
        self.progress.stage(f"queries {embedder.spec} (stack {self.stack.name})", len(questions))
        vectors, errors = embed_texts(
            embedder, questions, role="query", on_batch=self.progress.advance
        )
        records, failed_keys = [], {}
        self.progress.stage(f"retrieve stack {self.stack.name}", len(instances))
        for instance in instances:
            question = instance.question
            error = index_error or (
                f"embedding call failed: {errors[question]}" if question in errors else None
            )
            if error:
                records.append(self._failed(instance, error))
                failed_keys.setdefault(error, []).append(records[-1]["key"])
            else:
                hybrid = self.stack.hybrid
                ranking = retriever.ranking(question, hybrid, POOL_DEPTH, vectors[question])
                records.append(self._record(instance, ranking))
            self.progress.advance(1)
        for error, keys in failed_keys.items():
            self._fail("embed", embedder.spec, error, keys)
        return records

    def _core_index(self) -> tuple[Retriever, str | None]:
        """Their chunks embedded (each distinct text once, through the call cache) into the
        (embedder, stack-<name>) collection; the Retriever over it, and the error every
        record carries when some chunk could not be embedded."""
        embedder, name = self.embedder, self.stack.chunking_name
        texts = list(dict.fromkeys(c.text for c in self.chunks))
        self.progress.stage(f"embed passages {embedder.spec} (stack {self.stack.name})", len(texts))
        window = survey_window(embedder, texts)  # tokenizer pass only: no model call
        vectors, errors = embed_texts(
            embedder, texts, on_batch=self.progress.advance, tokens=window.tokens
        )
        index = build_index(
            self.client, embedder, name, self.chunks, as_llamaindex_embedding(embedder),
            vectors=vectors, errors=errors,
        )  # fmt: skip
        self.index_stats.update(
            embedder=embedder.spec, chunking=name, collection=index.name,
            chunks=len(self.chunks), added=index.added, failed=len(index.failed_chunk_ids),
            **window.fields(self.chunks),
        )  # fmt: skip
        index_error = None
        if not index.complete:
            index_error = (
                f"embedding call failed: {len(index.failed_chunk_ids)} of {len(self.chunks)} "
                f"chunks of {name} not embedded ({index.errors[0]})"
            )
        return Retriever(embedder, self.chunks, index), index_error

    def _fail(self, kind: str, model: str, error: str, keys: list[str]) -> None:
        self.failed_calls.append(
            {"model": model, "kind": kind, "error": error, "instance_keys": keys}
        )
