"""`python -m benchmarks.case_mining`: what mining a corpus for candidate facts costs
(ragaudit.casemining.mine.mine_candidates, LLM-free), on real manuals nobody here wrote,
beside a baseline measured in the same run: reading the same documents with ragaudit's
own reader and splitting them with the reference chunking (recursive, 1000 characters).

The documents (issue 44's goal: 1,000 documents mined in 10 s or less): by default the Git
manual as Debian's git-doc installs it (its .txt pages) and then English man pages
(`man -l PAGE | col -b`), the first `--documents` of them; `--corpus` picks others
(`man-de`, `man-fr`). They are rendered once into `--cache` (benchmarks.text_corpora) and
read from there with ragaudit.auditing.corpus_io.read_user_corpus. Each figure is the
median of `--rounds` rounds, wall and CPU time; `--show N` prints the first N candidates.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections import Counter
from pathlib import Path

from benchmarks.text_corpora import git_doc, man_pages

CORPORA = {
    "git-doc": lambda out, limit: git_doc(out),
    "man-en": lambda out, limit: man_pages(Path("/usr/share/man"), out, limit=limit),
    "man-de": lambda out, limit: man_pages(Path("/usr/share/man/de"), out, limit=limit),
    "man-fr": lambda out, limit: man_pages(Path("/usr/share/man/fr"), out, limit=limit),
}


def documents(cache: Path, names: list[str], count: int) -> tuple[list, str]:
    """The first `count` documents of the named corpora, in order, each id prefixed by its
    corpus's name (two manuals may both have a `man1/ls.1`), and how many came from each."""
    from ragaudit.auditing.corpus_io import read_user_corpus

    found: list = []
    taken = []
    for name in names:
        if len(found) >= count:
            break
        folder = CORPORA[name](cache / name, count)
        docs = list(read_user_corpus(folder).documents)[: count - len(found)]
        found += [dataclasses.replace(d, doc_id=f"{name}/{d.doc_id}") for d in docs]
        taken.append(f"{name} {len(docs)}")
    return found, " + ".join(taken)


def baseline(docs: list, cache: Path) -> None:
    """Read the same documents' files again and split every document: the work any audit
    of them does."""
    from ragaudit.stack.chunking import Chunking, chunk_corpus

    for doc in docs:
        corpus = doc.doc_id.split("/", 1)[0]
        (cache / corpus / doc.path).read_text(encoding="utf-8")
    chunk_corpus(docs, Chunking("recursive", 1000, 0))


def timed(work, rounds: int) -> tuple[float, float, object]:
    """(median wall seconds, median CPU seconds, the last result) of `rounds` runs."""
    walls, cpus, result = [], [], None
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.case_mining")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/ragaudit-text-corpora"))
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA), default=None,
                        help="corpora in order (default: git-doc, then man-en)")  # fmt: skip
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=0, help="print the first N candidates")
    args = parser.parse_args(argv)
    from ragaudit.casemining.mine import mine_candidates

    names = args.corpus or ["git-doc", "man-en"]
    docs, taken = documents(args.cache, names, args.documents)
    base_wall, base_cpu, _ = timed(lambda: baseline(docs, args.cache), args.rounds)
    wall, cpu, candidates = timed(lambda: mine_candidates(docs, seed=args.seed), args.rounds)
    characters = sum(len(d.text) for d in docs)
    print(f"case mining: {len(docs)} documents ({taken}), {characters / 1e6:.1f} M characters, "
          f"median of {args.rounds} rounds")  # fmt: skip
    print(
        f"  baseline: read + split (recursive 1000)  {base_wall:6.2f} s wall, {base_cpu:6.2f} s CPU"
    )
    print(f"  mine_candidates                          {wall:6.2f} s wall, {cpu:6.2f} s CPU, "
          f"{wall / base_wall:5.1f} x baseline (goal: 1,000 documents in <= 10 s)")  # fmt: skip
    t_wall, t_cpu, trusted = timed(
        lambda: mine_candidates(docs, seed=args.seed, trusted_only=True), args.rounds
    )
    print(f"  mine_candidates, trusted kinds only      {t_wall:6.2f} s wall, {t_cpu:6.2f} s CPU, "
          f"{t_wall / base_wall:5.1f} x baseline (the default of ragaudit cases: "
          f"{len(trusted)} candidates)")  # fmt: skip
    kinds = Counter(c.value_kind for c in candidates)
    print(
        f"  {len(candidates)} candidates: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common())
    )
    for c in candidates[: args.show]:
        sentence = " ".join(c.sentence.split())
        print(f"- {c.doc_id} [{c.value_kind}] answer {c.answer!r}, anchor {c.anchor!r}, "
              f"in {c.answer_docs} document(s), pair in {len(c.pair_docs)}")  # fmt: skip
        print(f"    {sentence[:200]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
