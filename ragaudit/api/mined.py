"""`ragaudit.cases`: cases mined from your own documents (`ragaudit cases`), returned as
a `MinedCases`: the intents to pass to `ragaudit.mutate` or `ragaudit.audit`, the facts
dropped and why, and the file's document to save or review.

    mined = ragaudit.cases("docs/", max_cases=20)
    mined.counts["kept"], mined.counts["rejected"]
    ragaudit.mutate("docs/", mined.intents, my_factory)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragaudit.api.verbs import ProgressArg, data_folder, progress_of


@dataclass(frozen=True)
class MinedCases:
    """A cases file's document, and its intents as `ragaudit.Case` objects."""

    document: dict
    path: Path | None = None

    @property
    def intents(self) -> list[Any]:
        """The kept cases as `ragaudit.Case` (IntentSpec) objects: what mutate and audit
        take in place of a case file. Unverified and rejected facts are never among them."""
        from ragaudit.auditing.cases import IntentSpec

        return [IntentSpec.model_validate(intent) for intent in self.document["intents"]]

    @property
    def counts(self) -> dict:
        return self.document["counts"]

    @property
    def rejected(self) -> list[dict]:
        return self.document["rejected"]

    @property
    def unverified(self) -> list[dict]:
        return self.document["unverified"]

    def save(self, path: str | Path) -> Path:
        """Write the cases file (YAML) to `path`; returns the path."""
        from ragaudit.casemining.casefile import write_case_file

        write_case_file(Path(path), self.document)
        return Path(path)

    def __repr__(self) -> str:
        c = self.counts
        rejected = sum(c["rejected"].values())
        return (f"MinedCases(kept={c['kept']}, checked={c['checked']}, rejected={rejected}, "
                f"unverified={c['unverified']})")  # fmt: skip


def cases(
    documents: Any,
    *,
    max_cases: int | None = None,
    generate: bool = True,
    generator: str | None = None,
    seed: int = 0,
    max_per_document: int | None = None,
    all_kinds: bool = False,
    workers: int = 4,
    data_dir: str | Path | None = None,
    progress: ProgressArg = True,
    out: str | Path | None = None,
    argv: Sequence[str] | None = None,
) -> MinedCases:
    """Mine, phrase and verify cases from `documents` (a folder or JSONL path, or documents
    in Python, as `ragaudit.mutate` takes them): `max_cases` kept at most (default 40),
    phrased by `generator` (default local:qwen2.5-1.5b) or by templates (`generate=False`,
    no oracle or closed-book check), at most `max_per_document` facts from one document
    (default 3); only a setting's value named by an option or setting name unless
    `all_kinds` (the other kinds read by hand were often invalid: docs/cases.md).
    Every call goes through the data folder's call cache.
    `out`: also write the cases file there."""
    from ragaudit.casemining.run import (
        DEFAULT_MAX_CASES,
        MAX_PER_DOCUMENT,
        CasesOptions,
        make_cases,
    )

    options = CasesOptions(
        documents, max_cases or DEFAULT_MAX_CASES, generate, generator, seed,
        max_per_document or MAX_PER_DOCUMENT, workers=workers, all_kinds=all_kinds,
        argv=list(argv or ["ragaudit.cases"]), progress=progress_of(progress),
    )  # fmt: skip
    with data_folder(data_dir):
        mined = MinedCases(make_cases(options))
    if out is not None:
        return MinedCases(mined.document, mined.save(out))
    return mined
