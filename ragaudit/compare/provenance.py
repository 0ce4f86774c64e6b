"""Whether two results files may be paired instance by instance: the same corpus (its
manifest's sha256 pins every question), the same questions and the same indexed documents
(`agreement`, the check `gate` shares: a quick n=5 run indexes a fifth of the n=25
reference's documents, so it is not paired with it), and no model named in both with other
weights.

When either differs, an instance id no longer names the same question under the same
models, so a flip between the runs would mix the change being studied with another: only
the unpaired rates are shown, with the notes saying why.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.compare.agreement import agreement
from ragaudit.results.format import NOT_MEASURED, fmt_digest

UNAVAILABLE = "unavailable"
"""A `models[].digest` the run could not compute (its reason beside it)."""


@dataclass(frozen=True)
class Provenance:
    """What the two files' corpora and models say about pairing them."""

    paired: bool
    """True when instance records may be paired across the files."""
    notes: tuple[str, ...]
    """One sentence per difference found (or per thing that could not be checked)."""


def corpus_notes(a: dict, b: dict) -> tuple[list[str], bool]:
    """Notes on the two corpora, and whether they allow pairing."""
    corpus_a, corpus_b = a.get("corpus") or {}, b.get("corpus") or {}
    sha_a, sha_b = corpus_a.get("sha256"), corpus_b.get("sha256")
    if not sha_a or not sha_b:
        return [
            f"The corpus manifest sha256 is {NOT_MEASURED} (A: {fmt_digest(sha_a)}, B: "
            f"{fmt_digest(sha_b)}): the questions cannot be shown to be the same, so only "
            "unpaired rates are given."
        ], False
    if sha_a != sha_b:
        return [
            f"The corpora differ (manifest sha256 A {fmt_digest(sha_a)}, "
            f"B {fmt_digest(sha_b)}): an instance id does not name the same question in both, "
            "so only unpaired rates are given."
        ], False
    notes = []
    n_a, n_b = corpus_a.get("n"), corpus_b.get("n")
    if n_a != n_b:
        notes.append(
            f"Same corpus, other sizes (A n={n_a}, B n={n_b} per probe): only the instances "
            "both runs hold are paired."
        )
    return notes, True


def _models(results: dict) -> dict[str, dict]:
    return {m["spec"]: m for m in results.get("models") or [] if m.get("spec")}


def model_notes(a: dict, b: dict) -> tuple[list[str], bool]:
    """Notes on the two files' models, and whether they allow pairing: a model both name
    with two different digests forbids it; a model only one names is the change compared
    (another embedder, the user's stack) and is noted."""
    models_a, models_b = _models(a), _models(b)
    notes, paired = [], True
    for spec in [s for s in models_a if s in models_b]:
        digest_a, digest_b = models_a[spec].get("digest"), models_b[spec].get("digest")
        if UNAVAILABLE in (digest_a, digest_b) or not digest_a or not digest_b:
            notes.append(f"{spec}: its weights' digest is not recorded in both files, unchecked.")
        elif digest_a != digest_b:
            paired = False
            notes.append(
                f"{spec} has other weights in A ({fmt_digest(digest_a)}) than in B "
                f"({fmt_digest(digest_b)}): only unpaired rates are given."
            )
    for side, mine, theirs in (("A", models_a, models_b), ("B", models_b, models_a)):
        only = [s for s in mine if s not in theirs]
        if only:
            notes.append(f"Only {side} ran {', '.join(only)}.")
    return notes, paired


def provenance(a: dict, b: dict) -> Provenance:
    """The corpus and model checks of two results files, A before B."""
    corpus, corpus_ok = corpus_notes(a, b)
    documents_ok = True
    if corpus_ok:  # same manifest: now the questions and the indexed documents
        agreed = agreement(a, b)
        documents_ok = agreed.paired
        corpus = (corpus if agreed.paired else []) + list(agreed.notes)
    models, models_ok = model_notes(a, b)
    return Provenance(corpus_ok and documents_ok and models_ok, tuple(corpus + models))
