"""`ragaudit cases --dry-run`: the facts mined (mining is cheap and model-free, so it runs),
then the generator calls the checks would make and their time, told before any model
loads; nothing is generated or written.

How many facts a run checks depends on how many pass: each kept case costs five calls (one
phrasing, two oracle answers, two closed-book answers) or six (its casual phrasing asked
again), a fact dropped early fewer. So the figure is a range: every fact checked kept at
five (the least), and every candidate checked at six (the most). Its time is at the mean
the call cache recorded for the generator."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ragaudit.auditing.corpus_io import as_corpus
from ragaudit.casemining.mine import mine_candidates
from ragaudit.casemining.run import DEFAULT_CASES_GENERATOR, MAX_PER_DOCUMENT
from ragaudit.runner.estimate import generate_estimate, open_cache
from ragaudit.runner.estimate_lines import estimate_lines as call_lines

NOT_TOLD = "cached: not told (which facts are checked, and so asked, depends on earlier replies)"
CALLS_PER_KEPT_CASE = 5
MOST_CALLS_PER_FACT = 6


def estimate_lines(
    documents: Path, max_cases: int, generate: bool, generator: str | None, seed: int,
    per_document: int = MAX_PER_DOCUMENT, all_kinds: bool = False,
) -> list[str]:  # fmt: skip
    corpus = as_corpus(documents)
    candidates = mine_candidates(list(corpus.documents), max_per_document=per_document,
                                 seed=seed, trusted_only=not all_kinds)  # fmt: skip
    lines = [f"mined {len(candidates)} facts from {len(corpus.documents)} documents"]
    if not generate:
        kept = min(max_cases, len(candidates))
        return [*lines, f"--no-generate: no model call; up to {kept} template cases"]
    spec = generator or DEFAULT_CASES_GENERATOR
    least = CALLS_PER_KEPT_CASE * min(max_cases, len(candidates))
    most = MOST_CALLS_PER_FACT * len(candidates)
    cache = open_cache()
    estimate = generate_estimate(f"cases checks, {spec} (every fact kept)", spec, least,
                                 cache, "not counted")  # fmt: skip
    fewest = replace(estimate, cached_reason=NOT_TOLD)
    lines += call_lines([fewest])
    lines.append(
        f"at most {most} calls if every one of the {len(candidates)} facts must be checked "
        f"to keep {max_cases} (6 per fact: 1 phrasing, 1 casual phrasing asked again, 2 "
        "oracle and 2 closed-book answers)"
    )
    return lines
