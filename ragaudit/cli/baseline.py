"""`ragaudit run --baseline FILE`: the baseline checked against the run before any model
loads, and the finished run vetted by the gate before its results replace any file.

Before the run, what the plan already knows is checked as the gate checks it: the
baseline's fields and keys (gate.inputs), the corpus manifest (sha256), the question of
every instance id both hold, the indexed document set the run will record (the corpus's
documents at the plan's n; a `pipeline:` stack under `ingest: none` makes it an assertion),
and the baseline's side of each --gate-pair. What only the results show (the new run's
columns and paired cells) is checked by the gate itself on the finished results, before
they are published: a refusal leaves the results file and the previous run kept beside it
as they were, and the run's results go to its failed file (pipeline.orchestrate)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from ragaudit.comparison.agreement import ASSERTED, agreement
from ragaudit.comparison.pairing import resolve_column
from ragaudit.corpus.files import load_corpus, manifest_sha256
from ragaudit.errors import RagauditError
from ragaudit.gating.inputs import check_gate_fields
from ragaudit.results.io import load_results
from ragaudit.runner.plan import RunPlan


def planned_document(plan: RunPlan) -> dict:
    """What the plan's results file will say of its corpus, questions and indexed
    documents, known before any model loads (pipeline.assemble and the stages record the
    same: every document of the corpus at the plan's n is chunked and indexed)."""
    corpus = load_corpus()
    if plan.n < corpus.n:
        corpus = corpus.subset(plan.n)
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


def check_baseline_before_run(args: argparse.Namespace, plan: RunPlan) -> dict:
    """Refuse (one line, before any work) a baseline the gate would refuse to pair with
    this plan's run, as far as the plan tells; returns the baseline, read."""
    baseline = load_results(args.baseline, allow_partial=False)
    check_gate_fields(args.baseline, baseline)
    checked = agreement(baseline, planned_document(plan))
    where = f"cannot pair {args.baseline} with this run ({plan.out}), checked before the run"
    if checked.differs:
        raise RagauditError(f"{where}: {'; '.join(checked.differs)}")
    if not checked.checked:
        raise RagauditError(f"{where}: {checked.notes[-1]}")
    for text in args.gate_pair or []:
        try:
            resolve_column(baseline, text.partition("=")[0], "A")
        except RagauditError as error:
            raise RagauditError(f"--gate-pair {text}: {error} (A is {args.baseline})") from None
    return baseline


def vet_against_baseline(
    args: argparse.Namespace, out: Path, baseline: dict
) -> Callable[[dict], None]:
    """The gate's refusals of the finished run's results (as its file will hold them)
    against `baseline` with the `--gate-…` options, for run_matrix's `before_publish`: any
    of them raised there leaves `out` as it was."""
    from ragaudit.cli import gate
    from ragaudit.cli.repeat import gate_argv

    parser = argparse.ArgumentParser(prog="ragaudit gate")
    gate.add_arguments(parser)
    gate_args = parser.parse_args(gate_argv(args, out))

    def vet(results: dict) -> None:
        gate.gate_documents(baseline, json.loads(json.dumps(results)), gate_args)

    return vet
