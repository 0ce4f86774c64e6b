"""`python -m benchmarks.matrix`: the retrieval matrix from a cold cache, against a
naive per-config llama-index pipeline timed in the same run, then a warm rerun.

Figures printed:
- cold `ragaudit run --no-generate` wall time (a subprocess over a temp RAGAUDIT_HOME, so
  model loading and Chroma start-up are inside it);
- distinct texts embedded per model vs the (text, config) pairs a naive pipeline embeds
  (every chunk of the config's chunking plus every question, once per config);
- the naive baseline: per config, `VectorStoreIndex.from_documents` with default settings
  (in-memory store) over our embedder with a fresh, empty cache, then every question
  retrieved at the config's k; its wall time as a ratio to the cold run;
- a warm rerun (same command, same home) and its ratio to the cold run (target ≤ 10%).
Timings are noisy on a shared machine; the ratios are measured within one invocation.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ragaudit.backends.cache import CallCache
from ragaudit.backends.llamaindex import as_llamaindex_embedding
from ragaudit.backends.specs import load_embedder
from ragaudit.corpus.files import load_planted_corpus
from ragaudit.results.view import chunking_of, is_stack
from ragaudit.stack.chunking import llama_documents
from ragaudit.stack.configs import StackConfig


def _run_matrix(home: Path, out: Path, size: list[str], embedders: list[str]) -> float:
    env = {**os.environ, "RAGAUDIT_HOME": str(home)}
    command = [
        sys.executable,
        "-m",
        "ragaudit",
        "run",
        "--no-generate",
        *size,
        "--embedders",
        *embedders,
        "--out",
        str(out),
    ]
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def builtin_configs(results: dict) -> list[dict]:
    """The results file's built-in configs: the matrix this bench times. A user's stack
    (`kind: stack`, from `run --stack`) is skipped: it is cut by the user's own splitter
    and embedded under its own embedder, so neither side's figures would be like for like
    (and its entry has no splitter/chunk_size/overlap to build a StackConfig from)."""
    return [c for c in results.get("configs") or [] if not is_stack(c)]


def naive_pairs(results: dict) -> dict[str, int]:
    """(text, config) pairs a per-config pipeline embeds, per embedder (built-in configs)."""
    counts = results["run"]["chunk_counts"]
    pairs: dict[str, int] = {}
    for entry in results["embedders"]:
        spec = entry["spec"]
        for config in builtin_configs(results):
            questions = {
                r["question"]
                for r in results["instances"]
                if r["embedder"] == spec and r["config"] == config["name"]
            }
            chunking = chunking_of(config)
            pairs[spec] = pairs.get(spec, 0) + counts[chunking] + len(questions)
    return pairs


def naive_baseline(home: Path, results: dict, specs: list[str]) -> tuple[float, int]:
    """Seconds and texts embedded by the naive per-config llama-index pipeline."""
    os.environ["RAGAUDIT_HOME"] = str(home)
    from llama_index.core import VectorStoreIndex

    # built on first use (it subclasses a llama-index class): a heavy import
    from ragaudit.stack.chunking import CharacterNodeParser

    corpus = load_planted_corpus()
    if results["corpus"]["n"] < corpus.n:
        corpus = corpus.subset(results["corpus"]["n"])
    documents = llama_documents(corpus.documents)
    for spec in specs:  # load weights outside the clock, as the cold run loads its own
        load_embedder(spec, CallCache(home / "warmup.sqlite")).embed(["load"], role="query")
    embedded = 0
    started = time.perf_counter()
    for spec in specs:
        probes = next(e["probes"] for e in results["embedders"] if e["spec"] == spec)
        # the built-in configs only: a user's stack (kind "stack") is not the matrix timed here
        for config in matrix_configs(results):
            # a config outside the matrix (T4000) asks only its own probes' questions
            questions = [
                i.question for i in corpus.instances if i.probe in probes and config.runs(i.probe)
            ]
            if not questions:  # the run builds no index an embedder asks nothing of
                continue
            # a fresh, empty cache per config: the naive pipeline recomputes everything
            cache = CallCache(home / "naive" / f"{spec.replace(':', '_')}-{config.name}.sqlite")
            model = as_llamaindex_embedding(load_embedder(spec, cache))
            parser = CharacterNodeParser(chunking=config.chunking)
            index = VectorStoreIndex.from_documents(
                documents, embed_model=model, transformations=[parser]
            )
            retriever = index.as_retriever(similarity_top_k=config.k)
            for question in questions:
                retriever.retrieve(question)
            embedded += cache.stats()["computed"]
    return time.perf_counter() - started, embedded


def matrix_configs(results: dict) -> list[StackConfig]:
    """The built-in configs of the file as StackConfigs (a stack entry skipped: see
    builtin_configs; a built-in entry's `kind: builtin`, when written, is no field)."""
    configs = []
    for entry in builtin_configs(results):
        fields = {key: value for key, value in entry.items() if key != "kind"}
        configs.append(StackConfig(**{**fields, "probes": _tuple(fields.get("probes"))}))
    return configs


def records_reproduced(cold: dict, warm: dict) -> tuple[int, int]:
    """(cold records the warm rerun reproduced exactly, cold records), matched by key: a
    rerun rebuilds every record from the cache and the collections, so all should match."""
    warm_by_key = {record["key"]: record for record in warm["instances"]}
    same = sum(warm_by_key.get(record["key"]) == record for record in cold["instances"])
    return same, len(cold["instances"])


def _tuple(values: list | None) -> tuple | None:
    return None if values is None else tuple(values)


def main(argv: list[str]) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.matrix")
    parser.add_argument("--quick", action="store_true", help="n=5 per probe")
    parser.add_argument("--n", type=int, default=None, help="instances per probe")
    parser.add_argument("--embedders", nargs="+", default=["local:minilm", "local:e5-small"])
    parser.add_argument(
        "--baseline",
        choices=["all", "primary", "none"],
        default="all",
        help="embedders the naive baseline runs (default all)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp RAGAUDIT_HOME")
    args = parser.parse_args(argv)
    size = ["--quick"] if args.quick else (["--n", str(args.n)] if args.n else [])
    home = Path(tempfile.mkdtemp(prefix="ragaudit-bench-matrix-"))
    try:
        cold_out, warm_out = home / "results" / "cold.json", home / "results" / "warm.json"
        cold = _run_matrix(home, cold_out, size, args.embedders)
        results = json.loads(cold_out.read_text())
        warm = _run_matrix(home, warm_out, size, args.embedders)
        warm_results = json.loads(warm_out.read_text())
        corpus = results["corpus"]
        print(
            f"matrix benchmark: n={corpus['n']} per probe, {corpus['documents']} documents, "
            f"{len(builtin_configs(results))} configs, embedders {' '.join(args.embedders)}"
        )
        print(
            f"cold run --no-generate: {cold:.1f} s wall "
            f"({len(results['instances'])} instance records)"
        )
        pairs = naive_pairs(results)
        by_model = results["conditions"]["calls_by_model"]
        for spec in args.embedders:
            computed = by_model.get(spec, {}).get("computed", 0)
            print(
                f"  {spec}: {computed} distinct texts embedded vs {pairs[spec]} naive "
                f"(text, config) pairs = {computed / pairs[spec]:.1%}"
            )
        warm_calls = warm_results["conditions"]["calls"]
        print(
            f"warm rerun: {warm:.1f} s wall = {warm / cold:.1%} of cold (target <= 10%); "
            f"calls computed {warm_calls['computed']}, replayed {warm_calls['replayed']}"
        )
        same, total = records_reproduced(results, warm_results)
        print(f"  warm records equal to the cold run's: {same}/{total}")
        if args.baseline != "none":
            _report_baseline(home, results, args, cold)
    finally:
        if args.keep:
            print(f"kept {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)
    return 0


def _report_baseline(home: Path, results: dict, args: argparse.Namespace, cold: float) -> None:
    """Time the naive llama-index baseline and print it against the cold run, if comparable."""
    by_model = results["conditions"]["calls_by_model"]
    specs = args.embedders if args.baseline == "all" else args.embedders[:1]
    seconds, embedded = naive_baseline(home, results, specs)
    ours = sum(by_model.get(s, {}).get("computed", 0) for s in specs)
    scope = "both embedders" if len(specs) > 1 else specs[0]
    print(
        f"naive llama-index baseline ({scope}; from_documents per config, "
        f"no cache): {seconds:.1f} s wall, {embedded} texts embedded"
    )
    if len(specs) == len(args.embedders):
        print(
            f"  naive baseline / cold run = {seconds / cold:.2f}x (target >= 3.5x; "
            f"ours takes {cold / seconds:.0%} of the naive time); "
            f"texts {ours} vs {embedded}"
        )
        _report_compute(home, specs, cold, seconds)
    else:  # not like for like: say so rather than print a ratio that misleads
        print(
            f"  not comparable to the cold run, which also ran "
            f"{' '.join(args.embedders[len(specs) :])}; rerun with --baseline all or "
            f"--embedders {specs[0]} for a like-for-like ratio; texts {ours} vs {embedded}"
        )


def embedding_seconds(databases: list[Path], specs: list[str]) -> float:
    """The seconds the models spent computing the vectors stored in these call caches (each
    row keeps its share of its batch's time)."""
    import sqlite3

    total = 0.0
    marks = ",".join("?" * len(specs))
    for database in databases:
        with sqlite3.connect(database) as conn:
            query = f"SELECT SUM(seconds) FROM calls WHERE kind = 'embed' AND model IN ({marks})"
            total += conn.execute(query, specs).fetchone()[0] or 0.0
    return total


def _report_compute(home: Path, specs: list[str], cold: float, naive: float) -> None:
    """Split each side's wall time into embedding and the rest: the ratio is bounded by what
    each side computes, and the rest is what the cold run can still lose."""
    ours = embedding_seconds([home / "cache.sqlite"], specs)
    theirs = embedding_seconds(sorted((home / "naive").glob("*.sqlite")), specs)
    print(
        f"  embedding compute (from the call caches): cold {ours:.1f} s, naive {theirs:.1f} s "
        f"= {theirs / ours:.2f}x; outside embedding: cold {cold - ours:.1f} s "
        f"({(cold - ours) / cold:.0%} of its wall), naive {naive - theirs:.1f} s; with nothing "
        f"outside embedding the ratio would be {naive / ours:.2f}x"
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
