"""A `pipeline:` stack as the mutation audit's column: the user's whole pipeline built over
each operator's corpus (ingested once per corpus, targets.pipeline.build), every phrasing asked
once per corpus through the call cache, each context it returns located in that corpus
(targets.pipeline.contexts) as its ranking. Its answer is the record's generation, graded like
any other; its `oracle:` entry, when given, is asked each record's gold passages as a run
asks it (ask_oracle), so a wrong answer is attributed to retrieval or generation. The
pipeline's chunks are its own: boundary and table_split pad by fixed sizes
(mutation.fixed_padding) and read from the located contexts whether the answer's sentence
reached the model whole; the retrieval-side `--no-generate` measures are not applicable."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragaudit.auditing.pipeline_ranking import PipelineRanked
from ragaudit.mutation.operator import PIPELINE_CHUNKS
from ragaudit.targets.pipeline.calls import ask_all
from ragaudit.targets.pipeline.oracle import NOT_MEASURED, oracle_passages, oracle_payload

PADDED = ("boundary", "table_split")
"""The operators that pad a pipeline's corpus by fixed sizes: their records read from the
located contexts whether the answer's sentence (or row) reached the model whole."""


def answer_record(record: dict, reply: tuple[Any, bool] | None, generate: bool) -> dict:
    """A mutant record under a pipeline: its answer as the generation (when graded), and
    the retrieval-side measures ragaudit cannot take of a pipeline marked not applicable;
    a padded mutant's (boundary, table_split) read from its located contexts."""
    record["span_preserved"] = None
    record["mutation"]["handled_retrieval"] = None
    record["mutation"]["measure"] = PIPELINE_CHUNKS
    if record["probe"] in PADDED and record["retrieval_error"] is None:
        _reached_whole(record)
    if reply is None or not generate:
        return record
    answer, replayed = reply
    labels = {f"c{i}": hit["chunk_id"] for i, hit in enumerate(record["retrieved"], 1)}
    record["generation"] = {
        "generator": record["embedder"], "prompt_sha256": None, "status": "ok",
        "reply": answer.answer, "error": None, "citations": [], "citation_labels": labels,
        "replayed": replayed, "usage": None,
    }  # fmt: skip
    record["oracle"] = None
    return record


def _reached_whole(record: dict) -> None:
    """Whether the answer's sentence reached the model whole, read from the contexts the
    pipeline returned (located in the corpus): gold in context when one context holds each
    gold span whole; span preserved true then, false when contexts hold only parts of it
    (the pipeline's chunks cut it), null when none reached it (its chunks there unseen)."""
    hits, gold = record["retrieved"], record["gold_spans"]

    def holding(span: dict) -> bool:
        mine = [h for h in hits if h["doc_id"] == span["doc_id"]]
        return any(h["start"] <= span["start"] and span["end"] <= h["end"] for h in mine)

    def touching(span: dict) -> bool:
        mine = [h for h in hits if h["doc_id"] == span["doc_id"]]
        return any(h["start"] < span["end"] and span["start"] < h["end"] for h in mine)

    whole = bool(gold) and all(holding(s) for s in gold)
    record["gold_in_context"] = whole
    record["mutation"]["sentence_reached_whole"] = whole
    if whole:
        record["span_preserved"] = True
    elif any(touching(s) and not holding(s) for s in gold):
        record["span_preserved"] = False
    else:
        record["span_preserved_reason"] = (
            "no context the pipeline returned reached the answer's sentence: how its chunks "
            "hold it is unseen"
        )


def ask_oracle(
    ranked: PipelineRanked, records: Sequence[dict], chunks: dict, cache: Any, workers: int
) -> list[dict]:
    """Ask the stack's `oracle:` entry, as a run does (runner.pipeline_stage), about each
    answered record of one corpus: the question and the paragraphs holding its gold spans
    (and a table's header) in that corpus, through the call cache; the reply goes into
    record["oracle"] (graded with the records), each passage into `chunks` (the results
    file's). Without an entry, each answered record's ceiling says it was not measured.
    Returns the oracle's failed calls (conditions' `failed_calls` entries)."""
    built, locator = ranked.built, ranked.locator
    answered = [r for r in records if r.get("generation") and r["retrieval_error"] is None]
    for record in answered:
        record["ceiling"] = NOT_MEASURED if built.oracle is None else None
    if built.oracle is None:
        return []
    payloads = {}
    for record in answered:
        passages = oracle_passages(record, locator.documents)
        if not passages:
            continue  # no gold (remove_answer): nothing a perfect retriever would return
        texts, ids = [], []
        for doc_id, start, end in passages:
            text = locator.documents[doc_id].text[start:end]
            chunk = locator.passage(doc_id, start, end, text)
            chunks.setdefault(chunk.chunk_id, _chunk_json(chunk))
            texts.append(text)
            ids.append(chunk.chunk_id)
        record["oracle"] = {"chunk_ids": ids, "generation": None, "grade": None}
        payloads[record["key"]] = oracle_payload(record["question"], texts)
    identity = cache.remember_identity(built.oracle_identity)
    answers, replayed = ask_all(
        list(payloads.values()), built.oracle, cache, model=built.oracle_model,
        identity=identity, workers=workers,
    )  # fmt: skip
    by_error: dict[str, list[str]] = {}
    for record in answered:
        if record["key"] not in payloads:
            continue
        payload = payloads[record["key"]]
        answer = answers[payload]
        ok = not isinstance(answer, str)
        record["oracle"]["generation"] = {
            "generator": built.oracle_model, "prompt_sha256": None,
            "status": "ok" if ok else "failed_call",
            "reply": answer.answer if ok else None, "error": None if ok else answer,
            "citations": [], "citation_labels": {}, "replayed": payload in replayed,
            "usage": None,
        }  # fmt: skip
        if not ok:
            by_error.setdefault(answer, []).append(record["key"])
    return [
        {"model": built.oracle_model, "kind": "generate_oracle", "error": error,
         "instance_keys": keys}
        for error, keys in by_error.items()
    ]  # fmt: skip


def _chunk_json(chunk: Any) -> dict:
    """An oracle passage as the results file's `chunks` entry (mutation.measure's shape)."""
    return {
        "doc_id": chunk.doc_id, "chunking": chunk.chunk_id.split("/", 1)[0],
        "index": chunk.index, "start": chunk.start, "end": chunk.end, "text": chunk.text,
    }  # fmt: skip
