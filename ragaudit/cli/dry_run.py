"""`--dry-run` on `run` (and `audit`): the calls a run would make, how many the call cache
holds and how many it would compute, and an estimated time, printed before any model call;
then exit 0, every input checked and no file written.

A pipeline stage knows its calls and their keys exactly (userpipeline.dryrun). The matrix's
and a component stack's embedding and generation calls are counted without a model (the
corpus cut by each chunking), but which of them the cache holds shows only once the model
has loaded (the key holds its digest), so those lines say "at most" and estimate the time
of every call from the seconds the cache recorded for that model. A model with no recorded
calls is said to have none; nothing is guessed.

Prompt tokens (cli.prompt_tokens): the fixed part of each answer prompt (system message,
template, question, the chat template) is counted exactly with a local generator's own
tokenizer, and the k retrieved chunks, unknown before retrieval, are estimated as k times
the mean chunk of that chunking; so the figure is labelled estimated. A remote generator's
are estimated at 4 characters a token, and a pipeline's are not counted (its prompt is its
own).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragaudit import paths
from ragaudit.backends.cache import CallCache
from ragaudit.cli.prompt_tokens import PromptTokens, answer_prompt_tokens
from ragaudit.corpus.files import load_corpus
from ragaudit.stack.chunking import chunk_corpus
from ragaudit.userpipeline.dryrun import CallEstimate


def open_cache() -> CallCache | None:
    """The call cache opened read-only (None when there is none yet): a dry run writes
    nothing, not even an empty cache."""
    return CallCache(readonly=True) if paths.cache_path().exists() else None


def run_estimates(plan: Any, stages: Sequence[Any]) -> list[CallEstimate]:
    """Every stage's calls for `plan`."""
    corpus = load_corpus()
    if plan.n < corpus.n:
        corpus = corpus.subset(plan.n)
    cache = open_cache()
    estimates: list[CallEstimate] = []
    for stage in stages:
        if hasattr(stage, "estimate"):
            estimates += stage.estimate(corpus, cache)
        elif hasattr(stage, "stack"):
            estimates += _stack_estimates(stage, corpus, plan, cache)
        else:
            estimates += _matrix_estimates(plan, corpus, cache)
    return estimates


def by_model(
    what: str, spec: str, calls: int, cache: Any, tokens: str | PromptTokens | None
) -> CallEstimate:
    """`calls` of the model `spec`, their cached share told once it loads, their time at the
    mean the cache recorded for it (every call: an upper bound), else that none was;
    `tokens`: the prompt tokens (PromptTokens), or why they are not counted."""
    recorded, mean = cache.recorded_seconds(model=spec) if cache is not None else (0, None)
    if mean is None:
        seconds, reason = None, f"no recorded calls of {spec} yet"
    else:
        seconds, reason = calls * mean, f"at most: every call, at the mean of {recorded} recorded"
    if isinstance(tokens, PromptTokens):
        return CallEstimate(what, calls, None, seconds, reason, tokens.total, tokens.how, True)
    return CallEstimate(what, calls, None, seconds, reason, None, tokens)


def _matrix_estimates(plan: Any, corpus: Any, cache: Any) -> list[CallEstimate]:
    questions = {i.question for i in corpus.instances}
    texts = {
        c.text for config in plan.configs for c in chunk_corpus(corpus.documents, config.chunking)
    }
    estimates = [
        by_model(f"matrix: embed {spec}", spec, len(texts) + len(questions), cache, "n/a")
        for spec in plan.embedders
    ]
    if plan.generate:
        probes = set(plan.gen_probes or corpus.probes)
        columns = [  # each generating config's questions (a config may run some probes only)
            ([i.question for i in corpus.instances if i.probe in probes and c.runs(i.probe)], c.k,
             [chunk.text for chunk in chunk_corpus(corpus.documents, c.chunking)])
            for c in plan.configs if c.name in set(plan.gen_configs)
        ]  # fmt: skip
        tokens = answer_prompt_tokens(plan.generator, columns, None)
        records = sum(len(questions) for questions, _, _ in columns)
        estimates.append(
            by_model(f"matrix: generate {plan.generator} (prompts, with oracle prompts at most "
                      "twice the records)", plan.generator, 2 * records, cache, tokens)
        )  # fmt: skip
    return estimates


def _stack_estimates(column: Any, corpus: Any, plan: Any, cache: Any) -> list[CallEstimate]:
    stack = column.stack
    instances = [i for i in corpus.instances if stack.runs(i.probe)]
    estimates = []
    if stack.embedder is not None and stack.retriever is None:
        texts = {c.text for c in column.stage.chunks} | {i.question for i in instances}
        spec = stack.embedder["spec"]
        estimates.append(
            by_model(f"stack {stack.name}: embed {spec}", spec, len(texts), cache, "n/a")
        )
    if plan.generate:
        spec = (stack.generator or {"spec": plan.generator})["spec"]
        probes = set(plan.gen_probes or corpus.probes)
        questions = [i.question for i in instances if i.probe in probes]
        chunks = [c.text for c in column.stage.chunks] if stack.retriever is None else []
        tokens = answer_prompt_tokens(spec, [(questions, stack.k, chunks)], stack.prompt)
        estimates.append(
            by_model(f"stack {stack.name}: generate {spec}", spec, 2 * len(questions), cache,
                     tokens)
        )  # fmt: skip
    return estimates


def estimate_lines(estimates: Sequence[CallEstimate]) -> list[str]:
    """One line per model's calls, then the total: what `--dry-run` prints."""
    lines = []
    known = 0.0
    unknown = []
    for e in estimates:
        cached = (
            f"{e.cached} cached, {e.calls - e.cached} to compute"
            if e.cached is not None
            else "cached: told once the model loads"
        )
        time = (
            f"~{_duration(e.seconds)} ({e.seconds_reason})"
            if e.seconds is not None
            else e.seconds_reason
        )
        tokens = (
            f"{'~' if e.tokens_estimated else ''}{e.prompt_tokens:,} prompt tokens "
            f"({e.tokens_reason})"
            if e.prompt_tokens is not None
            else f"prompt tokens {e.tokens_reason}"
        )
        lines.append(f"{e.what}: {e.calls} calls, {cached}; time {time}; {tokens}")
        if e.seconds is not None:
            known += e.seconds
        else:
            unknown.append(e.what)
    total = f"dry run: {sum(e.calls for e in estimates)} calls; estimated time ~{_duration(known)}"
    if unknown:
        total += f" plus the calls of {len(unknown)} model(s) with no recorded time"
    return [*lines, f"{total}; nothing was called or written"]


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"
