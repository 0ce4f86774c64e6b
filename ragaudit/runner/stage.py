"""The one protocol every stage of a run speaks, and how their outputs become one document.

A stage turns the corpus into instance records: the built-in matrix (pipeline.matrix), one
user stack (userstack.column), and later a user's whole pipeline or a mutated corpus. The
orchestrator (pipeline.orchestrate) knows none of them by name: it prepares every stage,
then asks each for its retrieval fragment, folds the fragments into one results document,
and asks each to generate. The composition root (runner.stages) decides which stages a plan
runs.

Adding a stage (docs/extending.md): a class with the members below (`estimate` too: a dry
run asks each stage for its own calls), and one line in runner.stages.stages_for. Retrieval
and generation are optional parts inside a stage: a stage that answers and retrieves in one
call does both in `retrieve`, and returns [] from `generate`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ragaudit.backends.cache import CallCache
from ragaudit.targets.pipeline.dryrun import CallEstimate

FRAGMENT_LISTS = ("instances", "indexes", "failed_calls")
"""Fragment keys whose lists are concatenated in stage order."""
FRAGMENT_MAPS = ("chunks", "chunk_counts", "chunk_offsets")
"""Fragment keys whose maps are merged in stage order."""
FRAGMENT_FIRST = ("comparisons", "extra_measurements", "anchor_selectivity")
"""Run-wide fragment keys: the first stage that reports one gives it (the matrix, when it
runs, since its comparisons are between built-in configs)."""


class Stage(Protocol):
    """One stage of a run. Every stage is prepared before any loads a model, so a stage
    that cannot be built (a bad splitter, a factory that raises) costs nothing."""

    name: str
    """How progress lines and errors name the stage."""
    order: int
    """Where its configs and records go in the results file, and when it generates: the
    built-in matrix is 0, a user's stage 1. Stages retrieve in the plan's order instead,
    which runs the user's code first, so a fault it shows only when run (a retriever that
    names no chunk) costs no built-in work."""

    def prepare(self, corpus: Any, progress: Any) -> None:
        """Build what can fail on bad input, loading no model: a bad one fails here."""

    def retrieve(self, corpus: Any, cache: Any, progress: Any) -> dict:
        """Load the models retrieval needs and return the stage's records and what they
        point at, as a fragment: every key of FRAGMENT_LISTS and FRAGMENT_MAPS, and
        optionally FRAGMENT_FIRST's."""

    def models(self) -> list[dict]:
        """The results file's `models` entries of the models retrieval loaded."""

    def describe(self, corpus: Any) -> dict:
        """The stage's `configs` and `embedders` entries, after retrieval:
        ``{"configs": [...], "embedders": [...]}``."""

    def generate(
        self, results: dict, cache: Any, progress: Any, on_generated: Callable[[], None]
    ) -> list[dict]:
        """Generate and grade its records in `results` (in place), calling `on_generated`
        as replies arrive; returns the failed calls (`conditions.failure_reasons` items)."""

    def estimate(self, corpus: Any, cache: CallCache | None) -> list[CallEstimate]:
        """--dry-run: the calls `retrieve` and `generate` would make over `corpus`, one
        estimate per model, how many `cache` (read-only; None: there is none yet) holds and
        their time (runner.estimate), loading no model and asking nothing."""


def in_results_order(stages: Sequence[Stage]) -> list[Stage]:
    """`stages` by their `order`, the plan's order among equals."""
    return sorted(stages, key=lambda stage: stage.order)


def fold_fragments(fragments: Sequence[dict]) -> dict:
    """The stages' fragments as one: lists concatenated and maps merged in stage order,
    run-wide keys from the first stage that has them."""
    folded: dict = {key: [] for key in FRAGMENT_LISTS} | {key: {} for key in FRAGMENT_MAPS}
    for fragment in fragments:
        for key in FRAGMENT_LISTS:
            folded[key] = [*folded[key], *fragment[key]]
        for key in FRAGMENT_MAPS:
            folded[key] = {**folded[key], **fragment[key]}
        for key in FRAGMENT_FIRST:
            if key in fragment:
                folded.setdefault(key, fragment[key])
    return folded


def add_models(results: dict, described: Sequence[dict]) -> None:
    """Append `models` entries not already there (same spec, kind and endpoint)."""

    def key(entry: dict) -> tuple:
        return entry.get("spec"), entry.get("kind"), entry.get("base_url")

    have = {key(entry) for entry in results["models"]}
    for entry in described:
        if key(entry) not in have:
            results["models"].append(entry)
            have.add(key(entry))
