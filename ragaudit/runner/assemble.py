"""The results document of one run, assembled from its parts: the run plan, the corpus it
ran on and its stages' folded fragments. Later stages fill it in place
(conditions, generation, grades, cells). The contract is docs/results-schema.md."""

from __future__ import annotations

from collections.abc import Sequence

from ragaudit.corpus.build import PlantedCorpus
from ragaudit.runner.plan import RunPlan
from ragaudit.runner.stage import Stage
from ragaudit.stack.retrieval import POOL_DEPTH


def corpus_section(corpus: PlantedCorpus, manifest_sha: str) -> dict:
    """The results file's `corpus`: seed, n, the manifest's sha256 (which pins every corpus
    file, so a subset is (manifest, n)), and each probe with its instance count."""
    probes: dict[str, dict] = {}
    for instance in corpus.instances:
        entry = probes.setdefault(
            instance.probe, {"name": instance.probe, "layer": instance.layer, "n": 0}
        )
        entry["n"] += 1
    return {
        "seed": corpus.seed,
        "n": corpus.n,
        "sha256": manifest_sha,
        "documents": len(corpus.documents),
        "probes": list(probes.values()),
    }


def run_section(plan: RunPlan, corpus: PlantedCorpus, retrieval: dict) -> dict:
    """The results file's `run`: what was asked for and what the indexes held."""
    generate = plan.generate
    return {
        "preset": plan.preset,
        "seed": corpus.seed,
        "argv": list(plan.argv),
        "gen_configs": list(plan.gen_configs) if generate else [],
        "gen_probes": list(plan.gen_probes or corpus.probes) if generate else [],
        "generate": generate,
        "generation_params": plan.generation_params if generate else None,
        "retrieval_pool_depth": POOL_DEPTH,
        "workers": plan.workers,  # requests in flight to a remote server; results do not vary
        "executor": {
            "name": plan.executor,
            "ray_address": plan.ray_address,
            "ray_workers": plan.ray_workers,
        },
        "indexes": retrieval["indexes"],
        "chunk_counts": retrieval["chunk_counts"],
    }


def results_document(
    plan: RunPlan,
    corpus: PlantedCorpus,
    manifest_sha: str,
    stages: Sequence[Stage],
    retrieval: dict,
) -> dict:
    """The whole document after retrieval, incomplete (`complete: false`) and without
    cells, conditions or models yet (the orchestrator adds each stage's); `retrieval` is
    the stages' folded fragments (runner.stage.fold_fragments)."""
    described = [stage.describe(corpus) for stage in stages]
    corpus_part = corpus_section(corpus, manifest_sha)
    corpus_part["anchor_selectivity"] = retrieval["anchor_selectivity"]
    return {
        "schema_version": None,  # set by results.io.write_results, with created_at
        "created_at": None,
        "complete": False,
        "run": run_section(plan, corpus, retrieval),
        "corpus": corpus_part,
        "configs": [config for entry in described for config in entry["configs"]],
        "embedders": [embedder for entry in described for embedder in entry["embedders"]],
        "generator": {"spec": plan.generator} if plan.generate else None,
        "models": [],
        "conditions": {},
        "chunks": retrieval["chunks"],
        "chunk_offsets": retrieval["chunk_offsets"],
        "instances": retrieval["instances"],
        "cells": [],
        "comparisons": retrieval["comparisons"],
        "extra_measurements": retrieval["extra_measurements"],
    }
