"""`python -m benchmarks.gate`: the regression gate's figures, each beside its baseline
measured in the same run.

1. Gate time on two n=25 files (the shipped reference against itself, every cell gated),
   each command in its own process as CI runs it, beside the time to load the two files
   alone (in this process) and `ragaudit compare` on the same pair (its own process).
   Goal: <= 2 s.
2. The detectable-drop table (80% power, alpha 0.05, every instance passing in the
   baseline) for the gate's one-sided test, beside the two-sided McNemar `compare` uses.
3. The verdict on a real regression (the reference's B → A_prime on boundary) and on a real
   non-regression (`--rerun FILE`: B rerun with generation under another llama.cpp thread
   count), each beside compare's two-sided p on the same flips.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

from ragaudit.analysis.stats import mcnemar_exact
from ragaudit.gating.power import detectable_drop
from ragaudit.gating.summary import fmt_points
from ragaudit.results.format import fmt_p
from ragaudit.results.reference import REFERENCE_FILE

ALPHA = 0.05


def _quiet(argv: list[str]) -> tuple[int, str]:
    """`ragaudit ARGV` as a CI job runs it: its own process (start-up included)."""
    done = subprocess.run(
        [sys.executable, "-m", "ragaudit", *argv], capture_output=True, text=True, check=False
    )
    return done.returncode, done.stdout + done.stderr


def _seconds(fn, repeat: int) -> float:
    return statistics.median(timeit.repeat(fn, repeat=repeat, number=1))


def bench_time(base: Path, new: Path, repeat: int) -> None:
    from ragaudit.results.io import load_results

    load = _seconds(lambda: (load_results(base), load_results(new)), repeat)
    gate = _seconds(
        lambda: _quiet(["gate", "--baseline", str(base), "--results", str(new)]), repeat
    )
    with tempfile.TemporaryDirectory() as out:
        compare = _seconds(lambda: _quiet(["compare", str(base), str(new), "--out", out]), repeat)
    itself = " (the n=25 reference against itself)" if base == new == REFERENCE_FILE else ""
    print(f"1. gate time, {base.name} against {new.name}{itself} (median of {repeat}):")
    print(
        f"   ragaudit gate (every cell)  {gate:6.2f} s   goal <= 2 s: {'met' if gate <= 2 else 'NOT met'}"  # noqa: E501
    )
    print(f"   baseline: load both files   {load:6.2f} s   (gate / load = {gate / load:.2f})")
    print(
        f"   baseline: ragaudit compare  {compare:6.2f} s   (gate / compare = {gate / compare:.2f})"
    )


def _two_sided_d(n: int) -> float | None:
    """The detectable d for the two-sided exact test: L losses, no gains, p = 2 (1/2)^L."""
    need = math.ceil(math.log2(2 / ALPHA) - 1e-12)
    if need > n:
        return None
    low, high = 0.0, 1.0
    while high - low > 1e-9:
        mid = (low + high) / 2
        tail = 1 - sum(math.comb(n, k) * mid**k * (1 - mid) ** (n - k) for k in range(need))
        low, high = (low, mid) if tail >= 0.8 else (mid, high)
    return high


def bench_table() -> None:
    print(f"2. smallest drop detectable with 80% power at alpha {ALPHA} (all n pass before):")
    print("   n     gate (one-sided)        baseline: two-sided McNemar")
    for n in (5, 25, 100):
        found = detectable_drop(n, n, ALPHA)
        two = _two_sided_d(n)
        twos = "none possible" if two is None else f"{fmt_points(100 * two)} pts (d={two:.3f})"
        print(f"   {n:<5} {fmt_points(found.points)} pts (d={found.d:.3f})    {twos}")


def _verdict(label: str, argv: list[str], flips: tuple[int, int] | None) -> None:
    code, out = _quiet(["gate", *argv])
    print(f"   {label}: exit {code}")
    for line in out.splitlines():
        print(f"     {line}")
    if flips is not None:
        losses, gains = flips
        two_sided = fmt_p(mcnemar_exact(gains, losses))
        print(f"     baseline: compare's two-sided p on the same flips = {two_sided}")


def bench_verdicts(reference: Path, rerun: Path | None) -> None:
    print("3. verdicts")
    regression = ["--baseline", str(reference), "--results", str(reference)]
    _verdict(
        "regression: reference B → A_prime, boundary (n=25)",
        [*regression, "--pair", "B=A_prime", "--cells", "boundary:B"],
        (6, 1),
    )
    if rerun is None or not rerun.exists():
        print(f"   non-regression: not measured (no rerun file: {rerun})")
        return
    _verdict(
        f"non-regression: reference B (llama.cpp 2 threads) → {rerun.name}",
        ["--baseline", str(reference), "--results", str(rerun), "--pair", "B=B"],
        None,
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gate")
    parser.add_argument("--reference", type=Path, default=REFERENCE_FILE)
    parser.add_argument("--rerun", type=Path, default=None, help="B rerun, another thread count")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    bench_time(args.reference, args.reference, args.repeat)
    bench_table()
    bench_verdicts(args.reference, args.rerun)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
