"""`python -m benchmarks.concurrency`: --workers against a server with parallel slots.

A stand-in server (tests.helpers.stand_in: Ollama's API, a fixed delay per call, a fixed
number of slots, standing in for a GPU server) answers every call. Through ragaudit's own
cache-aware wrappers, with a fresh cache each time (every call computed), it times
generation (`generate_each`, one prompt per call) and embedding (`stack.index.embed_texts`,
as a run embeds its passages: 64 texts at a time, one request per engine batch) at each
--workers count, and prints the wall time, calls/s and the ratio to
--workers 1 (the goal at 4 workers and 4 slots: at least 3.5x; beyond the slot count,
flat), with the peak of calls the server saw in flight at once. The first call of a
wrapper goes alone (a server is asked one call at a time until it has answered one), so
--calls sets how far that one serial call is amortised. Then the wrapper's own
cost per call: the same serial calls through the wrapper and through the raw ollama
client against a zero-delay stand-in, in alternating rounds (the machine is shared).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import load_embedder, load_generator
from ragaudit.stack.index import embed_texts
from tests.helpers.stand_in import CHAT_MODEL, EMBED_MODEL, StandInProcess, start_stand_in

GOAL_AT_SLOTS = 3.5
FLAT = 0.15
"""Beyond the slot count, calls/s within this fraction of the slot count's is flat."""


def _prompts(calls: int, tag: str) -> list[tuple[list[dict], None]]:
    return [([{"role": "user", "content": f"{tag} question {i}"}], None) for i in range(calls)]


def _generation_seconds(server: StandInProcess, folder: Path, calls: int, workers: int) -> float:
    generator = load_generator(
        f"ollama:{CHAT_MODEL}", CallCache(folder / "g.sqlite"), host=server.url
    )
    requests = _prompts(calls, f"w{workers}")
    started = time.perf_counter()
    replies = list(generator.generate_each(requests, workers=workers))
    seconds = time.perf_counter() - started
    assert len(replies) == calls and generator.cache.stats()["computed"] == calls
    return seconds


def _embedding_seconds(server: StandInProcess, folder: Path, calls: int, workers: int) -> float:
    cache = CallCache(folder / "e.sqlite")
    embedder = load_embedder(f"ollama:{EMBED_MODEL}", cache, host=server.url, workers=workers)
    texts = [f"w{workers} passage {i}" for i in range(calls * embedder.engine.batch_size)]
    started = time.perf_counter()
    vectors, errors = embed_texts(embedder, texts)
    seconds = time.perf_counter() - started
    assert not errors and len(vectors) == len(texts) == cache.stats()["computed"]
    return seconds


def _sweep(server: StandInProcess, timed: Callable, calls: int, workers: list[int]) -> list[dict]:
    """One row per --workers count: seconds, calls/s, ratio to the first, server peak."""
    rows = []
    for count in workers:
        server.reset()
        with tempfile.TemporaryDirectory() as folder:
            seconds = timed(server, Path(folder), calls, count)
        peak = server.stats()["peak_in_flight"]
        rows.append({"workers": count, "seconds": seconds, "rate": calls / seconds, "peak": peak})
    for row in rows:
        row["ratio"] = row["rate"] / rows[0]["rate"]
    return rows


def _overhead_ms(calls: int, rounds: int) -> tuple[float, float]:
    """Per call, serial, zero-delay server: (raw client ms, wrapper ms), medians of rounds."""
    import ollama

    server = start_stand_in(slots=1, delay=0.0)
    raw_ms, wrapper_ms = [], []
    try:
        client = ollama.Client(host=server.url)
        client.chat(model=CHAT_MODEL, messages=[{"role": "user", "content": "warm up"}])
        with tempfile.TemporaryDirectory() as folder:
            for index in range(rounds):
                requests = _prompts(calls, f"round{index}")
                started = time.perf_counter()
                for messages, _ in requests:
                    client.chat(model=CHAT_MODEL, messages=messages)
                raw_ms.append((time.perf_counter() - started) * 1000 / calls)
                cache = CallCache(Path(folder) / f"o{index}.sqlite")
                generator = load_generator(f"ollama:{CHAT_MODEL}", cache, host=server.url)
                started = time.perf_counter()
                list(generator.generate_each(requests, workers=1))
                wrapper_ms.append((time.perf_counter() - started) * 1000 / calls)
    finally:
        server.stop()
    return sorted(raw_ms)[rounds // 2], sorted(wrapper_ms)[rounds // 2]


def _print_rows(title: str, rows: list[dict], calls: int, slots: int) -> None:
    print(f"{title}: {calls} calls")
    for row in rows:
        print(
            f"  --workers {row['workers']}: {row['seconds']:.2f} s, {row['rate']:.1f} calls/s, "
            f"{row['ratio']:.2f}x --workers {rows[0]['workers']}, peak {row['peak']} in flight"
        )
    at_slots = next((r for r in rows if r["workers"] == slots), None)
    beyond = [r for r in rows if r["workers"] > slots]
    if at_slots is not None:
        met = "met" if at_slots["ratio"] >= GOAL_AT_SLOTS else "NOT met"
        print(f"  at {slots} workers: {at_slots['ratio']:.2f}x (goal >= {GOAL_AT_SLOTS}x: {met})")
        for row in beyond:
            change = row["rate"] / at_slots["rate"] - 1
            flat = "flat" if abs(change) <= FLAT else "NOT flat"
            print(f"  {row['workers']} workers vs {slots}: {change:+.0%} calls/s ({flat})")


def sweep_arguments(prog: str) -> argparse.ArgumentParser:
    """The stand-in server's capacity and delay, and the worker counts swept over it (shared
    with benchmarks.ray_scaling, which sweeps the same server over Ray workers)."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--slots", type=int, default=4, help="the server's capacity C")
    parser.add_argument("--delay", type=float, default=0.1, help="seconds the server takes")
    parser.add_argument("--calls", type=int, default=96, help="timed calls per worker count")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
    return parser


def main(argv: list[str]) -> int:
    """Print the sweep for generation and embedding, then the wrapper's overhead."""
    parser = sweep_arguments("python -m benchmarks.concurrency")
    parser.add_argument("--overhead-calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"stand-in server: {args.slots} slots, {args.delay * 1000:.0f} ms per call")
    server = start_stand_in(slots=args.slots, delay=args.delay)
    try:
        for title, timed in (
            ("generation (one prompt per call)", _generation_seconds),
            ("embedding (as a run embeds passages: one request per 16 texts)", _embedding_seconds),
        ):
            _print_rows(
                title, _sweep(server, timed, args.calls, args.workers), args.calls, args.slots
            )
    finally:
        server.stop()
    raw, wrapper = _overhead_ms(args.overhead_calls, args.rounds)
    print(
        f"wrapper overhead (zero-delay server, serial, median of {args.rounds} rounds of "
        f"{args.overhead_calls} calls): {wrapper - raw:+.2f} ms per call "
        f"(raw ollama client {raw:.2f} ms, through the cache-aware wrapper {wrapper:.2f} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
