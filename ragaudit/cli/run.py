"""`ragaudit run`: the matrix end to end — retrieval, then (unless --no-generate)
generation and grading, then analysis — written to one results file.

Resumable by construction: every model call goes through the call cache and every index
lives in a persistent Chroma collection, so rerunning the same command after a kill replays
finished work instead of recomputing it. A partial results file (`complete: false`) is
written after each stage so the inspector can show a run in progress.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError
from ragaudit.stack import presets

CONTENTION_ENV = "RAGAUDIT_CONTENTION_PATTERN"
PARTIAL_WRITE_SECONDS = 30.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `ragaudit run` options."""
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="n=5 instances per probe")
    size.add_argument("--n", type=int, default=None, help="instances per probe (full: 25)")
    parser.add_argument(
        "--embedders",
        nargs="+",
        metavar="SPEC",
        default=[presets.PRIMARY_EMBEDDER, presets.SECONDARY_EMBEDDER],
        help="embedder specs; the first is primary and runs every probe "
        f"(default: {presets.PRIMARY_EMBEDDER} {presets.SECONDARY_EMBEDDER})",
    )
    parser.add_argument(
        "--secondary-probes",
        nargs="+",
        metavar="PROBE",
        default=list(presets.SECONDARY_PROBES),
        help="probes the other embedders run ('all' for every probe; default: "
        f"{' '.join(presets.SECONDARY_PROBES)})",
    )
    parser.add_argument(
        "--generator",
        default=None,
        metavar="SPEC",
        help=f"generator spec (quick: {presets.QUICK.generator}; full: {presets.FULL.generator})",
    )
    parser.add_argument(
        "--gen-configs",
        nargs="+",
        default=None,
        metavar="CONFIG",
        help=f"configs to generate on (quick: {' '.join(presets.QUICK.gen_configs)}; "
        f"full: {' '.join(presets.FULL.gen_configs)})",
    )
    parser.add_argument(
        "--gen-probes",
        nargs="+",
        default=None,
        metavar="PROBE",
        help="probes to generate answers for (quick: the seed's answer probes; full: every probe)",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help=f"reply length cap (quick: {presets.QUICK.max_tokens}; "
        f"full: {presets.FULL.max_tokens})",
    )
    parser.add_argument("--no-generate", action="store_true", help="retrieval and diagnostics only")
    parser.add_argument(
        "--configs",
        default=None,
        metavar="FILE.yaml",
        help="extra configs to run beside the matrix",
    )
    parser.add_argument(
        "--out",
        default=None,
        metavar="PATH",
        help="results file (default data/results/latest.json)",
    )


def contention_snapshot(pattern: re.Pattern | None) -> list[dict]:
    """Processes (other than this one) whose command line matches `pattern`."""
    if pattern is None:
        return []
    seen = []
    own = {os.getpid(), os.getppid()}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in own:
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if command.strip() and pattern.search(command):
            seen.append({"pid": int(entry.name), "command": command.strip()[:120]})
    return seen


def contention_pattern() -> re.Pattern | None:
    """The compiled pattern from RAGAUDIT_CONTENTION_PATTERN, or None when unset."""
    raw = os.environ.get(CONTENTION_ENV, "").strip()
    if not raw:
        return None
    try:
        return re.compile(raw)
    except re.error as error:
        raise RagauditError(f"{CONTENTION_ENV}: not a valid regular expression ({error})") from None


def _resolve_probes(names: list[str] | None, available: list[str], flag: str) -> tuple | None:
    if names is None or names == ["all"]:
        return None
    from ragaudit.registry import unknown_name_message

    for name in names:
        if name not in available:
            raise RagauditError(f"{flag}: {unknown_name_message('probe', name, available)}")
    return tuple(names)


def _corpus_section(corpus, subset_n: int, manifest_sha: str | None) -> dict:
    import hashlib

    probes: dict[str, dict] = {}
    for instance in corpus.instances:
        entry = probes.setdefault(
            instance.probe, {"name": instance.probe, "layer": instance.layer, "n": 0}
        )
        entry["n"] += 1
    # The manifest pins every corpus file; a subset is (manifest, n), deterministic.
    sha = manifest_sha
    if not sha:
        digest = hashlib.sha256()
        for doc in corpus.documents:
            digest.update(f"{doc.doc_id}\0{doc.text}\n".encode())
        sha = digest.hexdigest()
    return {
        "seed": getattr(corpus, "seed", None),
        "n": subset_n,
        "sha256": sha,
        "documents": len(corpus.documents),
        "probes": list(probes.values()),
    }


def _failed_generation_calls(records: list[dict], generator_spec: str) -> list[dict]:
    by_error: dict[str, list[str]] = {}
    for record in records:
        generation = record.get("generation") or {}
        if generation.get("status") == "failed_call":
            by_error.setdefault(str(generation.get("error")), []).append(record["key"])
    return [
        {"model": generator_spec, "kind": "generate", "error": error, "instance_keys": keys}
        for error, keys in by_error.items()
    ]


def _conditions(cache, failed_calls, pattern, before, after, elapsed) -> dict:
    stats = cache.stats()
    total = sum(stats.values())
    reasons = []
    if stats["replayed"]:
        reasons.append(f"{stats['replayed']} of {total} model calls were replayed from cache")
    if before or after:
        reasons.append(f"contention seen ({len(before)} processes before, {len(after)} after)")
    return {
        "calls": stats,
        "calls_by_model": cache.stats_by_model(),
        "failed_calls": failed_calls,
        "contention_detection_configured": pattern is not None,
        "contention_pattern_env": CONTENTION_ENV,
        "contention_seen": {"before": before, "after": after},
        "elapsed_seconds": None if reasons else round(elapsed, 1),
        "elapsed_seconds_reason": "; ".join(reasons) or None,
    }


class _PartialWriter:
    """Writes the in-progress results file at most every PARTIAL_WRITE_SECONDS."""

    def __init__(self, out: Path, results: dict) -> None:
        self.out, self.results, self.last = out, results, 0.0

    def __call__(self, snapshot: dict | None = None, force: bool = False) -> None:
        from ragaudit.results.io import write_results

        if force or time.monotonic() - self.last >= PARTIAL_WRITE_SECONDS:
            self.last = time.monotonic()
            write_results(self.out, self.results, complete=False)


def run(args: argparse.Namespace) -> int:
    """Run the matrix and write the results file; returns the exit status."""
    from ragaudit.backends.cache import CallCache
    from ragaudit.backends.specs import describe_model, load_embedder
    from ragaudit.corpus.build import load_corpus, manifest_sha256
    from ragaudit.pipeline.progress import Progress
    from ragaudit.pipeline.retrieve import EmbedderPlan, MatrixStage
    from ragaudit.results.io import write_results
    from ragaudit.stack.configs import MATRIX, load_user_configs, merge_configs
    from ragaudit.stack.index import open_client
    from ragaudit.stack.retrieval import POOL_DEPTH

    started = time.monotonic()
    pattern = contention_pattern()
    before = contention_snapshot(pattern)
    preset = presets.QUICK if args.quick else presets.FULL
    n = args.n if args.n is not None else preset.n
    # Flags left unset take the preset's values, so the results file records what ran.
    args.generator = args.generator or preset.generator
    args.gen_configs = args.gen_configs or list(preset.gen_configs)
    if args.gen_probes is None and preset.gen_probes is not None:
        args.gen_probes = list(preset.gen_probes)
    args.max_tokens = args.max_tokens if args.max_tokens is not None else preset.max_tokens
    if args.max_tokens < 1:
        raise RagauditError(f"--max-tokens {args.max_tokens}: need at least 1")
    if n < 1:
        raise RagauditError(f"--n {n}: need at least 1 instance per probe")
    configs = list(MATRIX)
    if args.configs:
        configs = merge_configs(MATRIX, load_user_configs(args.configs))
    names = [c.name for c in configs]
    for name in args.gen_configs:
        if name not in names:
            raise RagauditError(
                f"--gen-configs: unknown config {name!r}; valid: {', '.join(names)}"
            )
    out = Path(args.out) if args.out else paths.default_results_path()
    if out.is_dir():
        raise RagauditError(
            f"--out {out}: is a folder; name the results file (e.g. {out}/latest.json)"
        )

    corpus = load_corpus()
    if n < corpus.n:
        corpus = corpus.subset(n)
    available = list(dict.fromkeys(i.probe for i in corpus.instances))
    secondary = _resolve_probes(args.secondary_probes, available, "--secondary-probes")
    gen_probes = _resolve_probes(args.gen_probes, available, "--gen-probes")

    cache = CallCache()
    embedders = [load_embedder(spec, cache) for spec in dict.fromkeys(args.embedders)]
    plans = [EmbedderPlan(embedders[0], "primary", None)]
    plans += [EmbedderPlan(e, "secondary", secondary) for e in embedders[1:]]
    progress = Progress(json_path=paths.results_dir() / "progress.json")
    stage = MatrixStage(corpus, configs, plans, open_client(), progress)
    retrieval = stage.run()

    corpus_section = _corpus_section(corpus, min(n, corpus.n), manifest_sha256())
    corpus_section["anchor_selectivity"] = retrieval["anchor_selectivity"]
    generate = not args.no_generate
    results: dict = {
        "schema_version": None,
        "created_at": None,
        "complete": False,
        "run": {
            "preset": "custom" if args.n is not None else preset.name,
            "seed": corpus_section["seed"],
            "argv": [Path(sys.argv[0]).name, *sys.argv[1:]],
            "gen_configs": list(args.gen_configs) if generate else [],
            "gen_probes": list(gen_probes or available) if generate else [],
            "generate": generate,
            "generation_params": {"max_tokens": args.max_tokens} if generate else None,
            "retrieval_pool_depth": POOL_DEPTH,
            "indexes": retrieval["indexes"],
            "chunk_counts": retrieval["chunk_counts"],
        },
        "corpus": corpus_section,
        "configs": [c.to_json() for c in configs],
        "embedders": [
            {
                "spec": p.embedder.spec,
                "role": p.role,
                "probes": list(p.probes) if p.probes else available,
            }
            for p in plans
        ],
        "generator": {"spec": args.generator} if generate else None,
        "models": [describe_model(e) for e in embedders],
        "conditions": {},
        "chunks": retrieval["chunks"],
        "instances": retrieval["instances"],
        "cells": [],
        "comparisons": retrieval["comparisons"],
        "extra_measurements": retrieval["extra_measurements"],
    }
    results["conditions"] = _conditions(
        cache, retrieval["failed_calls"], pattern, before, [], time.monotonic() - started
    )
    partial = _PartialWriter(out, results)
    analyse = _analysis_stage(results, progress)
    analyse()  # retrieval cells now, so the inspector has a heatmap while generation runs
    partial(force=True)
    failed_calls = list(retrieval["failed_calls"])
    if generate:
        from ragaudit.backends.specs import load_generator
        from ragaudit.grading.grade import grade_records
        from ragaudit.pipeline.generate import generate_records

        generator = load_generator(args.generator, cache)
        results["models"].append(describe_model(generator))
        primary = [r for r in results["instances"] if r["embedder"] == plans[0].embedder.spec]
        progress.stage(f"generate {args.generator}", 0)

        def on_generated(done: int, total: int) -> None:
            progress.total = total  # known only once identical prompts are merged
            progress.advance(done - progress.done_units)
            partial()

        results["run"]["generation_counts"] = generate_records(
            primary,
            results["chunks"],
            generator,
            gen_configs=list(args.gen_configs),
            gen_probes=list(gen_probes or available),
            progress=on_generated,
            params={"max_tokens": args.max_tokens},
        )
        grade_records(results["instances"], results["chunks"])
        failed_calls += _failed_generation_calls(results["instances"], args.generator)
        partial(force=True)
    analyse()
    progress.done()
    after = contention_snapshot(pattern)
    results["conditions"] = _conditions(
        cache, failed_calls, pattern, before, after, time.monotonic() - started
    )
    write_results(out, results, complete=True)
    _summary(results, out)
    return 0


def _analysis_stage(results: dict, progress):
    """A callable that fills cells, severity and the rest from the records so far."""

    def analyse_now() -> None:
        try:
            from ragaudit.analysis import analyse
        except ImportError as error:  # the analysis stage is another module; say so
            results["cells_reason"] = f"analysis unavailable: {error}"
            progress.message(f"ragaudit run: warning: {results['cells_reason']}")
        else:
            analyse(results)

    return analyse_now


def _summary(results: dict, out: Path) -> None:
    conditions = results["conditions"]
    calls = conditions["calls"]
    failed = sum(1 for r in results["instances"] if r["retrieval_error"])
    elapsed = conditions["elapsed_seconds"]
    timing = (
        f"{elapsed} s"
        if elapsed is not None
        else f"withheld ({conditions['elapsed_seconds_reason']})"
    )
    print(
        f"wrote {out}: {len(results['instances'])} instance records "
        f"({failed} with a failed retrieval), {len(results['configs'])} configs",
        file=sys.stderr,
    )
    print(
        f"model calls: {calls['replayed']} replayed, {calls['computed']} computed, "
        f"{calls['failed']} failed; elapsed {timing}",
        file=sys.stderr,
    )
