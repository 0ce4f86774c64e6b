"""`python -m benchmarks.ray_fanout`: `--executor local` against `--executor ray` (2 workers)
on this machine, each from a cold cache, timed in the same invocation.

Figures printed:
- the retrieval matrix (`ragaudit run --no-generate --n 5 --embedders local:minilm`, a
  subprocess over its own temp RAGAUDIT_HOME, so model loading, Chroma and, under Ray,
  starting the local cluster are inside it): both wall times, their ratio, and the sha256
  of each side's instance records (the same digest: the same results);
- embedding throughput: `--texts` distinct chunk texts of that run through MiniLM's
  CachedEmbedder, timed after a warm-up (workers started, model loaded), so the figure is
  the workers' embedding alone: both wall times, the ratio, the sha256 of the vectors;
- a generation slice: the first `--prompts` distinct prompts (prefix order) that configs B
  and C ask on the answer probes over those records, through CachedGenerator.generate_each
  on the 0.5B model, model loading included: both wall times, the ratio, the sha256 of
  the replies in order. Both sides run llama.cpp at one thread count (RAGAUDIT_LLM_THREADS,
  default the cores divided among the workers), since replies depend on it.
Timings are noisy on a shared machine; the ratios are measured within one invocation.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ragaudit.backends.cache import CallCache
from ragaudit.backends.executors import executor_scope
from ragaudit.backends.specs import load_embedder, load_generator
from ragaudit.results.format import fmt_ratio
from ragaudit.runner.generate import distinct_prompts, prefix_order, select_records
from ragaudit.stack import presets


def records_sha256(results: dict) -> str:
    """The sha256 of a results file's instance records (sorted by key, keys sorted)."""
    records = sorted(results["instances"], key=lambda record: record["key"])
    blob = json.dumps(records, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def replies_sha256(replies: list) -> tuple[str, int, list[str]]:
    """The sha256 of `generate_each`'s replies in order (a failed call as `failed: <error>`),
    how many failed, and the texts hashed."""
    texts = [getattr(reply, "text", f"failed: {reply}") for reply in replies]
    failed = sum(1 for reply in replies if not hasattr(reply, "text"))
    digest = hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode("utf-8")).hexdigest()
    return digest, failed, texts


def _run_matrix(home: Path, n: int, executor: list[str]) -> tuple[float, dict]:
    out = home / "results.json"
    env = {**os.environ, "RAGAUDIT_HOME": str(home)}
    command = [sys.executable, "-m", "ragaudit", "run", "--no-generate", "--n", str(n)]
    command += ["--embedders", presets.PRIMARY_EMBEDDER, "--out", str(out), *executor]
    started = time.perf_counter()
    run = subprocess.run(command, env=env, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    if run.returncode != 0:  # say why, not only that it failed
        raise SystemExit(f"{' '.join(command)}: exit {run.returncode}\n{run.stderr[-2000:]}")
    return seconds, json.loads(out.read_text(encoding="utf-8"))


def _slice(results: dict, count: int) -> list[tuple[str, list[dict]]]:
    """The first `count` distinct prompts (prefix order) the quick preset's generation asks."""
    quick = presets.QUICK
    records = select_records(results["instances"], ("B", "C"), quick.gen_probes)
    params = {"max_tokens": quick.max_tokens}
    prompts = distinct_prompts(
        records, results["chunks"], results["chunk_offsets"], params, "bench"
    )
    return prefix_order(prompts)[:count]


def _embed(texts: list[str], cache_path: Path, scope) -> tuple[float, str]:
    """Seconds to embed `texts` after a warm-up, and the sha256 of the vectors."""
    with scope:
        embedder = load_embedder(presets.PRIMARY_EMBEDDER, CallCache(cache_path))
        embedder.embed([f"warm-up {i}" for i in range(2 * embedder.engine.batch_size)])
        started = time.perf_counter()
        vectors = embedder.embed(texts)
        seconds = time.perf_counter() - started
    blob = json.dumps(vectors).encode("utf-8")
    return seconds, hashlib.sha256(blob).hexdigest()


def _generate(spec: str, prompts: list, cache_path: Path, scope) -> tuple:
    """Seconds (model loading included), the replies' sha256, the failed calls, the replies."""
    params = {"max_tokens": presets.QUICK.max_tokens}
    started = time.perf_counter()
    with scope:
        generator = load_generator(spec, CallCache(cache_path))
        requests = [(messages, params) for _, messages in prompts]
        replies = list(generator.generate_each(requests, workers=1))
    seconds = time.perf_counter() - started
    digest, failed, texts = replies_sha256(replies)
    return seconds, digest, failed, texts


def _line(what: str, local: tuple, on_ray: tuple, workers: int) -> str:
    same = "identical" if local[1] == on_ray[1] else "DIFFERENT"
    return (
        f"{what}: local {local[0]:.1f} s, ray ({workers} workers) {on_ray[0]:.1f} s, "
        f"ratio ray/local {on_ray[0] / local[0]:.2f}; records {same} "
        f"(local {local[1][:16]}…, ray {on_ray[1][:16]}…)"
    )


def main(argv: list[str]) -> int:
    """Run both comparisons and print one line each."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ray_fanout")
    parser.add_argument("--n", type=int, default=5, help="instances per probe (default 5)")
    parser.add_argument("--prompts", type=int, default=50, help="generation slice (default 50)")
    parser.add_argument("--generator", default=presets.QUICK.generator)
    parser.add_argument("--texts", type=int, default=1000, help="embedded texts (default 1000)")
    parser.add_argument("--workers", type=int, default=2, help="Ray workers (default 2)")
    args = parser.parse_args(argv)
    ray_flags = ["--executor", "ray", "--ray-workers", str(args.workers)]
    with tempfile.TemporaryDirectory(prefix="ragaudit-bench-ray-") as folder:
        root = Path(folder)
        local = _run_matrix(root / "local", args.n, [])
        on_ray = _run_matrix(root / "ray", args.n, ray_flags)
        print(
            _line(
                f"retrieval matrix (--no-generate --n {args.n} --embedders "
                f"{presets.PRIMARY_EMBEDDER})",
                (local[0], records_sha256(local[1])),
                (on_ray[0], records_sha256(on_ray[1])),
                args.workers,
            ),
            flush=True,
        )
        texts = sorted({chunk["text"] for chunk in local[1]["chunks"].values()})[: args.texts]
        emb_local = _embed(texts, root / "e-local.sqlite", executor_scope())
        emb_ray = _embed(texts, root / "e-ray.sqlite", executor_scope("ray", workers=args.workers))
        what = f"embedding {len(texts)} chunk texts on {presets.PRIMARY_EMBEDDER} (after a warm-up)"
        print(_line(what, emb_local, emb_ray, args.workers), flush=True)
        prompts = _slice(local[1], args.prompts)
        # Both sides at one thread count (replies depend on it): this machine's cores shared
        # among the Ray workers, so the local side runs the same llama.cpp each worker runs.
        threads = os.environ.setdefault(
            "RAGAUDIT_LLM_THREADS", str(max(1, (os.cpu_count() or 1) // args.workers))
        )
        print(f"generation at RAGAUDIT_LLM_THREADS={threads} on both sides", flush=True)
        gen_local = _generate(args.generator, prompts, root / "g-local.sqlite", executor_scope())
        print(f"generation, local: {gen_local[0]:.1f} s (replies {gen_local[1][:16]}…)", flush=True)
        ray_scope = executor_scope("ray", workers=args.workers)
        gen_ray = _generate(args.generator, prompts, root / "g-ray.sqlite", ray_scope)
        print(
            _line(
                f"generation, {len(prompts)} prompts on {args.generator}",
                gen_local,
                gen_ray,
                args.workers,
            )
        )
        total = len(prompts)
        failed = (fmt_ratio(gen_local[2], total), fmt_ratio(gen_ray[2], total))
        print(f"failed calls: local {failed[0]}, ray {failed[1]}")
        differ = sum(1 for a, b in zip(gen_local[3], gen_ray[3], strict=True) if a != b)
        print(f"replies that differ: {fmt_ratio(differ, total)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
