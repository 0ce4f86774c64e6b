"""The cases file `ragaudit cases` writes: the mutate/audit case format (intents, each with
its expected sources, answer, anchor and two phrasings), each intent carrying its
provenance, plus what was mined from (`generated_by`), the counts, and the candidates
dropped (`rejected`, with their reasons) or left unchecked by a failed call (`unverified`).
Both case readers accept it (ragaudit.auditing.cases)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import yaml

from ragaudit.casemining.phrasing import FROM_TEMPLATE
from ragaudit.fileio import write_text_atomic

HEADER = (
    "# Cases mined by `ragaudit cases` from the documents named under generated_by.\n"
    "# Every intent passed the checks recorded in its provenance; review them (the\n"
    "# inspector's Cases page) before pinning this file. rejected: and unverified: are for\n"
    "# review only: no reader asks them.\n"
)


def slug(anchor: str, answer: str, taken: set[str]) -> str:
    """A readable, unique intent name from the anchor and the answer."""
    text = unicodedata.normalize("NFKD", f"{anchor} {answer}").encode("ascii", "ignore").decode()
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60].strip("-") or "fact"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name)
    return name


_PHRASED_BY = {
    "generator": "the generator",
    "template": "templates (--no-generate)",
    FROM_TEMPLATE: "the generator, the casual one from a template",
}
"""How `method` reads each Trial.method (phrasing.py): a case whose casual phrasing is the
template's stand-in was phrased by the generator, not under --no-generate."""


def intent_entry(trial, name: str, generator: dict | None, seed: int) -> dict:
    """One kept fact as an intent of the case format, with its provenance."""
    c = trial.candidate
    others = [d for d in c.pair_docs if d != c.doc_id]
    expect = {"expect_any": [c.doc_id, *others]} if others else {"expect": [c.doc_id]}
    method = f"mined ({c.value_kind}); phrased by " + _PHRASED_BY.get(trial.method, trial.method)
    return {
        "intent": name, **expect, "answer": c.answer, "anchor": c.anchor,
        "phrasings": list(trial.questions),
        "known_without_context": trial.known_without_context,
        "provenance": {
            "source": {"doc_id": c.doc_id, "start": c.start, "end": c.end,
                       "sentence": c.sentence, "heading": c.heading},
            "method": method, "phrasing": trial.method, "language": trial.language,
            "answer_in_documents": c.answer_docs, "generator": generator, "seed": seed,
            "checks": trial.checks,
        },
    }  # fmt: skip


def dropped_entry(trial) -> dict:
    """A rejected or unverified fact: what it was and why it is not an intent."""
    c = trial.candidate
    entry = {
        "candidate": c.candidate_id, "doc_id": c.doc_id, "answer": c.answer,
        "anchor": c.anchor, "sentence": c.sentence,
        "questions": list(trial.questions) if trial.questions else None,
    }  # fmt: skip
    if trial.outcome == "rejected":
        return entry | {"reason": trial.reason, "detail": trial.detail, "checks": trial.checks}
    return entry | {"error": f"{trial.reason}: {trial.detail}"}


def case_document(
    trials: Sequence, candidates: int, generated_by: dict, generator: dict | None, seed: int
) -> dict:
    """The whole file: generated_by, counts, intents, rejected, unverified."""
    kept = [t for t in trials if t.outcome == "kept"]
    taken: set[str] = set()
    intents = [intent_entry(t, slug(t.candidate.anchor, t.candidate.answer, taken), generator,
                            seed) for t in kept]  # fmt: skip
    rejected = [dropped_entry(t) for t in trials if t.outcome == "rejected"]
    unverified = [dropped_entry(t) for t in trials if t.outcome == "unverified"]
    counts = {
        "candidates": candidates,
        "checked": sum(1 for t in trials if t.outcome != "beyond_max"),
        "kept": len(kept),
        "known_without_context": sum(1 for t in kept if t.known_without_context),
        "rejected": dict(
            sorted(Counter(t.reason for t in trials if t.outcome == "rejected").items())
        ),
        "unverified": len(unverified),
        "beyond_max": sum(1 for t in trials if t.outcome == "beyond_max"),
    }
    return {"generated_by": generated_by, "counts": counts, "intents": intents,
            "rejected": rejected, "unverified": unverified}  # fmt: skip


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: object) -> bool:
        return True  # a reviewer reads each check in full, never `*id001`


def write_case_file(path: Path, document: dict, header: str = HEADER) -> None:
    """The document as YAML under `header` (a comment), written atomically."""
    text = yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    write_text_atomic(path, header + text)
