"""A baseline for a run about to start (`ragaudit run --baseline FILE`): checked against
the run before any model loads, and the finished run vetted by the gate before its results
replace any file.

Before the run, what the plan already knows is checked as the gate checks it: the
baseline's fields and keys (gating.inputs), the corpus manifest (sha256), the question of
every instance id both hold, the indexed document set the run will record (the corpus's
documents at the plan's n; a `pipeline:` stack under `ingest: none` makes it an assertion),
and the baseline's side of each gate pair. What only the results show (the new run's
columns and paired cells) is checked by the gate itself on the finished results, before
they are published: a refusal leaves the results file and the previous run kept beside it
as they were, and the run's results go to its failed file (runner.orchestrate)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from ragaudit.comparison.agreement import ASSERTED, agreement
from ragaudit.comparison.pairing import resolve_column
from ragaudit.corpus.files import manifest_sha256
from ragaudit.errors import RagauditError
from ragaudit.gating.gate import GateOptions, gate_documents
from ragaudit.gating.inputs import check_gate_fields
from ragaudit.results.io import load_results
from ragaudit.runner.plan import RunPlan, planted_corpus_for


def planned_document(plan: RunPlan) -> dict:
    """What the plan's results file will say of its corpus, questions and indexed
    documents, known before any model loads (runner.assemble and the stages record the
    same: every document of the corpus at the plan's n is chunked and indexed)."""
    corpus = planted_corpus_for(plan)
    asserted = any(
        stack.pipeline is not None and stack.pipeline.get("ingest") == "none"
        for stack in plan.stacks
    )
    return {
        "corpus": {"sha256": manifest_sha256(), "documents": len(corpus.documents)},
        "instances": [
            {"instance_id": i.instance_id, "question": i.question} for i in corpus.instances
        ],
        "chunk_offsets": {"planned": {doc.doc_id: [] for doc in corpus.documents if doc.text}},
        "configs": [{"indexed_documents": ASSERTED}] if asserted else [],
    }


def check_baseline_for_plan(baseline: Path, plan: RunPlan, gate_pairs: Sequence[str] = ()) -> dict:
    """Refuse (one line, before any work) a baseline the gate would refuse to pair with
    this plan's run, as far as the plan tells, or whose side of a gate pair
    (`A_CONFIG[@EMBEDDER]=…`) it lacks; returns the baseline, read."""
    document = load_results(baseline, allow_partial=False)
    check_gate_fields(baseline, document)
    checked = agreement(document, planned_document(plan))
    where = f"cannot pair {baseline} with this run ({plan.out}), checked before the run"
    if checked.differs:
        raise RagauditError(f"{where}: {'; '.join(checked.differs)}")
    if not checked.checked:
        raise RagauditError(f"{where}: {checked.notes[-1]}")
    for text in gate_pairs:
        try:
            resolve_column(document, text.partition("=")[0], "A")
        except RagauditError as error:
            raise RagauditError(f"--gate-pair {text}: {error} (A is {baseline})") from None
    return document


def results_vetter(
    document: dict, baseline: Path, results: Path, options: GateOptions
) -> Callable[[dict], None]:
    """The gate's refusals of a finished run's results (as the file `results` will hold
    them) against the baseline `document` read from `baseline`, for run_matrix's
    `before_publish`: any of them raised there leaves `results` as it was."""

    def vet(new: dict) -> None:
        gate_documents(document, json.loads(json.dumps(new)), options, (baseline, results))

    return vet
