"""`ragaudit cases`: mine facts from a user's documents, phrase and verify them in batches
until `max_cases` are kept or the candidates run out, and return the cases file's document.

Every generator call goes through the call cache, so a killed run replays what it computed
and a rerun with the same corpus, generator and seed is the same file. A batch asks about
twice the cases still wanted: most facts a run checks are kept or dropped in the batch that
phrased them, so the run stops soon after it has enough."""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragaudit.auditing.corpus_io import as_corpus
from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import describe_model, load_generator
from ragaudit.casemining.casefile import case_document
from ragaudit.casemining.checks import PARAGRAPH_CHARACTERS
from ragaudit.casemining.language import detect_document_language, detector_identity
from ragaudit.casemining.mine import mine_candidates
from ragaudit.casemining.prompts import PROMPTS
from ragaudit.casemining.verify import Trial, Verifier
from ragaudit.corpus.stats import NEAR_DUPLICATE
from ragaudit.runner.progress import Progress

DEFAULT_CASES_GENERATOR = "local:qwen2.5-1.5b"
DEFAULT_MAX_CASES = 40
MAX_PER_DOCUMENT = 3


@dataclass
class CasesOptions:
    """What `ragaudit cases` (or `ragaudit.cases`) is given."""

    documents: Any
    max_cases: int = DEFAULT_MAX_CASES
    generate: bool = True
    generator: str | None = None
    seed: int = 0
    max_per_document: int = MAX_PER_DOCUMENT
    workers: int = 4
    all_kinds: bool = False
    """Also phrase and check values other than mine.trusted_shape (measured less precise)."""
    argv: list[str] = field(default_factory=lambda: ["ragaudit.cases"])
    progress: Progress = field(default_factory=lambda: Progress(stream=None))

    @property
    def generator_spec(self) -> str | None:
        return (self.generator or DEFAULT_CASES_GENERATOR) if self.generate else None


def corpus_digest(documents: Sequence[Any]) -> str:
    """The corpus as mined: ids and texts, in id order."""
    digest = hashlib.sha256()
    for doc in sorted(documents, key=lambda d: d.doc_id):
        digest.update(f"{doc.doc_id}\0{doc.text}\n".encode())
    return digest.hexdigest()


def document_languages(documents: Sequence[Any]) -> dict[str, str]:
    return {doc.doc_id: detect_document_language([doc.text]) for doc in documents}


def make_cases(options: CasesOptions, cache: CallCache | None = None) -> dict:
    """The cases file's document for `options`; `cache` defaults to the data folder's."""
    started = time.perf_counter()
    progress = options.progress
    corpus = as_corpus(options.documents)
    documents = list(corpus.documents)
    progress.stage("mining facts", len(documents))
    candidates = mine_candidates(documents, max_per_document=options.max_per_document,
                                 seed=options.seed, trusted_only=not options.all_kinds)  # fmt: skip
    progress.advance(len(documents))
    languages = document_languages(documents)
    cache = cache if cache is not None else CallCache()
    generator = described = None
    if options.generate:
        progress.watch_failures(cache)
        generator = load_generator(options.generator_spec, cache)
        described = {"spec": generator.spec, "digest": describe_model(generator)["digest"]}
    trials = _verify_in_batches(options, documents, candidates, languages, generator)
    generated_by = {
        "tool": "ragaudit cases", "command": list(options.argv),
        "corpus": {"path": corpus.root, "digest": corpus_digest(documents),
                   "documents": len(documents)},
        "languages": dict(sorted(Counter(languages.values()).items())),
        "generator": described, "seed": options.seed,
        "language_detector": detector_identity(), "prompts": PROMPTS,
        "thresholds": {"near_duplicate_jaccard": NEAR_DUPLICATE,
                       "max_per_document": options.max_per_document,
                       "kinds": "all" if options.all_kinds else "trusted",
                       "max_cases": options.max_cases,
                       "oracle_paragraph_characters": PARAGRAPH_CHARACTERS},
        "calls": cache.stats() if generator is not None else None,
        "elapsed_seconds": round(time.perf_counter() - started, 2),
    }  # fmt: skip
    progress.done()
    return case_document(trials, len(candidates), generated_by, described, options.seed)


def _verify_in_batches(
    options: CasesOptions, documents: list, candidates: list, languages: dict, generator: Any
) -> list[Trial]:
    progress = options.progress

    def stage(name: str, total: int):
        progress.stage(name, total)
        return lambda done, _total, replayed: progress.update(done, total, replayed)

    verifier = Verifier({d.doc_id: d for d in documents}, generator, options.workers, stage)
    trials: list[Trial] = []
    kept = at = 0
    while kept < options.max_cases and at < len(candidates):
        wanted = options.max_cases - kept
        size = max(4, 2 * wanted) if generator is not None else wanted  # a template is kept
        batch = candidates[at : at + size]
        at += len(batch)
        done = verifier.run(batch, languages)
        for trial in done:
            if trial.outcome == "kept" and kept >= options.max_cases:
                trial.outcome = "beyond_max"  # checked in the last batch, not written
            kept += trial.outcome == "kept"
        trials += done
        progress.message(f"cases: kept {kept} of {options.max_cases} wanted; "
                         f"checked {at} of {len(candidates)} candidates")  # fmt: skip
    return trials
