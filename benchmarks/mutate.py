"""`python -m benchmarks.mutate`: the mutation audit's cost figures (issue 27).

1. Mutant generation: every operator's corpus built and checked (`mutate.runner.prepare`:
   the corpus and case file read, each mutant planned, grouped, diffed and validated) for a
   1,000-document corpus with 100 cases, both built from the planted corpus (its answers
   stand verbatim in its documents). No model. Goal: <= 10 s.
2. Embeddings: those a full `ragaudit mutate --no-generate` computes, beside one plain
   `ragaudit audit` of the same corpus and cases (each in its own process and its own fresh
   data folder, so nothing replays from an earlier run). The ratio is printed beside what it
   should be near: the chunks of mutated documents over the corpus's chunks (unchanged
   documents replay from the call cache, so only those are new).
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

import yaml

DOCUMENTS = 1000
CASES = 100
CASE_PROBES = ("control", "boundary", "paraphrase", "distractor", "superseded")
"""Planted probes whose gold answer is one value standing verbatim in one document."""


def planted_inputs(folder: Path, documents: int = DOCUMENTS, cases: int = CASES) -> tuple:
    """A JSONL corpus of `documents` planted documents (probe documents, then filler) and a
    mutation case file of `cases` intents, one per planted instance with a verbatim answer."""
    from ragaudit.corpus.build import build_corpus
    from ragaudit.mutation.text import holds
    from ragaudit.probes.filler_docs import filler_document

    built = build_corpus(n=40)
    docs = list(built.documents[:documents])
    docs += [filler_document(built.seed, 10_000 + i) for i in range(documents - len(docs))]
    kept = {d.doc_id: d for d in docs}
    intents = []
    for probe in CASE_PROBES:
        for instance in built.instances_of(probe):
            doc = kept.get(instance.answer_doc_ids[0] if instance.answer_doc_ids else "")
            answer = instance.gold_answer
            if doc is None or not isinstance(answer, str) or not holds(doc.text, answer):
                continue
            intent = {"intent": instance.instance_id, "expect": [doc.doc_id], "answer": answer}
            if instance.anchor and instance.anchor in doc.text:
                intent["anchor"] = instance.anchor
            intents.append(intent | {"phrasings": [instance.question]})
    intents = _spread(intents, cases)
    corpus = folder / "corpus.jsonl"
    with corpus.open("w", encoding="utf-8") as out:
        for doc in docs:
            out.write(json.dumps({"id": doc.doc_id, "text": doc.text}) + "\n")
    case_file = folder / "cases.yaml"
    case_file.write_text(yaml.safe_dump({"intents": intents}, sort_keys=False), "utf-8")
    return corpus, case_file, len(docs), len(intents)


def _spread(intents: list[dict], cases: int) -> list[dict]:
    """`cases` intents taken evenly across the probes (each probe's first ones)."""
    by_probe: dict[str, list[dict]] = {}
    for intent in intents:
        by_probe.setdefault(intent["intent"].rsplit("-", 1)[0], []).append(intent)
    out: list[dict] = []
    while len(out) < cases and any(by_probe.values()):
        for group in by_probe.values():
            if group and len(out) < cases:
                out.append(group.pop(0))
    return out


def generation_time(corpus: Path, cases: Path) -> tuple[float, dict]:
    """Seconds to build and check every mutant on its own corpus, and mutants per
    operator: (made, robust, of intents)."""
    from ragaudit.backends.cache import CallCache
    from ragaudit.mutation.runner import MutateInputs, prepare

    started = time.perf_counter()
    # a cache, so boundary's window check can count tokens (robust or not, as a run does)
    cache = CallCache(corpus.parent / "bench-cache.sqlite")
    ready = prepare(MutateInputs(corpus, cases, generate=False), cache)
    seconds = time.perf_counter() - started
    applied = {
        group.operator: (sum(m.applied for m in group.mutants),
                         sum(m.robust for m in group.mutants), len(group.mutants))
        for group in ready.mutants[1:]
    }  # fmt: skip
    return seconds, applied


def _ragaudit(argv: list[str], home: Path) -> dict:
    """`ragaudit ARGV` in its own process over a fresh data folder; its results file."""
    out = home / "results.json"
    env = {**os.environ, "RAGAUDIT_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "ragaudit", *argv, "--out", str(out)],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    if done.returncode not in (0, 1):
        raise SystemExit(f"ragaudit {' '.join(argv[:1])} failed: {done.stderr.strip()[-500:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def embeddings(corpus: Path, cases: Path, column: list[str], folder: Path) -> dict:
    """Embeddings computed by `mutate --no-generate` and by one plain `audit` of the same
    case file (one file serves both)."""
    audit = _ragaudit(["audit", str(corpus), str(cases), *column], folder / "audit-home")
    mutate = _ragaudit(["mutate", str(corpus), str(cases), *column, "--no-generate"],
                       folder / "mutate-home")  # fmt: skip
    builds = mutate["run"]["builds"]
    overlays = builds.get("mutants") or []
    return {
        "audit": audit["conditions"]["calls"]["computed"],
        "mutate": mutate["conditions"]["calls"]["computed"],
        "mutate_replayed": mutate["conditions"]["calls"]["replayed"],
        "corpus_chunks": mutate["run"]["chunk_counts"]
        and next(iter(mutate["run"]["chunk_counts"].values())),
        "overlays": len(overlays),
        "chunks_added": sum(o["chunks_added"] for o in overlays),
        "texts_sent": sum(o["texts_embedded"] for o in overlays),
        "seconds": mutate["conditions"]["elapsed_seconds"],
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mutate")
    parser.add_argument("--documents", type=int, default=DOCUMENTS)
    parser.add_argument("--cases", type=int, default=CASES)
    parser.add_argument(
        "--embed-corpus", type=Path, default=None, metavar="FOLDER",
        help="corpus for the embedding figure (default: the planted one, cut to 60 documents "
        "and 10 cases so MiniLM embeds it in a minute); give CASES with --embed-cases",
    )  # fmt: skip
    parser.add_argument("--embed-cases", type=Path, default=None)
    parser.add_argument("--settings", type=Path, default=None, help="the column's settings")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ragaudit-bench-mutate-") as tmp:
        folder = Path(tmp)
        big = folder / "big"
        big.mkdir()
        corpus, cases, n_docs, n_cases = planted_inputs(big, args.documents, args.cases)
        seconds, applied = generation_time(corpus, cases)
        print(f"1. mutant generation: {n_docs} documents, {n_cases} cases: {seconds:.2f} s "
              f"(goal <= 10 s)")  # fmt: skip
        for operator, (made, robust, asked) in applied.items():
            print(f"   {operator}: {made} of {asked} intents mutated, {robust} robust")
        if args.embed_corpus is not None:
            small_corpus, small_cases = args.embed_corpus, args.embed_cases
            label = str(small_corpus)
        else:
            small = folder / "small"
            small.mkdir()
            small_corpus, small_cases, *_ = planted_inputs(small, 60, 10)
            label = "planted, 60 documents, 10 cases"
        column = ["--settings", str(args.settings)] if args.settings else []
        got = embeddings(small_corpus, small_cases, column, folder)
        ratio = got["mutate"] / got["audit"] if got["audit"] else float("nan")
        print(f"2. embeddings computed ({label}): mutate --no-generate "
              f"{got['mutate']} ({got['mutate_replayed']} replayed, {got['seconds']:.1f} s) "
              f"vs one audit {got['audit']}: ratio {ratio:.2f}")  # fmt: skip
        print(f"   one base index of {got['corpus_chunks']} chunks; {got['overlays']} mutants "
              f"ranked as overlays on it, adding {got['chunks_added']} chunks of their own "
              f"documents ({got['texts_sent']} texts sent, the unchanged ones replayed): one "
              f"audit plus the new texts predicts a ratio of at most "
              f"{(got['audit'] + got['chunks_added']) / got['audit']:.2f}")  # fmt: skip
    return 0 if seconds <= 10 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
