"""A user's whole pipeline as a stage of a run (pipeline.stage.Stage): its own column beside
the matrix. It is built (factory imported and called, service's headers read, ingest done)
before the run takes its lock or writes anything, so a bad one is one line, exit 2, no file
changed. It answers and retrieves in one call, so `retrieve` asks every question
(userpipeline.calls), locates every context (userpipeline.contexts) and builds the records
with their answers; `generate` asks the oracle entry, if any, and grades.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ragaudit.backends.cache import CallCache
from ragaudit.grading.grade import grade_records
from ragaudit.runner.pipeline_records import answered_record, failed_record
from ragaudit.runner.stage import Stage
from ragaudit.stack.chunking import chunk_offsets
from ragaudit.stack.diagnostics import ChunkingView
from ragaudit.targets.column import TargetColumn, chunk_json
from ragaudit.targets.pipeline.build import BuiltPipeline
from ragaudit.targets.pipeline.calls import ask_all
from ragaudit.targets.pipeline.contexts import ContextLocator, unmatched_line
from ragaudit.targets.pipeline.dryrun import CallEstimate, pipeline_estimates
from ragaudit.targets.pipeline.oracle import oracle_passages, oracle_payload


class PipelineStage(Stage):
    """The planted-fault corpus (or any corpus) through one `pipeline:` stack file."""

    def __init__(self, stack: Any, *, workers: int = 1, generate: bool = True,
                 gen_probes: tuple[str, ...] | None = None,
                 dry_run: bool = False) -> None:  # fmt: skip
        self.stack, self.workers, self.dry_run = stack, workers, dry_run
        self.generate_answers, self.gen_probes = generate, gen_probes
        self.name = f"pipeline {stack.name}"
        self.order = 1
        self.built: BuiltPipeline | None = None
        self._built_for: Any = None
        self.locator: ContextLocator | None = None
        self.documents: dict = {}

    def build(self, corpus: Any) -> None:
        """Build the pipeline over `corpus` (bad input: one line, nothing written); for a
        dry run, without ingesting into its service (userpipeline.build)."""
        self.built = TargetColumn(self.stack, corpus.documents, dry_run=self.dry_run).pipeline
        self._built_for = corpus.documents
        self.documents = {doc.doc_id: doc for doc in corpus.documents}

    def prepare(self, corpus: Any, progress: Any) -> None:
        if self.built is None or self._built_for != corpus.documents:
            self.build(corpus)

    def models(self) -> list[dict]:
        return self.built.models() if self.built is not None else []

    def describe(self, corpus: Any) -> dict:
        config = self.stack.to_config_json()
        config["kind"] = "stack"
        config["pipeline_form"] = self.built.form if self.built else None
        if self.built is not None and self.built.indexed_documents is not None:
            config["indexed_documents"] = self.built.indexed_documents
        return {"configs": [config], "embedders": []}

    def estimate(self, corpus: Any, cache: CallCache | None) -> list[CallEstimate]:
        """--dry-run: the calls a run would make (targets.pipeline.dryrun), asking nothing."""
        return pipeline_estimates(self, corpus, cache)

    def _generates(self, probe: str) -> bool:
        return self.generate_answers and (self.gen_probes is None or probe in self.gen_probes)

    def retrieve(self, corpus: Any, cache: Any, progress: Any) -> dict:
        """Every question asked once (cached, `workers` in flight), each context located,
        each instance's record built: the fragment keys of MatrixRetrieval.run."""
        built, stack = self.built, self.stack
        instances = [i for i in corpus.instances if stack.runs(i.probe)]
        identity = cache.remember_identity(built.identity)
        questions = list(dict.fromkeys(i.question for i in instances))
        progress.stage(f"ask pipeline {stack.name}", len(questions))
        answers, replayed = ask_all(
            questions, built.ask, cache, model=built.model, identity=identity,
            workers=self.workers, on_answer=lambda replayed: progress.advance(1, replayed),
        )  # fmt: skip
        self.locator = locator = ContextLocator(list(corpus.documents), stack.chunking_name)
        placed = {
            q: locator.locate_all(a.contexts) for q, a in answers.items() if not isinstance(a, str)
        }
        view = ChunkingView(stack.chunking_name, locator.chunks)
        chunk_by_id = {chunk.chunk_id: chunk for chunk in locator.chunks}
        records, failed = [], {}
        for instance in instances:
            answer, generated = answers[instance.question], self._generates(instance.probe)
            if isinstance(answer, str):
                records.append(failed_record(instance, stack, answer, generated=generated))
                failed.setdefault(answer, []).append(records[-1]["key"])
                continue
            records.append(answered_record(
                instance, stack, answer, placed[instance.question], view, chunk_by_id,
                generated=generated, replayed=instance.question in replayed,
            ))  # fmt: skip
        total = sum(len(r["pipeline"]["contexts"]) for r in records if "pipeline" in r)
        unmatched = sum(r["pipeline"]["unmatched"] for r in records if "pipeline" in r)
        if total:
            print(f"pipeline {stack.name}: {unmatched_line(unmatched, total)}", file=sys.stderr)
        self._oracle_chunks(records)
        chunkings = {stack.chunking_name: locator.chunks}
        by_id = {chunk.chunk_id: chunk for chunk in locator.chunks}
        used = {hit["chunk_id"] for record in records for hit in record["retrieved"]}
        used |= self._oracle_ids(records)
        stats = {
            "embedder": stack.embedder_label, "chunking": stack.chunking_name,
            "collection": None, "chunks": len(locator.chunks), "added": 0, "failed": 0,
            "over_window": None, "over_window_reason": "the pipeline embeds its own chunks",
            "approximate_spans": sum(1 for c in locator.chunks if not c.span_exact),
            "contexts": total, "unmatched_contexts": unmatched,
            "unmatched_line": unmatched_line(unmatched, total),
        }  # fmt: skip
        return {
            "instances": records,
            "chunks": {cid: chunk_json(by_id[cid]) for cid in sorted(used)},
            "chunk_counts": {stack.chunking_name: len(locator.chunks)},
            "chunk_offsets": self._indexed_offsets(chunk_offsets(chunkings), corpus),
            "indexes": [stats],
            "failed_calls": [
                {"model": built.model, "kind": "pipeline", "error": e, "instance_keys": keys}
                for e, keys in failed.items()
            ],
            "comparisons": [],
            "extra_measurements": {},
            "anchor_selectivity": {},
        }

    def _indexed_offsets(self, offsets: dict, corpus: Any) -> dict:
        """`offsets` with every document handed to the pipeline (a factory's `documents=`,
        an ingest's batches or folder), an empty list where no context was found in it: the
        indexed set compare and gate pair by (compare.agreement) is what the pipeline was
        given, not only where its contexts came from. Under `ingest: none` nothing was
        handed over: the set is the user's assertion (describe), so only the documents its
        contexts were found in are listed, and none is claimed as indexed."""
        if self.built is not None and self.built.indexed_documents is not None:
            return offsets
        per_doc = offsets.setdefault(self.stack.chunking_name, {})
        for doc in corpus.documents:
            per_doc.setdefault(doc.doc_id, [])
        return offsets

    def _oracle_chunks(self, records: list[dict]) -> None:
        """Each answered record with gold spans gets its oracle context's passages as
        chunks, when there is an oracle entry to ask about them."""
        if not self.stack.oracle:
            return
        for record in records:
            if record.get("generation") is None or record["retrieval_error"]:
                continue
            passages = oracle_passages(record, self.documents)
            if not passages:
                continue
            ids = []
            for doc_id, start, end in passages:
                text = self.documents[doc_id].text[start:end]
                ids.append(self.locator.passage(doc_id, start, end, text).chunk_id)
            record["oracle"] = {"chunk_ids": ids, "generation": None, "grade": None}

    @staticmethod
    def _oracle_ids(records: list[dict]) -> set[str]:
        return {cid for r in records for cid in ((r.get("oracle") or {}).get("chunk_ids") or [])}

    def generate(
        self, results: dict, cache: Any, progress: Any, on_generated: Callable[[], None]
    ) -> list[dict]:
        """Ask the oracle entry (if any) about each record's gold passages, then grade the
        stage's records; returns the oracle's failed calls."""
        built, stack = self.built, self.stack
        records = [r for r in results["instances"] if r["config"] == stack.name]
        failed: list[dict] = []
        if built.oracle is not None:
            asked = [r for r in records if r.get("oracle")]
            chunks = results["chunks"]
            payloads = {
                r["key"]: oracle_payload(
                    r["question"], [chunks[c]["text"] for c in r["oracle"]["chunk_ids"]]
                )
                for r in asked
            }
            identity = cache.remember_identity(built.oracle_identity)
            progress.stage(f"oracle {stack.name}", len(set(payloads.values())))
            answers, _ = ask_all(
                list(payloads.values()), built.oracle, cache, model=built.oracle_model,
                identity=identity, workers=self.workers,
                on_answer=lambda replayed: (progress.advance(1, replayed), on_generated()),
            )  # fmt: skip
            by_error: dict[str, list[str]] = {}
            for record in asked:
                answer = answers[payloads[record["key"]]]
                ok = not isinstance(answer, str)
                record["oracle"]["generation"] = {
                    "generator": built.oracle_model, "prompt_sha256": None,
                    "status": "ok" if ok else "failed_call",
                    "reply": answer.answer if ok else None, "error": None if ok else answer,
                    "citations": [], "citation_labels": {}, "replayed": False, "usage": None,
                }  # fmt: skip
                if not ok:
                    by_error.setdefault(answer, []).append(record["key"])
            failed = [
                {"model": built.oracle_model, "kind": "generate_oracle", "error": e,
                 "instance_keys": keys}
                for e, keys in by_error.items()
            ]  # fmt: skip
        grade_records(records, results["chunks"])
        return failed


def build_pipeline_stages(
    plan: Any, corpus: Any = None, *, dry_run: bool = False
) -> list[PipelineStage]:
    """One stage per `pipeline:` stack file of the plan, each built over the corpus the run
    reads (the planted corpus at the plan's n, unless `corpus` is given: a mutated one)
    before any model loads and before the run writes a file (for `dry_run`: nothing
    ingested)."""
    stacks = [stack for stack in plan.stacks if stack.pipeline is not None]
    stages = [
        PipelineStage(stack, workers=plan.workers, generate=plan.generate,
                      gen_probes=plan.gen_probes, dry_run=dry_run)
        for stack in stacks
    ]  # fmt: skip
    if stages and corpus is None:
        from ragaudit.runner.plan import planted_corpus_for

        corpus = planted_corpus_for(plan)
    for stage in stages:
        stage.build(corpus)
    return stages
