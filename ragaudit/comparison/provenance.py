"""Whether two results files may be paired instance by instance: the same corpus (its
manifest's sha256 pins every question), the same questions and the same indexed documents
(`agreement`, the check `gate` shares: a quick n=5 run indexes a fifth of the n=25
reference's documents, so it is not paired with it), and no model named in both with other
weights.

When either differs, an instance id no longer names the same question under the same
models, so a flip between the runs would mix the change being studied with another: only
the unpaired rates are shown, with the notes saying why. Other weights are the one check
`gate` does not share: a gate pairs across them, as the change under test, and says so in
its own words (gate.under_test); `compare` keeps to unpaired rates and its lead says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.comparison.agreement import (
    agreement,
    document_difference,
    indexed_documents,
    question_difference,
)
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
    lead: str
    """The header sentence: what agreed (and what did not) before pairing by id, or why
    only unpaired rates are given."""


@dataclass(frozen=True)
class Weights:
    """The models two files name, A before B: the facts `compare` and `gate` word apart."""

    other: tuple[tuple[str, str, str], ...]
    """(spec, digest in A, digest in B) of each model both name with other weights."""
    unchecked: tuple[str, ...]
    """Specs both name whose digest one file does not record."""
    same: tuple[str, ...]
    """Specs both name with the same recorded digest."""
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]


def _models(results: dict) -> dict[str, dict]:
    return {m["spec"]: m for m in results.get("models") or [] if isinstance(m.get("spec"), str)}


def weights(a: dict, b: dict) -> Weights:
    """The two files' models compared by their weights' digest."""
    models_a, models_b = _models(a), _models(b)
    other, unchecked, same = [], [], []
    for spec in [s for s in models_a if s in models_b]:
        digest_a, digest_b = models_a[spec].get("digest"), models_b[spec].get("digest")
        if UNAVAILABLE in (digest_a, digest_b) or not digest_a or not digest_b:
            unchecked.append(spec)
        elif digest_a != digest_b:
            other.append((spec, digest_a, digest_b))
        else:
            same.append(spec)
    only_a = tuple(s for s in models_a if s not in models_b)
    only_b = tuple(s for s in models_b if s not in models_a)
    return Weights(tuple(other), tuple(unchecked), tuple(same), only_a, only_b)


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


def model_notes(a: dict, b: dict) -> tuple[list[str], bool]:
    """`compare`'s notes on the two files' models, and whether they allow pairing: a model
    both name with two different digests forbids it; a model only one names is the change
    compared (another embedder, the user's stack) and is noted."""
    found = weights(a, b)
    notes = [
        f"{s}: its weights' digest is not recorded in both files, unchecked."
        for s in found.unchecked
    ]
    notes += [
        f"{spec} has other weights in A ({fmt_digest(da)}) than in B ({fmt_digest(db)}): "
        "only unpaired rates are given."
        for spec, da, db in found.other
    ]
    for side, only in (("A", found.only_a), ("B", found.only_b)):
        if only:
            notes.append(f"Only {side} ran {', '.join(only)}.")
    return notes, not found.other


def _documents_words(a: dict, b: dict) -> tuple[str | None, str | None]:
    """(what agreed, what is unchecked) about the indexed document sets; (None, None) when
    they differ (agreement's note says how)."""
    docs_a, docs_b = indexed_documents(a), indexed_documents(b)
    if document_difference(docs_a, docs_b):
        return None, None
    if "unrecorded" in (docs_a.source, docs_b.source):
        return None, "the indexed document set (not recorded in both files)"
    if docs_a.source == "asserted":
        return "the same indexed document set (asserted by the user in both)", None
    return f"the same indexed document set ({docs_a.describe()})", None


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:]


def lead_sentence(a: dict, b: dict, found: Weights) -> str:
    """What agreed before pairing by id (manifest, questions, indexed documents, weights),
    or what forbids it: the header of `compare`."""
    sha = [(r.get("corpus") or {}).get("sha256") for r in (a, b)]
    if not all(sha):
        return "Only unpaired rates: the corpus manifest sha256 is not recorded in both files."
    if sha[0] != sha[1]:
        return "Only unpaired rates: the corpus manifests differ."
    agreed_docs, unchecked_docs = _documents_words(a, b)
    differ = [
        words
        for words, differs in (
            ("the questions", question_difference(a, b) is not None),
            ("the indexed documents", agreed_docs is None and unchecked_docs is None),
        )
        if differs
    ]
    agreed = ["the same corpus manifest"]
    agreed += [] if "the questions" in differ else ["the same questions"]
    agreed += [agreed_docs] if agreed_docs else []
    if differ:
        return f"Only unpaired rates: {' and '.join(differ)} differ (agreed: {', '.join(agreed)})."
    if found.other:
        specs = ", ".join(spec for spec, _, _ in found.other)
        return _sentence(
            f"{', '.join(agreed)}, but other weights for {specs}: compare gives only unpaired "
            "rates across other weights (`ragaudit gate` pairs across them, as the change "
            "under test)."
        )
    agreed += ["the same weights for every model both ran"] if found.same else []
    unchecked = [unchecked_docs] if unchecked_docs else []
    unchecked += [f"the weights of {s} (digest not recorded in both)" for s in found.unchecked]
    tail = f"; unchecked: {', '.join(unchecked)}" if unchecked else ""
    return f"Paired by id: {', '.join(agreed)}{tail}."


def provenance(a: dict, b: dict) -> Provenance:
    """The corpus and model checks of two results files, A before B."""
    corpus, corpus_ok = corpus_notes(a, b)
    documents_ok = True
    if corpus_ok:  # same manifest: now the questions and the indexed documents
        agreed = agreement(a, b)
        documents_ok = agreed.paired
        corpus = (corpus if agreed.paired else []) + list(agreed.notes)
    models, models_ok = model_notes(a, b)
    lead = lead_sentence(a, b, weights(a, b))
    return Provenance(corpus_ok and documents_ok and models_ok, tuple(corpus + models), lead)
