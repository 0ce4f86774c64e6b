"""`ragaudit mutate --dry-run`: every input checked and every mutant built as the run builds
them (no model), then the calls and builds the run would make, printed as `run --dry-run`
prints them (cli.dry_run.estimate_lines). ragaudit's own retrieval embeds the base corpus
once and each mutant's own documents (an unchanged chunk replays); a user's retriever or
pipeline is built once per corpus (mutate.groups) and makes its own calls. Generation's
share is known only after retrieval, and says so. Nothing is written."""

from __future__ import annotations

from typing import Any

from ragaudit.auditing.engine import embed_text_of
from ragaudit.cli.dry_run import embed_estimate, estimate_lines, open_cache
from ragaudit.mutation.groups import group_mutants
from ragaudit.targets.pipeline.dryrun import CallEstimate


def mutate_estimates(ready: Any, generate: bool, generator: str, cache: Any) -> tuple:
    """(the calls per model, the builds line) of a prepared run (runner.prepare)."""
    column, applied = ready.column, ready.applied()
    cases = [c for i in ready.intents for c in i.cases]
    questions = sorted({c.question for c in cases})
    estimates = []
    if column.overlay:
        texts = [embed_text_of(c) for c in column.cut(ready.corpus.documents)]
        for mutant in applied:
            texts += [embed_text_of(c) for c in column.cut(list(mutant.added))]
        what = f"mutate: embed {column.embedder_label}"
        estimates.append(embed_estimate(what, column.embedder_label, texts, questions, cache,
                                        sample=True))  # fmt: skip
        builds = f"builds: 1 base index, {len(applied)} mutant overlays on it"
    else:
        groups = group_mutants(applied, ready.intents, ready.corpus.documents)
        asked = len(cases) + sum(len(i.cases) for g in groups for i in _intents(g, ready))
        kind = "pipeline" if column.pipeline else "retriever"
        estimates.append(
            CallEstimate(f"mutate: your {kind} ({column.name})", asked, None, None,
                         "your code's own time: not recorded before it runs",
                         tokens_reason="n/a", cached_reason="asked once per corpus")
        )  # fmt: skip
        if column.pipeline and column.stack.oracle:
            estimates.append(
                CallEstimate(f"mutate: your oracle ({column.name})", asked, None, None,
                             "your code's own time: not recorded before it runs",
                             tokens_reason="n/a",
                             cached_reason="at most: once per answered record with gold")
            )  # fmt: skip
        builds = (
            f"builds: {1 + len(groups)} builds of your {kind} (the unmutated corpus, then "
            f"{len(groups)} group(s) of mutants that cannot interfere)"
        )
    if generate and not column.pipeline:
        records = len(cases) + sum(len(_cases(m, ready)) for m in applied)
        estimates.append(
            CallEstimate(f"mutate: generate {generator}", 2 * records + len(cases), None, None,
                         "known only after retrieval (identical prompts merge)",
                         tokens_reason="known only after retrieval",
                         cached_reason="at most: each record's prompt and oracle prompt, "
                         "and each phrasing asked closed-book")
        )  # fmt: skip
    return estimates, builds


def _intents(group: Any, ready: Any) -> list:
    names = {m.intent for m in group.mutants}
    return [i for i in ready.intents if i.name in names]


def _cases(mutant: Any, ready: Any) -> tuple:
    return next(i.cases for i in ready.intents if i.name == mutant.intent)


def mutate_dry_run(ready: Any, generate: bool, generator: str) -> int:
    """Print the calls, the builds and the estimated time; exit 0."""
    estimates, builds = mutate_estimates(ready, generate, generator, open_cache())
    print(builds)
    for line in estimate_lines(estimates):
        print(line)
    return 0
