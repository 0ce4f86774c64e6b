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
    args = parser.parse_args(argv)
    if args.command == "draw":
        return draw(args.cases, args.n, args.seed, args.out)
    return summary(args.judged)


if __name__ == "__main__":
    raise SystemExit(main())
