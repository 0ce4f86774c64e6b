"""Prefix-reuse benchmark: the quick preset's own distinct prompts (regular and oracle)
evaluated whole in the order records ask them (the baseline), then in the pipeline's order
with llama.cpp keeping the previous prompt's evaluated prefix, in the same run on one
loaded model.

`python -m benchmarks.prefix [--questions 10] [--generator local:qwen2.5-0.5b]
[--results PATH]`. Without --results it first runs the quick preset's retrieval
(`ragaudit run --quick --no-generate --embedders local:minilm`) in a temporary data
folder. Prints prompt tokens evaluated (load-immune), wall and llama.cpp seconds, their
ratios, and how many replies are identical between the two ways.
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
from ragaudit.backends.specs import load_generator
from ragaudit.runner.generate import distinct_prompts, prefix_order, reuse_chains
from ragaudit.stack.presets import QUICK


def _retrieval_results(home: Path) -> dict:
    out = home / "results" / "retrieval.json"
    env = {**os.environ, "RAGAUDIT_HOME": str(home)}
    command = [sys.executable, "-m", "ragaudit", "run", "--quick", "--no-generate"]
    command += ["--embedders", "local:minilm", "--out", str(out)]
    subprocess.run(command, env=env, check=True, stderr=subprocess.DEVNULL)
    return json.loads(out.read_text())


def _sample(results: dict, questions: int) -> list[dict]:
    """The quick preset's generated records for `questions` instances spread over the probes."""
    wanted = [
        r
        for r in results["instances"]
        if r["config"] in QUICK.gen_configs and r["probe"] in (QUICK.gen_probes or ())
    ]
    ids = list(dict.fromkeys(r["instance_id"] for r in wanted))
    step = max(1, len(ids) // max(1, questions))
    keep = set(ids[::step][:questions])
    return [r for r in wanted if r["instance_id"] in keep]


def _evaluate(engine, prompts: list, params: dict, reuse: bool) -> dict:
    """Generate each prompt in order; tokens evaluated, seconds and replies."""
    engine.prefix_cache = reuse
    effective = engine.effective_params(dict(params))
    totals = {"prompt_tokens": 0, "llama_seconds": 0.0, "replies": {}}
    started = time.perf_counter()
    chains = reuse_chains([m for _, m in prompts]) if reuse else [()] * len(prompts)
    for (sha, messages), after in zip(prompts, chains, strict=True):
        totals["replies"][sha] = engine.chat_measured(messages, effective, after)[0]
        timings = engine.last_timings or {}
        totals["prompt_tokens"] += int(timings.get("prompt_n", 0))
        milliseconds = float(timings.get("prompt_ms", 0)) + float(timings.get("predicted_ms", 0))
        totals["llama_seconds"] += milliseconds / 1000
    totals["wall"] = time.perf_counter() - started
    return totals


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.prefix")
    parser.add_argument("--generator", default=QUICK.generator)
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--results", type=Path, default=None, help="a retrieval results file")
    args = parser.parse_args(argv or [])
    home = Path(tempfile.mkdtemp(prefix="ragaudit-bench-prefix-"))
    try:
        results = json.loads(args.results.read_text()) if args.results else _retrieval_results(home)
        cache = CallCache(str(home / "cache.sqlite"))
        engine = load_generator(args.generator, cache=cache).engine
        if not hasattr(engine, "prefix_cache"):
            print(f"{args.generator}: not an in-process llama.cpp generator; nothing to compare")
            return 2
        params = {"max_tokens": QUICK.max_tokens}
        records = _sample(results, args.questions)
        prompts = distinct_prompts(
            records, results["chunks"], results.get("chunk_offsets") or {}, params, args.generator
        )
        warm_up = prompts[0][1][:1] + [{"role": "user", "content": "warm up"}]
        engine.chat(warm_up, engine.effective_params({"max_tokens": 4}))
        whole = _evaluate(engine, prompts, params, reuse=False)
        reused = _evaluate(engine, prefix_order(prompts), params, reuse=True)
        _report(args, len(records), prompts, whole, reused)
        cache.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


def _report(args: argparse.Namespace, records: int, prompts: list, whole: dict, reused: dict):
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(
        f"prefix-reuse bench: {args.generator}, quick preset prompts for {args.questions} "
        f"questions ({records} records, {len(prompts)} distinct prompts), load {load}"
    )
    for name, side in (("whole prompts, record order", whole), ("prefix reuse, sorted", reused)):
        print(
            f"  {name}: {side['prompt_tokens']} prompt tokens evaluated, "
            f"{side['wall']:.1f} s wall, {side['llama_seconds']:.1f} s inside llama.cpp"
        )
    print(
        f"  ratio reuse/whole: prompt tokens {reused['prompt_tokens'] / whole['prompt_tokens']:.2f}"
        f", wall {reused['wall'] / whole['wall']:.2f}, "
        f"llama.cpp time {reused['llama_seconds'] / whole['llama_seconds']:.2f}"
    )
    same = sum(1 for sha, reply in whole["replies"].items() if reused["replies"][sha] == reply)
    print(f"  replies identical both ways: {same} of {len(prompts)}")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
