"""`python -m benchmarks.ray_scaling`: throughput through `--executor ray` against a
simulated remote generator as the Ray workers grow (1, 2, 4, 8 by default).

The remote generator is the stand-in server (tests.helpers.stand_in: Ollama's API, a fixed
delay per call, `--slots` calls served at once: its parallel capacity C). One local Ray
cluster is started for the whole bench. For each worker count W, under a Ray executor with
W workers, a cache-aware generator front (`load_generator("ollama:stand-in-chat")` over a
fresh call cache, so every call is computed) asks `--calls` distinct chat prompts through
`generate_each`. The pool is warmed up first, outside the timed part: created, and every
worker has answered once (a front's first call goes alone; actors take seconds to start),
so the figures are steady throughput. Printed per W: calls/s, the ratio to W=1, the ideal
min(W, C), that ratio as a fraction of linear, and the peak of calls the server saw in
flight; then whether every W <= C is within 15% of linear, and whether each W's replies
equal W=1's (one sha256 of the replies in order). Last, as plain text, the commands a real
multi-host run would need beyond this one-machine simulation.

Exit status 1 when a W's replies differ from W=1's or a call failed; else 0.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.concurrency import _prompts, _sweep, sweep_arguments
from benchmarks.ray_fanout import replies_sha256
from ragaudit.backends.cache import CallCache
from ragaudit.backends.executors import check_executor, executor_scope
from ragaudit.backends.specs import load_generator
from ragaudit.errors import RagauditError
from ragaudit.results.format import fmt_digest, percent
from tests.helpers.stand_in import CHAT_MODEL, StandInProcess, start_stand_in

CHAT_SPEC = f"ollama:{CHAT_MODEL}"
LINEAR_WITHIN = 0.15
"""The goal: up to C workers, throughput within this fraction of linear."""
CLUSTER_CPUS = 2
"""The local cluster's CPUs. An actor needs one CPU to be placed and none to run (Ray's
default), so 8 workers fit; the machine's cores are left to whatever else runs on it."""

HEAD_RUN = "ragaudit run --executor ray --ray-address auto --ray-workers N"
"""The driver's command on the head of a multi-host cluster (N: workers per model)."""
MULTI_HOST = (
    "What a real multi-host run would need beyond this (the commands; not measured here):",
    "  every host: the same Python and ragaudit version, `pip install 'ragaudit[ray]'` (Ray "
    "2.60.0 everywhere), and the model packages of any local: spec (each worker loads its own "
    "copy); Ray ships no code here, a worker imports the installed ragaudit",
    "  head: `ray start --head --port 6379` (it prints the address workers join)",
    "  each worker host: `OLLAMA_HOST=http://<model server>:11434 ray start --address "
    "<head>:6379` (a worker reads OLLAMA_HOST, or OPENAI_BASE_URL and the API key, from the "
    "environment `ray start` had there: the model server must be reachable from every worker)",
    "  token auth: a head that finds ~/.ray/auth_token turns it on (Ray makes that file for any "
    "local ray.init cluster); then `ray get-auth-token` on the head, and RAY_AUTH_MODE=token "
    "RAY_AUTH_TOKEN=<token> in each worker's `ray start` environment",
    f"  head: `{HEAD_RUN} ...` (auto joins the cluster `ray start` made on this host; "
    "--ray-workers: workers per model, default one per CPU of the cluster, for a local LLM "
    "one per RAGAUDIT_LLM_THREADS CPUs; every worker runs llama.cpp at the head's thread "
    "count, which the replies depend on, whatever cores its host has)",
    "  the data folder (corpus, cache.sqlite, results/) only on the head: the driver alone "
    "reads and writes the call cache and the results; workers only compute",
    "  afterwards: `ray stop` on every host",
)


def linear_figures(rows: list[dict], slots: int) -> list[dict]:
    """Each sweep row (workers, rate, ratio to the first row) with `ideal`, min(workers,
    slots), the ratio linear scaling reaches up to the server's capacity, and `of_linear`,
    the measured ratio as a fraction of it."""
    figures = []
    for row in rows:
        ideal = min(row["workers"], slots)
        figures.append({**row, "ideal": ideal, "of_linear": row["ratio"] / ideal})
    return figures


def near_linear(rows: list[dict], slots: int) -> bool:
    """Whether every row with workers <= slots is within LINEAR_WITHIN of linear."""
    return all(
        abs(row["of_linear"] - 1) <= LINEAR_WITHIN for row in rows if row["workers"] <= slots
    )


def _warm_up(generator, executor, workers: int) -> None:
    """Create the pool and have every worker answer once: the first call goes alone (the
    front's opening), the next 2W-1 are cut into W runs, one or two for each worker."""
    replies = list(generator.generate_each(_prompts(2 * workers, f"warm-up w{workers}"), workers=1))
    if any(not hasattr(reply, "text") for reply in replies):
        raise SystemExit(f"warm-up at W={workers}: a call failed: {replies}")
    if len(set(executor.pool(generator.recipe).pids())) != workers:
        raise SystemExit(f"warm-up at W={workers}: not {workers} live workers")


def _on_ray(replies: dict) -> Callable[[StandInProcess, Path, int, int], float]:
    """The timed run for concurrency's sweep: seconds for `calls` prompts on W Ray workers,
    after the warm-up; the replies' (sha256, failed count) go into `replies` under W."""

    def timed(server: StandInProcess, folder: Path, calls: int, workers: int) -> float:
        with executor_scope("ray", workers=workers) as executor:
            cache = CallCache(folder / "calls.sqlite")
            generator = load_generator(CHAT_SPEC, cache, host=server.url)
            _warm_up(generator, executor, workers)
            server.reset()  # the peak and counts of the timed calls alone
            started = time.perf_counter()
            # workers=1: a call that missed Ray would run serially and show as no scaling
            answers = list(generator.generate_each(_prompts(calls, "scaling"), workers=1))
            seconds = time.perf_counter() - started
        replies[workers] = replies_sha256(answers)[:2]
        return seconds

    return timed


def measure(slots: int, delay: float, calls: int, workers: list[int]) -> tuple[list, dict]:
    """The sweep's rows with their linear figures, and {W: (replies sha256, failed)}: the
    stand-in server and one local Ray cluster (unless one is joined already) for all W."""
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=CLUSTER_CPUS, include_dashboard=False, log_to_driver=False)
    server = start_stand_in(slots=slots, delay=delay)
    replies: dict[int, tuple[str, int]] = {}
    try:
        rows = _sweep(server, _on_ray(replies), calls, workers)
    finally:
        server.stop()
        if started:
            ray.shutdown()
    return linear_figures(rows, slots), replies


def _print_results(rows: list[dict], replies: dict, slots: int) -> bool:
    """Print the per-W lines and the two verdicts; whether the replies all agree."""
    base = rows[0]["workers"]
    for row in rows:
        digest, failed = replies[row["workers"]]
        same = "identical" if digest == replies[base][0] else "DIFFERENT"
        print(
            f"  W={row['workers']}: {row['seconds']:.2f} s, {row['rate']:.1f} calls/s, "
            f"{row['ratio']:.2f}x W={base}, ideal {row['ideal']}x (min(W, C)): "
            f"{percent(row['of_linear'])}% of linear; peak {row['peak']} in flight; "
            f"replies {fmt_digest(digest)} {same}" + (f", {failed} failed" if failed else "")
        )
    upto = [r for r in rows if r["workers"] <= slots]
    verdict = "yes" if near_linear(rows, slots) else "NO"
    shown = ", ".join(f"W={r['workers']} {percent(r['of_linear'])}%" for r in upto)
    print(f"every W <= C={slots} within 15% of linear: {verdict} ({shown})")
    agree = all(d == replies[base][0] and not f for d, f in replies.values())
    others = "every W's replies equal" if agree else "NOT every W's replies equal"
    print(f"replies: {others} W={base}'s (sha256 {fmt_digest(replies[base][0])})")
    return agree


def main(argv: list[str]) -> int:
    """Run the sweep on one local Ray cluster, print it, then the multi-host commands."""
    parser = sweep_arguments("python -m benchmarks.ray_scaling")
    args = parser.parse_args(argv)
    if args.workers[0] != 1 or min(args.workers) < 1:
        parser.error("--workers: the first count is the baseline and must be 1")
    try:
        check_executor("ray")
    except RagauditError as error:
        print(error)
        return 2
    print(
        f"stand-in generator: C={args.slots} calls at once, {args.delay * 1000:.0f} ms per call; "
        f"one local Ray cluster (num_cpus={CLUSTER_CPUS}); per W a fresh call cache and "
        f"{args.calls} distinct prompts through {CHAT_SPEC} generate_each, timed after a "
        "warm-up (pool created, every worker answered once) so the figures are steady "
        "throughput",
        flush=True,
    )
    rows, replies = measure(args.slots, args.delay, args.calls, args.workers)
    agree = _print_results(rows, replies, args.slots)
    print("\n".join(MULTI_HOST))
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
