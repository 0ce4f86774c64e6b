"""What a pipeline stage would ask, before it asks anything: --dry-run's part for a
`pipeline:` stack. Its calls are known exactly (one per distinct question, one per distinct
oracle context), and so is which the cache holds (their keys need only the pipeline's
identity, not a model). The time is estimated from the seconds the cache recorded for this
identity's computed calls; with none recorded, it says so rather than guess. Prompt tokens
are not counted: the pipeline builds its own prompt."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ragaudit.backends.cache import CallCache, identity_key
from ragaudit.targets.pipeline.calls import answer_key
from ragaudit.targets.pipeline.oracle import oracle_passages, oracle_payload


@dataclass(frozen=True)
class CallEstimate:
    """One model's calls in a dry run: what every stage's `estimate` returns (runner.stage),
    and the audit's and mutate's (runner.estimate_lines prints them). Declared here, below
    runner, because a pipeline's estimate is told by targets.pipeline."""

    what: str
    """The stage and model, as a person reads it."""
    calls: int
    cached: int | None
    """How many the cache holds; None when that cannot be told before the run (`cached_reason`
    says why)."""
    seconds: float | None
    """The estimated time of the calls to compute, or None (`seconds_reason`)."""
    seconds_reason: str | None = None
    prompt_tokens: int | None = None
    tokens_reason: str | None = None
    tokens_estimated: bool = False
    cached_reason: str | None = None
    """How the cached share was told (beside a count), or why it cannot be (in its place)."""


def estimate_calls(
    what: str, keys: list[str], identity: str, cache: CallCache | None
) -> CallEstimate:
    """The calls under `keys` (distinct), how many `cache` holds, their estimated time."""
    cached = len(cache.get_many(keys)) if cache is not None else 0
    recorded, mean = cache.recorded_seconds(identity=identity) if cache else (0, None)
    computed = len(keys) - cached
    if mean is None:
        seconds, reason = None, "no recorded calls of this pipeline yet"
    else:
        seconds, reason = computed * mean, f"mean of {recorded} recorded calls"
    return CallEstimate(what, len(keys), cached, seconds, reason, None,
                        "not counted: the pipeline builds its own prompt")  # fmt: skip


def pipeline_estimates(stage: Any, corpus: Any, cache: CallCache | None) -> list[CallEstimate]:
    """The pipeline's answers, and its oracle's, that a run of `stage` over `corpus` asks."""
    built, stack = stage.built, stage.stack
    instances = [i for i in corpus.instances if stack.runs(i.probe)]
    identity = identity_key(built.identity)
    questions = list(dict.fromkeys(i.question for i in instances))
    keys = [answer_key(built.model, identity, q) for q in questions]
    estimates = [estimate_calls(f"{stage.name}: {built.model}", keys, identity, cache)]
    if built.oracle is not None:
        documents = {doc.doc_id: doc for doc in corpus.documents}
        oracle_identity = identity_key(built.oracle_identity)
        payloads = []
        for instance in instances:
            if not instance.gold_spans or not stage._generates(instance.probe):
                continue
            record = {
                "gold_spans": [asdict(s) for s in instance.gold_spans],
                "extra_spans": [asdict(s) for s in instance.extra_spans],
            }
            texts = [documents[d].text[a:b] for d, a, b in oracle_passages(record, documents)]
            payloads.append(oracle_payload(instance.question, texts))
        distinct = dict.fromkeys(payloads)
        keys = [answer_key(built.oracle_model, oracle_identity, p) for p in distinct]
        estimates.append(
            estimate_calls(f"{stage.name}: {built.oracle_model}", keys, oracle_identity, cache)
        )
    return estimates
