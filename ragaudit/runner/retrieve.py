"""The retrieval stage: every embedder × chunking × config × instance, one record each.

Work is shared wherever the result cannot differ: chunks are cut once per chunking, each
distinct text is embedded once per model (the call cache, batched misses), one collection
serves every config with that chunking, and each question is ranked once per (chunking,
embedder, dense|hybrid) to the pool depth, then sliced to each config's k.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ragaudit.analysis.comparisons import compare
from ragaudit.results.records import InstanceRecord, instance_record
from ragaudit.stack.chunking import chunk_corpus, chunk_offsets
from ragaudit.stack.configs import COMPARISONS, TABLE_SPLIT_WIDE, B, StackConfig
from ragaudit.stack.diagnostics import (
    ChunkingView,
    anchor_summary,
    diagnose,
    diagnostic_fields,
    span_preserved,
    table_together,
)
from ragaudit.stack.index import ChunkIndex, build_index, embed_texts
from ragaudit.stack.oracle import oracle_chunk_ids_of
from ragaudit.stack.retrieval import POOL_DEPTH, Retriever
from ragaudit.stack.windows import survey_window


@dataclass(frozen=True)
class EmbedderPlan:
    """One embedder and the probes it runs (None: every probe)."""

    embedder: Any
    role: str
    """``primary`` or ``secondary``."""
    probes: tuple[str, ...] | None = None


def base_record(instance: Any, config: StackConfig, embedder_spec: str) -> InstanceRecord:
    """The instance-derived part of a record (everything before retrieval), through the
    one record builder."""
    return instance_record(
        probe=instance.probe, layer=instance.layer, instance_id=instance.instance_id,
        config=config.name, embedder=embedder_spec, chunking=config.chunking_name,
        k=config.k, question=instance.question, gold_answer=instance.gold_answer,
        spans=tuple([asdict(s) for s in spans] for spans in (
            instance.gold_spans, instance.trap_spans, instance.extra_spans
        )),
        answer_doc_ids=instance.answer_doc_ids, anchor=instance.anchor,
        grading=instance.grading, meta=instance.meta, diagnostics=diagnostic_fields(),
    )  # fmt: skip


def _failed_record(record: dict, error: str) -> dict:
    record["retrieval_error"] = error
    record["diagnostics_reason"] = "retrieval failed, so nothing was measured"
    return record


class MatrixRetrieval:
    """Runs the retrieval stage; `run()` returns the results-file fragments it owns."""

    def __init__(
        self,
        corpus: Any,
        configs: Sequence[StackConfig],
        plans: Sequence[EmbedderPlan],
        client: Any,
        progress: Any,
    ) -> None:
        self.corpus = corpus
        self.configs = list(configs)
        self.plans = list(plans)
        self.client = client
        self.progress = progress
        self.chunkings: dict[str, list[Any]] = {}
        for config in self.configs:
            if config.chunking_name not in self.chunkings:
                self.chunkings[config.chunking_name] = chunk_corpus(
                    corpus.documents, config.chunking
                )
        self.views = {name: ChunkingView(name, chunks) for name, chunks in self.chunkings.items()}
        self.chunk_by_id = {c.chunk_id: c for chunks in self.chunkings.values() for c in chunks}
        self.failed_calls: list[dict] = []
        self.index_stats: list[dict] = []

    def _instances(self, plan: EmbedderPlan) -> list[Any]:
        return [i for i in self.corpus.instances if plan.probes is None or i.probe in plan.probes]

    def run(self) -> dict:
        """Records for every plan, the chunks they retrieved, comparisons and extras."""
        records: list[dict] = []
        for plan in self.plans:
            records.extend(self._run_plan(plan))
        used = {hit["chunk_id"] for record in records for hit in record["retrieved"]}
        used |= oracle_chunk_ids_of(records, self.chunkings)  # generation's oracle contexts
        chunks = {
            chunk_id: {
                "doc_id": chunk.doc_id,
                "chunking": chunk_id.split("/", 1)[0],
                "index": chunk.index,
                "start": chunk.start,
                "end": chunk.end,
                "text": chunk.text,
            }
            for chunk_id in sorted(used)
            for chunk in [self.chunk_by_id[chunk_id]]
        }
        # the originating study reports anchor selectivity at B's chunking (any chunking
        # when B is absent)
        summary_view = self.views.get(B.chunking_name) or next(iter(self.views.values()))
        return {
            "instances": records,
            "chunks": chunks,
            "comparisons": compare(records, COMPARISONS, [c.name for c in self.configs]),
            "extra_measurements": {
                "table_split_4000": table_split_wide(
                    self.corpus, self.views.get(TABLE_SPLIT_WIDE.name)
                )
            },
            "anchor_selectivity": anchor_summary(self.corpus.instances, summary_view),
            "failed_calls": self.failed_calls,
            "indexes": self.index_stats,
            "chunk_counts": {name: len(chunks) for name, chunks in self.chunkings.items()},
            "chunk_offsets": chunk_offsets(self.chunkings),
        }

    def _run_plan(self, plan: EmbedderPlan) -> list[dict]:
        embedder = plan.embedder
        instances = self._instances(plan)
        chunkings = self._chunkings_for(instances)
        indexes = self._build_indexes(embedder, chunkings)
        query_vectors, query_errors = self._embed_queries(embedder, instances)
        self.progress.stage(f"retrieve {embedder.spec}", len(instances) * len(chunkings))
        records: list[dict] = []
        for name, index in indexes.items():
            block = self._retrieve_chunking(
                embedder, name, index, instances, query_vectors, query_errors
            )
            records.extend(block)
        self._fail_queries(embedder.spec, query_errors, records)
        order = {c.name: i for i, c in enumerate(self.configs)}
        position = {i.instance_id: n for n, i in enumerate(instances)}
        records.sort(key=lambda r: (position[r["instance_id"]], order[r["config"]]))
        return records

    def _chunkings_for(self, instances: list[Any]) -> dict[str, list[Any]]:
        """The chunkings some config runs one of these instances' probes on (T4000, on
        table_split only, is not indexed for an embedder that never runs table_split)."""
        probes = {i.probe for i in instances}
        used = {c.chunking_name for c in self.configs if any(c.runs(p) for p in probes)}
        return {name: chunks for name, chunks in self.chunkings.items() if name in used}

    def _build_indexes(
        self, embedder: Any, chunkings: dict[str, list[Any]]
    ) -> dict[str, ChunkIndex]:
        """One collection per chunking; every distinct chunk text embedded once across
        chunkings, before any index is opened."""
        spec = embedder.spec
        texts = list(dict.fromkeys(c.text for chunks in chunkings.values() for c in chunks))
        self.progress.stage(f"embed passages {spec}", len(texts))
        window = survey_window(embedder, texts)  # tokenizer pass only: no model call
        vectors, errors = embed_texts(
            embedder, texts, on_batch=self.progress.advance, tokens=window.tokens
        )
        self.progress.stage(f"index {spec}", len(chunkings))
        indexes = {}
        for name, chunks in chunkings.items():
            index = build_index(self.client, embedder, name, chunks, vectors=vectors, errors=errors)
            indexes[name] = index
            self.index_stats.append(
                {
                    "embedder": spec,
                    "chunking": name,
                    "collection": index.name,
                    "chunks": len(chunks),
                    "added": index.added,
                    "failed": len(index.failed_chunk_ids),
                    **window.fields(chunks),
                }
            )
            self.progress.advance(1)
        return indexes

    def _retrieve_chunking(
        self,
        embedder: Any,
        name: str,
        index: ChunkIndex,
        instances: list[Any],
        query_vectors: dict,
        query_errors: dict,
    ) -> list[dict]:
        """Records for every config cut by chunking `name`: each question ranked once per
        dense|hybrid to the pool depth, then sliced to each config's k."""
        chunks = self.chunkings[name]
        configs = [c for c in self.configs if c.chunking_name == name]
        index_error = None
        if not index.complete:
            index_error = (
                f"embedding call failed: {len(index.failed_chunk_ids)} of {len(chunks)} "
                f"chunks of {name} not embedded ({index.errors[0]})"
            )
        retriever = Retriever(embedder, chunks, index)
        depth = max([POOL_DEPTH, *(c.k for c in configs)])
        dense = {} if index_error else _dense_rankings(retriever, instances, query_vectors, depth)
        block: list[dict] = []
        for instance in instances:
            error = index_error or query_errors.get(instance.question)
            rankings: dict[bool, list] = {}
            for config in configs:
                if not config.runs(instance.probe):
                    continue  # a config outside the matrix runs its own probes only
                record = base_record(instance, config, embedder.spec)
                if error:
                    block.append(_failed_record(record, error))
                    continue
                if config.hybrid not in rankings:
                    rankings[config.hybrid] = retriever.ranking(
                        instance.question,
                        config.hybrid,
                        depth,
                        query_vectors[instance.question],
                        dense=dense[instance.question],
                    )
                ranking = rankings[config.hybrid]
                record["retrieved"] = [hit.to_json() for hit in ranking[: config.k]]
                record.update(
                    diagnose(instance, self.views[name], ranking, config.k, self.chunk_by_id)
                )
                block.append(record)
            self.progress.advance(1)
        if index_error:
            self._fail(embedder.spec, index_error, [r["key"] for r in block])
        return block

    def _embed_queries(self, embedder: Any, instances: list[Any]) -> tuple[dict, dict]:
        questions = list(dict.fromkeys(i.question for i in instances))
        self.progress.stage(f"queries {embedder.spec}", len(questions))
        vectors, errors = embed_texts(
            embedder, questions, role="query", on_batch=self.progress.advance
        )
        return vectors, {q: f"embedding call failed: {e}" for q, e in errors.items()}

    def _fail(self, spec: str, error: str, keys: list[str]) -> None:
        self.failed_calls.append(
            {"model": spec, "kind": "embed", "error": error, "instance_keys": keys}
        )

    def _fail_queries(self, spec: str, errors: dict[str, str], records: list[dict]) -> None:
        by_error: dict[str, list[str]] = {}
        for record in records:
            error = errors.get(record["question"])
            if error and record["retrieval_error"] == error:
                by_error.setdefault(error, []).append(record["key"])
        for error, keys in by_error.items():
            self._fail(spec, error, keys)


def _dense_rankings(
    retriever: Retriever, instances: list[Any], query_vectors: dict, depth: int
) -> dict[str, list]:
    """Every embedded question's dense ranking, exact over the collection's stored vectors
    (read once; the same in every process, so a rerun reproduces the run: stack/exact.py)."""
    questions = dict.fromkeys(i.question for i in instances)
    asked = {q: query_vectors[q] for q in questions if q in query_vectors}
    return retriever.dense_rankings(asked, depth) if asked else {}


def table_split_wide(corpus: Any, view: ChunkingView | None = None) -> dict:
    """table_split measured outside the matrix at TABLE_SPLIT_WIDE: header and answer row
    in one chunk, per instance (model-free). `view` is the run's own TABLE_SPLIT_WIDE
    chunking when a config (T4000) cut it; else the table documents are cut here."""
    chunking = TABLE_SPLIT_WIDE
    instances = [i for i in corpus.instances if i.probe == "table_split"]
    if view is None:
        wanted = {s.doc_id for i in instances for s in (*i.gold_spans, *i.extra_spans)}
        documents = [d for d in corpus.documents if d.doc_id in wanted]
        view = ChunkingView(chunking.name, chunk_corpus(documents, chunking))
    records = [
        {
            "instance_id": i.instance_id,
            "table_together": table_together(i, view),
            "span_preserved": span_preserved(i, view),
        }
        for i in instances
    ]
    measured = [r["table_together"] for r in records if r["table_together"] is not None]
    return {
        "chunking": chunking.name,
        "table_together": {"count": sum(measured), "n": len(measured)},
        "records": records,
    }
