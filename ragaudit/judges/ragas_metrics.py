"""RAGAS 0.4.3 metrics (its `metrics.collections`, the library's current API), each run on
one sample through the proxy: the inputs its documentation names, an AsyncOpenAI client
for the judge wrapped by RAGAS's own `llm_factory` (instructor, JSON mode), and the
library's score as it returns it (NaN included: the runner decides what a NaN is).

RAGAS reports no reasoning text of its own here; the judge's replies (its statements and
verdicts) are kept by the proxy and shown beside the score instead."""

from __future__ import annotations

import asyncio

from ragaudit.judges.samples import Sample


def _llm(base_url: str, model: str, timeout: float):
    from openai import AsyncOpenAI
    from ragas.llms import llm_factory

    # No SDK retries: the proxy retries the judge, and each call is counted there once.
    client = AsyncOpenAI(
        base_url=base_url, api_key="ragaudit-judge", max_retries=0, timeout=timeout
    )
    return llm_factory(model, client=client)


def faithfulness(sample: Sample, base_url: str, model: str, timeout: float) -> tuple:
    """RAGAS faithfulness: statements from the answer (1 call), each checked against the
    contexts (1 call); the share supported. (score, reasoning text or None)."""
    from ragas.metrics.collections import Faithfulness

    metric = Faithfulness(llm=_llm(base_url, model, timeout))
    result = asyncio.run(
        metric.ascore(
            user_input=sample.question,
            response=sample.answer,
            retrieved_contexts=list(sample.contexts),
        )
    )
    return result.value, getattr(result, "reason", None)


def context_recall(sample: Sample, base_url: str, model: str, timeout: float) -> tuple:
    """RAGAS context recall: the reference's statements attributed to the contexts (1 call)."""
    from ragas.metrics.collections import ContextRecall

    metric = ContextRecall(llm=_llm(base_url, model, timeout))
    result = asyncio.run(
        metric.ascore(
            user_input=sample.question,
            retrieved_contexts=list(sample.contexts),
            reference=sample.reference,
        )
    )
    return result.value, getattr(result, "reason", None)
