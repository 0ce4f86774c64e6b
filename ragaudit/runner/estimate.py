"""`--dry-run`'s estimates: the calls a run (or an audit, a mutation run) would make per
model, how many the call cache holds and how many it would compute, and an estimated time,
told before any model call; nothing is called or written.

A pipeline stage knows its calls and their keys exactly (targets.pipeline.dryrun). The
matrix's and a component stack's embedding and generation calls are counted without a model
(the corpus cut by each chunking; each stage's `estimate`). An embedding call's key holds
the model's digest, which only a loaded model reports; the cache records how the model's
stored calls were keyed (the identity of its latest one: backend, name, server, settings)
and the digest last reported for it, so the keys are built from those and looked up: "N
cached, M to compute", the time of the M at the mean the cache recorded for the model. A
model with no stored call has none cached; one whose stored calls record no identity says
so, and its time is that of every call ("at most"). A generation call's key holds its
prompt, and the prompt holds the chunks retrieval will choose: its cached share cannot be
told before retrieval, and the line says so. Nothing is guessed.

Prompt tokens (runner.prompt_tokens): the fixed part of each answer prompt is counted
exactly with a local generator's own tokenizer and the k retrieved chunks estimated, so the
figure is labelled estimated; a pipeline's are not counted (its prompt is its own).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from ragaudit import paths
from ragaudit.backends.cache import CallCache, call_key
from ragaudit.runner.plan import RunPlan, planted_corpus_for
from ragaudit.runner.prompt_tokens import PromptTokens
from ragaudit.runner.stage import Stage
from ragaudit.targets.pipeline.dryrun import CallEstimate


def open_cache() -> CallCache | None:
    """The call cache opened read-only (None when there is none yet): a dry run writes
    nothing, not even an empty cache."""
    return CallCache(readonly=True) if paths.cache_path().exists() else None


def run_estimates(plan: RunPlan, stages: Sequence[Stage]) -> list[CallEstimate]:
    """Every stage's calls for `plan` (runner.stages.stages_for, built for a dry run), in
    the stages' order, each stage telling its own (Stage.estimate)."""
    corpus = planted_corpus_for(plan)
    cache = open_cache()
    return [estimate for stage in stages for estimate in stage.estimate(corpus, cache)]


BEFORE_RETRIEVAL = "cached: not known before retrieval (each prompt holds the chunks it retrieves)"


def generate_estimate(
    what: str, spec: str, calls: int, cache: CallCache | None, tokens: str | PromptTokens | None
) -> CallEstimate:
    """`calls` of the generator `spec`, whose cached share retrieval decides (BEFORE_RETRIEVAL),
    their time at the mean the cache recorded for it (every call: an upper bound), else that
    none was; `tokens`: the prompt tokens (PromptTokens), or why they are not counted."""
    seconds, reason = _time(spec, calls, cache, every_call=True)
    if isinstance(tokens, PromptTokens):
        return CallEstimate(what, calls, None, seconds, reason, tokens.total, tokens.how, True,
                            BEFORE_RETRIEVAL)  # fmt: skip
    return CallEstimate(what, calls, None, seconds, reason, None, tokens,
                        cached_reason=BEFORE_RETRIEVAL)  # fmt: skip


def _time(
    spec: str, calls: int, cache: CallCache | None, *, every_call: bool
) -> tuple[float | None, str]:
    recorded, mean = cache.recorded_seconds(model=spec) if cache is not None else (0, None)
    if mean is None:
        return None, f"no recorded calls of {spec} yet"
    if every_call:
        return calls * mean, f"at most: every call, at the mean of {recorded} recorded"
    return calls * mean, f"mean of {recorded} recorded"


SAMPLE_TEXTS = 32
"""Texts a first dry run embeds, timed, when the cache recorded no call of the embedder."""


def sampled_time(spec: str, texts: Sequence[str], calls: int) -> tuple[float | None, str]:
    """`calls` at the mean of a short timed sample of the embedder on this machine: up to
    SAMPLE_TEXTS of `texts` (spread over them, so long and short ones), embedded through a
    throw-away cache in a temporary folder (the data folder is left alone)."""
    import tempfile
    import time

    from ragaudit.backends.specs import load_embedder

    distinct = list(dict.fromkeys(texts))
    if not distinct or not calls:
        return 0.0, "nothing to compute"
    step = max(1, len(distinct) // SAMPLE_TEXTS)
    sample = distinct[::step][:SAMPLE_TEXTS]
    with tempfile.TemporaryDirectory() as folder:
        embedder = load_embedder(spec, CallCache(Path(folder) / "sample.sqlite"))
        embedder.embed(sample[:1])  # the model's first call loads it: not a text's cost
        started = time.perf_counter()
        embedder.embed(sample)
        mean = (time.perf_counter() - started) / len(sample)
    return calls * mean, f"a timed sample of {len(sample)} texts here: no recorded calls yet"


def embed_estimate(
    what: str, spec: str, passages: Iterable[str], queries: Iterable[str],
    cache: CallCache | None, sample: bool = False,
) -> CallEstimate:  # fmt: skip
    """The embedding calls of `spec` for the distinct `passages` and `queries` (one call each),
    how many the cache holds (keys built as its stored calls were keyed: recorded_keying),
    the time of the rest at the mean it recorded for the model (with `sample` and nothing
    recorded: at the mean of a short timed sample, sampled_time)."""
    passages = list(passages)
    estimate = _embed_estimate(what, spec, passages, queries, cache)
    if sample and estimate.seconds is None:
        to_compute = estimate.calls - (estimate.cached or 0)
        seconds, reason = sampled_time(spec, passages, to_compute)
        estimate = replace(estimate, seconds=seconds, seconds_reason=reason)
    return estimate


def _embed_estimate(
    what: str, spec: str, passages: Iterable[str], queries: Iterable[str],
    cache: CallCache | None,
) -> CallEstimate:  # fmt: skip
    wanted = [("passage", t) for t in dict.fromkeys(passages)]
    wanted += [("query", t) for t in dict.fromkeys(queries)]
    calls = len(wanted)
    keying = recorded_keying(cache, spec, "embed")
    if isinstance(keying, str):  # no identity recorded for its stored calls
        seconds, reason = _time(spec, calls, cache, every_call=True)
        return CallEstimate(what, calls, None, seconds, reason, tokens_reason="n/a",
                            cached_reason=keying)  # fmt: skip
    if keying is None:  # nothing of it stored
        cached, how = 0, f"no call of {spec} stored yet"
    else:
        # Whether the model keys by role is its engine's: a text's call is stored under
        # one of the two forms, never both, so either one found is it.
        keys = [[keying.key({"role": r, "text": t}), keying.key({"role": None, "text": t})]
                for r, t in wanted]  # fmt: skip
        stored = cache.get_many([key for pair in keys for key in pair])
        cached = sum(1 for pair in keys if pair[0] in stored or pair[1] in stored)
        how = f"keyed by the digest recorded for {spec}, {keying.digest[:19]}"
    seconds, reason = _time(spec, calls - cached, cache, every_call=False)
    return CallEstimate(what, calls, cached, seconds, reason, tokens_reason="n/a",
                        cached_reason=how)  # fmt: skip


class Keying:
    """How a model's calls are keyed (backends.cache.call_key's parts but the input)."""

    def __init__(self, description: dict, digest: str, kind: str) -> None:
        self.backend, self.model = description["backend"], description["model"]
        self.server, self.params = description.get("server"), description.get("params") or {}
        self.digest, self.kind = digest, kind

    def key(self, payload: object) -> str:
        """The key of the call of `payload`."""
        return call_key(self.backend, self.model, self.digest, self.kind, self.params, payload,
                        self.server)  # fmt: skip


def recorded_keying(cache: CallCache | None, spec: str, kind: str) -> Keying | str | None:
    """How the cache keyed `spec`'s latest stored call of `kind` (the identity it recorded,
    with the digest last reported for that model and server), None when it stores none, or
    why it cannot say (its stored calls record no identity)."""
    if cache is None:
        return None
    stored, description = cache.latest_identity(spec, kind)
    if not stored:
        return None
    if description is None:
        return f"cached: no digest recorded for {spec} yet (its stored calls predate it)"
    server = description.get("server") or ""
    digest = cache.last_digest(description["backend"], description["model"], server)
    return Keying(description, digest or description["digest"], kind)
