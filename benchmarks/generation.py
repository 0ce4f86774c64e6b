"""Generation benchmark: tokens/s through the pipeline (generate_records) against raw
xllamacpp on prompts of the same shape in the same run, and identical prompts merged.

`python -m benchmarks.generation [--generator local:qwen2.5-0.5b] [--rounds 2]
[--prompt-sizes]`. Each pipeline step generates one record and its identical twin.
With --prompt-sizes it also times one k=3 and one k=8 prompt of 1,000-character chunks,
the figure that decides a preset's generator.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import load_generator
from ragaudit.runner.generate import build_messages, generate_records

_WORDS = (
    "the site team shall review each inspection record and confirm that the maintenance "
    "schedule for every asset follows the current operating procedure before any change is "
    "approved by the regional safety office under the standing quality policy"
).split()


def _chunk_text(rng: random.Random, length: int, fact: str | None = None) -> str:
    sentences: list[str] = []
    while len(" ".join(sentences)) < length:
        sentences.append(" ".join(rng.choice(_WORDS) for _ in range(12)).capitalize() + ".")
    text = " ".join(sentences)[: length - (len(fact) + 1 if fact else 0)]
    return f"{text} {fact}" if fact else text


def _records(distinct: int, duplicates: int, k: int, length: int, seed: int) -> tuple:
    """Records whose prompts are `distinct` different ones, plus `duplicates` copies."""
    rng = random.Random(seed)
    chunks: dict = {}
    records = []
    for i in range(distinct):
        ids = []
        for j in range(k):
            chunk_id = f"bench-{seed}/doc-{i}-{j}#0"
            fact = f"Site S-{i} is inspected every {30 + i} days." if j == 0 else None
            chunks[chunk_id] = {"text": _chunk_text(rng, length, fact)}
            ids.append(chunk_id)
        records.append(
            {
                "key": f"bench/{i}/B",
                "probe": "bench",
                "config": "B",
                "question": f"How often is site S-{i} inspected?",
                "retrieved": [{"chunk_id": c, "rank": r + 1} for r, c in enumerate(ids)],
            }
        )
    for d in range(duplicates):
        copy = dict(records[d % distinct], key=f"bench/dup-{d}/C", config="C")
        records.append(copy)
    return records, chunks


def _tokens(timings: dict | None) -> tuple[int, float]:
    """(tokens evaluated + generated, seconds llama.cpp itself spent) for one call."""
    timings = timings or {}
    tokens = int(timings.get("prompt_n", 0)) + int(timings.get("predicted_n", 0))
    seconds = (float(timings.get("prompt_ms", 0)) + float(timings.get("predicted_ms", 0))) / 1000
    return tokens, seconds


def _raw_call(engine, messages: list[dict], params: dict) -> tuple[float, tuple[int, float]]:
    """Seconds and tokens (evaluated prompt + generated) for one call straight to xllamacpp."""
    body = engine.request_body(messages, engine.effective_params(dict(params)))
    started = time.perf_counter()
    response = engine._server.handle_chat_completions(body)
    return time.perf_counter() - started, _tokens(response.get("timings"))


def _pipeline_call(spec: str, records: list[dict], chunks: dict, params: dict) -> tuple:
    """Seconds, tokens and generate_records counts with a fresh cache (all computed)."""
    with tempfile.TemporaryDirectory() as folder:
        cache = CallCache(os.path.join(folder, "cache.sqlite"))
        generator = load_generator(spec, cache=cache)
        tokens: list[tuple[int, float]] = []
        started = time.perf_counter()
        counts = generate_records(
            records,
            chunks,
            generator,
            gen_configs=["B", "C"],
            params=params,
            progress=lambda done, total, replayed: tokens.append(
                _tokens(generator.engine.last_timings)
            ),
        )
        elapsed = time.perf_counter() - started
        started = time.perf_counter()
        replay = generate_records(records, chunks, generator, gen_configs=["B", "C"], params=params)
        replay["seconds"] = time.perf_counter() - started
        cache.close()
    return elapsed, (sum(t for t, _ in tokens), sum(m for _, m in tokens)), counts, replay


def _prompt_sizes(spec: str, engine, params: dict) -> None:
    rng = random.Random(99)
    effective = engine.effective_params(dict(params))
    for k in (3, 8):
        chunks = [
            {"chunk_id": f"c{j}", "text": _chunk_text(rng, 1000, "Site S-1 closes at 18:00.")}
            for j in range(k)
        ]
        messages = build_messages("When does site S-1 close?", chunks)
        started = time.perf_counter()
        response = engine._server.handle_chat_completions(engine.request_body(messages, effective))
        elapsed = time.perf_counter() - started
        usage = response.get("usage") or {}
        print(
            f"  {spec} k={k} (1,000-char chunks): {elapsed:.1f} s, "
            f"{usage.get('prompt_tokens')} prompt + {usage.get('completion_tokens')} "
            "generated tokens"
        )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.generation")
    parser.add_argument("--generator", default="local:qwen2.5-0.5b")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--distinct", type=int, default=3, help="prompt pairs per round")
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--prompt-sizes", action="store_true")
    args = parser.parse_args(argv or [])
    params = {"max_tokens": args.max_tokens}
    with tempfile.TemporaryDirectory() as folder:
        loaded = load_generator(args.generator, cache=CallCache(os.path.join(folder, "c.sqlite")))
    engine = loaded.engine
    if not hasattr(engine, "_server"):
        print(f"{args.generator}: not an in-process llama.cpp generator; nothing to compare")
        return 2
    raw, pipe, merged = _measure(args, engine, params)
    if raw[0] and pipe[0]:
        _report(args, raw, pipe, merged)
    if args.prompt_sizes:
        _prompt_sizes(args.generator, engine, params)
    return 0


def _measure(args: argparse.Namespace, engine, params: dict) -> tuple[list, list, dict]:
    """Raw and pipeline totals [wall seconds, tokens, seconds inside llama.cpp], and what
    the pipeline merged and replayed."""
    raw = [0.0, 0, 0.0]
    pipe = [0.0, 0, 0.0]
    merged = {"records": 0, "prompts": 0, "replayed": 0, "replay_seconds": 0.0}
    _raw_call(engine, build_messages("warm up", [{"chunk_id": "w", "text": "w"}]), params)
    for i in range(args.rounds * args.distinct):
        # Raw and pipeline alternate prompt by prompt (and who goes first), so load from
        # other work on the machine falls on both alike; texts differ so llama.cpp's slot
        # cache never reuses a whole prompt.
        x_records, x_chunks = _records(1, 0, 3, 600, seed=1000 + i)
        y_records, y_chunks = _records(1, 1, 3, 600, seed=2000 + i)
        x = x_records[0]
        x_messages = build_messages(
            x["question"],
            [dict(chunk_id=h["chunk_id"], **x_chunks[h["chunk_id"]]) for h in x["retrieved"]],
        )
        order = ("raw", "pipe") if i % 2 == 0 else ("pipe", "raw")
        for side in order:
            if side == "raw":
                seconds, (tokens, inside) = _raw_call(engine, x_messages, params)
                raw[0], raw[1], raw[2] = raw[0] + seconds, raw[1] + tokens, raw[2] + inside
            else:
                seconds, (tokens, inside), counts, replay = _pipeline_call(
                    args.generator, y_records, y_chunks, params
                )
                pipe[0], pipe[1], pipe[2] = pipe[0] + seconds, pipe[1] + tokens, pipe[2] + inside
                merged["records"] += counts["records"]
                merged["prompts"] += counts["prompts"]
                merged["replayed"] += replay["replayed"]
                merged["replay_seconds"] += replay["seconds"]
    return raw, pipe, merged


def _report(args: argparse.Namespace, raw: list, pipe: list, merged: dict) -> None:
    """Print tokens/s of both sides, their share of time inside llama.cpp, and the overhead."""
    raw_rate, pipe_rate = raw[1] / raw[0], pipe[1] / pipe[0]
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"generation bench: {args.generator}, max_tokens {args.max_tokens}, load {load}")
    print(f"  raw xllamacpp: {raw[1]} tokens in {raw[0]:.1f} s = {raw_rate:.1f} tok/s")
    print(
        f"  pipeline (generate_records): {pipe[1]} tokens in {pipe[0]:.1f} s "
        f"= {pipe_rate:.1f} tok/s"
    )
    print(f"  ratio pipeline/raw, tokens/s: {pipe_rate / raw_rate:.2f} (target >= 0.90)")
    # The prompts differ between the sides (so llama.cpp's prompt cache cannot serve one
    # from the other), and under load per-call speed swings widely; the share of wall time
    # spent inside llama.cpp is immune to both, so it is the fairer ratio.
    raw_share, pipe_share = raw[2] / raw[0], pipe[2] / pipe[0]
    print(
        f"  time inside llama.cpp: raw {raw_share:.3f}, pipeline {pipe_share:.3f} of wall time; "
        f"ratio {pipe_share / raw_share:.3f} (target >= 0.90)"
    )
    print(
        f"  identical prompts generated once: {merged['records']} records, "
        f"{merged['prompts']} prompts generated; rerun replayed {merged['replayed']} from cache"
    )
    # Replay runs everything but the model (prompt, hashing, cache, parsing): its cost per
    # prompt bounds the pipeline's overhead independently of machine load.
    overhead = merged["replay_seconds"] / max(1, merged["replayed"])
    per_prompt = raw[0] / max(1, args.rounds * args.distinct)
    print(
        f"  pipeline overhead per prompt (replay): {overhead * 1000:.1f} ms, against "
        f"{per_prompt:.1f} s per raw generation = {overhead / per_prompt:.4f} of a call"
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
