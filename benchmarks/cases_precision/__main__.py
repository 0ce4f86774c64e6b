from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import yaml

from ragaudit.analysis.stats import wilson_interval
from ragaudit.results.format import fmt_interval, fmt_ratio

REASONS = ("right", "natural", "unambiguous", "answerable")


def _same_case(judgement: dict) -> tuple:
    """What makes a judged case the same case: its intent, answer, source and phrasings."""
    return (judgement["intent"], judgement["answer"], judgement["source"],
            tuple(judgement["phrasings"]))  # fmt: skip


def _judged(files: list[Path]) -> dict[tuple, tuple[dict, str]]:
    """Every judged case of `files`, by _same_case, with the file that judged it."""
    found = {}
    for path in files:
        for e in yaml.safe_load(path.read_text(encoding="utf-8"))["judgements"]:
            if e.get("valid") is not None:
                found.setdefault(_same_case(e), (e, path.name))
    return found


def draw(cases: Path, n: int, seed: int, out: Path, unread: list[Path] | None = None) -> int:
    """A seeded sample of the kept intents; with `unread`, only of those no judged file
    holds: the cases nobody has read, for a figure out of sample for every rule written
    from the readings."""
    document = yaml.safe_load(cases.read_text(encoding="utf-8"))
    intents = document["intents"]
    read = _judged(unread or [])
    if read:
        intents = [i for i in intents if _same_case(_entry(i)) not in read]
    drawn = random.Random(seed).sample(intents, min(n, len(intents)))
    entries = [_entry(i) for i in drawn]
    header = {"cases": str(cases), "drawn": len(entries), "of": len(intents), "seed": seed,
              "rubric": "benchmarks/cases_precision/RUBRIC.md"}  # fmt: skip
    if unread:
        header["unread"] = f"only cases no judgement of {', '.join(p.name for p in unread)} holds"
    out.write_text(yaml.safe_dump({"draw": header, "judgements": entries}, sort_keys=False,
                                  allow_unicode=True, width=100), encoding="utf-8")  # fmt: skip
    print(f"drew {len(entries)} of {len(intents)} kept cases (seed {seed}) into {out}")
    return 0


def _entry(intent: dict) -> dict:
    source = intent["provenance"]["source"]
    return {"intent": intent["intent"], "source": source["doc_id"],
            "sentence": source["sentence"], "answer": intent["answer"],
            "anchor": intent["anchor"], "phrasings": intent["phrasings"],
            "valid": None, "failed": [], "why": None}  # fmt: skip


def carry(drawn: Path, earlier: list[Path]) -> int:
    """Copy the judgement of each drawn case identical to one judged in `earlier` files
    (_same_case), marked `carried_from`; the rest stay open for a fresh reading."""
    document = yaml.safe_load(drawn.read_text(encoding="utf-8"))
    read = _judged(earlier)
    carried = 0
    for e in document["judgements"]:
        found = read.get(_same_case(e))
        if e["valid"] is None and found:
            judgement, name = found
            e.update(valid=judgement["valid"], failed=judgement["failed"], why=judgement["why"],
                     carried_from=name)  # fmt: skip
            carried += 1
    drawn.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100),
                     encoding="utf-8")  # fmt: skip
    print(f"carried {carried} of {len(document['judgements'])} judgements into {drawn}")
    return 0


def summary(files: list[Path]) -> int:
    """valid/n with its Wilson interval and the invalid cases of each judged file; for
    several, each under its name and then pooled (the files must hold different cases)."""
    pooled = [0, 0]
    for judged in files:
        document = yaml.safe_load(judged.read_text(encoding="utf-8"))
        entries = document["judgements"]
        open_ = [e["intent"] for e in entries if e["valid"] is None]
        if open_:
            print(f"{judged}: {len(open_)} cases not judged yet: {', '.join(open_[:5])}",
                  file=sys.stderr)  # fmt: skip
            return 2
        valid = sum(1 for e in entries if e["valid"])
        pooled[0] += valid
        pooled[1] += len(entries)
        name = f"{judged}: " if len(files) > 1 else ""
        print(f"{name}valid: {fmt_ratio(valid, len(entries))} "
              f"{fmt_interval(wilson_interval(valid, len(entries)))} (Wilson 95%)")  # fmt: skip
        for e in entries:
            if not e["valid"]:
                print(f"  invalid {e['intent']}: {', '.join(e['failed'])}: {e['why']}")
    if len(files) > 1:
        print(
            f"pooled: valid {fmt_ratio(*pooled)} {fmt_interval(wilson_interval(*pooled))} "
            "(Wilson 95%)"
        )
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
    read = [i["provenance"]["checks"].get("language", {}).get("phrasings", [])
            for i in document["intents"]]  # fmt: skip
    precise = Counter(langs[0] for langs in read if langs)
    casual = Counter(langs[1] for langs in read if len(langs) > 1)
    print(f"  phrasings of kept cases as the detector reads them: precise {dict(precise)}, "
          f"casual {dict(casual)} (only the precise one is checked)")  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cases_precision")
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw")
    d.add_argument("cases", type=Path)
    d.add_argument("--n", type=int, default=40)
    d.add_argument("--seed", type=int, default=44)
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--unread", type=Path, nargs="+", help="judged files whose cases to leave out")
    c = sub.add_parser("carry")
    c.add_argument("drawn", type=Path)
    c.add_argument("--from", dest="earlier", type=Path, nargs="+", required=True)
    s = sub.add_parser("summary")
    s.add_argument("judged", type=Path, nargs="+")
    f = sub.add_parser("funnel")
    f.add_argument("cases", type=Path)
    args = parser.parse_args(argv)
    if args.command == "funnel":
        return funnel(args.cases)
    if args.command == "draw":
        return draw(args.cases, args.n, args.seed, args.out, args.unread)
    if args.command == "carry":
        return carry(args.drawn, args.earlier)
    return summary(args.judged)


if __name__ == "__main__":
    raise SystemExit(main())
