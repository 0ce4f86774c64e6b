from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import yaml

from ragaudit.analysis.stats import wilson_interval
from ragaudit.results.format import fmt_interval, fmt_ratio

REASONS = ("right", "natural", "unambiguous", "answerable")


def draw(cases: Path, n: int, seed: int, out: Path) -> int:
    document = yaml.safe_load(cases.read_text(encoding="utf-8"))
    intents = document["intents"]
    drawn = random.Random(seed).sample(intents, min(n, len(intents)))
    entries = [
        {
            "intent": i["intent"], "source": i["provenance"]["source"]["doc_id"],
            "sentence": i["provenance"]["source"]["sentence"], "answer": i["answer"],
            "anchor": i["anchor"], "phrasings": i["phrasings"],
            "valid": None, "failed": [], "why": None,
        }
        for i in drawn
    ]  # fmt: skip
    header = {"cases": str(cases), "drawn": len(entries), "of": len(intents), "seed": seed,
              "rubric": "benchmarks/cases_precision/RUBRIC.md"}  # fmt: skip
    out.write_text(yaml.safe_dump({"draw": header, "judgements": entries}, sort_keys=False,
                                  allow_unicode=True, width=100), encoding="utf-8")  # fmt: skip
    print(f"drew {len(entries)} of {len(intents)} kept cases (seed {seed}) into {out}")
    return 0


def summary(judged: Path) -> int:
    document = yaml.safe_load(judged.read_text(encoding="utf-8"))
    entries = document["judgements"]
    open_ = [e["intent"] for e in entries if e["valid"] is None]
    if open_:
        print(f"{len(open_)} cases not judged yet: {', '.join(open_[:5])}", file=sys.stderr)
        return 2
    valid = sum(1 for e in entries if e["valid"])
    print(f"valid: {fmt_ratio(valid, len(entries))} "
          f"{fmt_interval(wilson_interval(valid, len(entries)))} (Wilson 95%)")  # fmt: skip
    for e in entries:
        if not e["valid"]:
            print(f"  invalid {e['intent']}: {', '.join(e['failed'])}: {e['why']}")
    return 0


def funnel(cases: Path) -> int:
    """The facts left after each check, in the order the checks run, the calls and the
    wall time per kept case, and the phrasings' languages as the detector reads them."""
    from collections import Counter

    from ragaudit.casemining.verify import REASONS

    document = yaml.safe_load(cases.read_text(encoding="utf-8"))
    counts, made = document["counts"], document["generated_by"]
    left = counts["checked"]
    print(f"{cases}: {counts['candidates']} facts mined from {made['corpus']['documents']} "
          f"documents; {counts['checked']} checked")  # fmt: skip
    left -= counts["unverified"]
    print(f"  unverified (a failed call): {counts['unverified']} -> {left}")
    for reason in REASONS:
        dropped = counts["rejected"].get(reason, 0)
        left -= dropped
        print(f"  {reason:24} -{dropped:<4} -> {left}")
    kept = counts["kept"]
    print(
        f"  kept {kept}; known without context {fmt_ratio(counts['known_without_context'], kept)}"
    )
    calls = made.get("calls") or {}
    total = sum(v for k, v in calls.items() if k in ("computed", "replayed", "failed"))
    seconds = made["elapsed_seconds"]
    print(f"  calls: {calls}; wall {seconds:.0f} s, {seconds / max(kept, 1):.0f} s per kept case, "
          f"{total / max(kept, 1):.1f} calls per kept case")  # fmt: skip
    read = Counter(
        lang
        for i in document["intents"]
        for lang in i["provenance"]["checks"].get("language", {}).get("phrasings", [])
    )
    print(f"  phrasings of kept cases as the detector reads them: {dict(read)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cases_precision")
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw")
    d.add_argument("cases", type=Path)
    d.add_argument("--n", type=int, default=40)
    d.add_argument("--seed", type=int, default=44)
    d.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("summary")
    s.add_argument("judged", type=Path)
    f = sub.add_parser("funnel")
    f.add_argument("cases", type=Path)
    args = parser.parse_args(argv)
    if args.command == "funnel":
        return funnel(args.cases)
    if args.command == "draw":
        return draw(args.cases, args.n, args.seed, args.out)
    return summary(args.judged)


if __name__ == "__main__":
    raise SystemExit(main())
