"""Judge throughput with `--workers N` against `--workers 1`: `ragaudit judges` on the same
records from an empty data folder each time (nothing replays), timed end to end.

- `--target stand-in` (default): the scripted judge (tests/helpers/judge_stand_in.py) with 4 slots,
  each call answered after `--delay` seconds, as on a server with four parallel sequences;
- `--target local:qwen2.5-0.5b` (or -1.5b): the llama.cpp server ragaudit starts, with as
  many slots as workers, on this machine's cores. Run it under the model lock:
  `flock /tmp/ragaudit-model.lock python -m benchmarks.judges --target local:qwen2.5-0.5b`.

Prints evaluations per minute at each worker count and the ratio to one worker.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ragaudit.results.reference import REFERENCE_FILE
from tests.helpers.judge_stand_in import start_judge_server


def _timed(judge: list[str], workers: int, records: int, metrics: list[str]) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory(prefix="ragaudit-bench-judges-") as home:
        env = {**os.environ, "RAGAUDIT_HOME": home}
        command = [sys.executable, "-m", "ragaudit", "judges", "--results", str(REFERENCE_FILE)]
        command += [*judge, "--workers", str(workers), "--per-group", "1"]
        command += ["--max-records", str(records)]
        for metric in metrics:
            command += ["--metric", metric]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"ragaudit judges failed ({done.returncode}): {done.stderr[-800:]}")
        card = json.loads((Path(home) / "results" / "judges.json").read_text())
    return seconds, card


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.judges")
    parser.add_argument("--target", default="stand-in")
    parser.add_argument("--records", type=int, default=6)
    parser.add_argument("--delay", type=float, default=0.5, help="stand-in seconds per call")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--metric", action="append", default=None)
    args = parser.parse_args(argv)
    metrics = args.metric or ["ragas:faithfulness", "deepeval:faithfulness"]
    server = None
    if args.target == "stand-in":
        server = start_judge_server("good", slots=4, delay=args.delay)
        judge = ["--judge", "openai:scripted-judge", "--base-url", server.base_url]
        where = f"the 4-slot stand-in ({args.delay:g} s a call)"
    else:
        judge = ["--judge", args.target]
        where = f"{args.target} (llama.cpp, slots = workers)"
    rows = []
    try:
        for workers in args.workers:
            seconds, card = _timed(judge, workers, args.records, metrics)
            evaluations = len(card["evaluations"])
            calls = card["conditions"]["calls"]["computed"]
            judging = card["conditions"]["elapsed_seconds"]  # without the imports
            rows.append((workers, seconds, evaluations, calls, judging))
    finally:
        if server is not None:
            server.stop()
    base, base_judging = rows[0][2] / rows[0][1], rows[0][2] / rows[0][4]
    print(f"judge throughput through {where}: {args.records} records x {', '.join(metrics)}")
    for workers, seconds, evaluations, calls, judging in rows:
        rate, judging_rate = evaluations / seconds, evaluations / judging
        print(
            f"  --workers {workers}: {evaluations} evaluations ({calls} judge calls) in "
            f"{seconds:.1f} s = {rate * 60:.1f}/min, x{rate / base:.2f} of --workers "
            f"{rows[0][0]}; judging alone (after the imports) {judging:.1f} s, "
            f"x{judging_rate / base_judging:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
