"""`ragaudit mutate --dry-run`'s estimate: the calls and builds a run of prepared mutants
(mutation.runner.prepare: every input checked and every mutant built, no model) would make.
ragaudit's own retrieval embeds the base corpus once and each mutant's own documents (an
unchanged chunk replays); a user's retriever or pipeline is built once per corpus
(mutation.groups) and makes its own calls. Generation's share is known only after
retrieval, and says so. Nothing is written."""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.auditing.engine import embed_text_of
from ragaudit.backends.cache import CallCache
from ragaudit.mutation.cases import MutationIntent
from ragaudit.mutation.grouping import Mutant
from ragaudit.mutation.groups import MutantGroup, group_mutants
from ragaudit.mutation.runner import Prepared
from ragaudit.runner.estimate import CallEstimate, embed_estimate

YOUR_CODES_TIME = "your code's own time: not recorded before it runs"


@dataclass(frozen=True)
class MutateEstimate:
    """What a mutation run would build and call."""

    builds: str
    """The builds line: one base index and its overlays, or the builds of your code."""
    estimates: list[CallEstimate]
    """The calls per model."""


def mutate_estimates(
    ready: Prepared, generate: bool, generator: str, cache: CallCache | None
) -> MutateEstimate:
    """The builds and the calls per model of a prepared run; `generate`: whether it
    answers (with `generator`, unless the column is a pipeline, which answers itself);
    `cache`: the call cache, read-only (None: there is none yet)."""
    column, applied = ready.column, ready.applied()
    cases = [c for i in ready.intents for c in i.cases]
    if column.overlay:
        texts = [embed_text_of(c) for c in column.cut(ready.corpus.documents)]
        for mutant in applied:
            texts += [embed_text_of(c) for c in column.cut(list(mutant.added))]
        questions = sorted({c.question for c in cases})
        what = f"mutate: embed {column.embedder_label}"
        estimates = [embed_estimate(what, column.embedder_label, texts, questions, cache,
                                    sample=True)]  # fmt: skip
        builds = f"builds: 1 base index, {len(applied)} mutant overlays on it"
    else:
        estimates, builds = _rebuilt(ready, applied, len(cases))
    if generate and not column.pipeline:
        records = len(cases) + sum(len(_cases(m, ready)) for m in applied)
        estimates.append(
            CallEstimate(f"mutate: generate {generator}", 2 * records + len(cases), None, None,
                         "known only after retrieval (identical prompts merge)",
                         tokens_reason="known only after retrieval",
                         cached_reason="at most: each record's prompt and oracle prompt, "
                         "and each phrasing asked closed-book")
        )  # fmt: skip
    return MutateEstimate(builds, estimates)


def _rebuilt(ready: Prepared, applied: list[Mutant], cases: int) -> tuple[list[CallEstimate], str]:
    """A user's retriever or pipeline, built once per corpus (the unmutated one, then each
    group of mutants that cannot interfere) and asked every question of it."""
    column = ready.column
    groups = group_mutants(applied, ready.intents, ready.corpus.documents)
    asked = cases + sum(len(i.cases) for g in groups for i in _intents(g, ready))
    kind = "pipeline" if column.pipeline else "retriever"
    estimates = [
        CallEstimate(f"mutate: your {kind} ({column.name})", asked, None, None,
                     YOUR_CODES_TIME, tokens_reason="n/a", cached_reason="asked once per corpus")
    ]  # fmt: skip
    if column.pipeline and column.stack.oracle:
        estimates.append(
            CallEstimate(f"mutate: your oracle ({column.name})", asked, None, None,
                         YOUR_CODES_TIME, tokens_reason="n/a",
                         cached_reason="at most: once per answered record with gold")
        )  # fmt: skip
    builds = (
        f"builds: {1 + len(groups)} builds of your {kind} (the unmutated corpus, then "
        f"{len(groups)} group(s) of mutants that cannot interfere)"
    )
    return estimates, builds


def _intents(group: MutantGroup, ready: Prepared) -> list[MutationIntent]:
    names = {m.intent for m in group.mutants}
    return [i for i in ready.intents if i.name in names]


def _cases(mutant: Mutant, ready: Prepared) -> tuple:
    return next(i.cases for i in ready.intents if i.name == mutant.intent)
