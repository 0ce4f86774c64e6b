"""RAGAS 0.4.3 metrics (its `metrics.collections`, the library's current API), each run on
one sample through the proxy: the inputs its documentation names, an AsyncOpenAI client
for the judge wrapped by RAGAS's own `llm_factory` (instructor, JSON mode), and the
library's score as it returns it (NaN included: the runner decides what a NaN is).

RAGAS reports no reasoning text of its own here; the judge's replies (its statements and
verdicts) are kept by the proxy and shown beside the score instead."""

from __future__ import annotations

import asyncio

from ragaudit.judges.samples import Sample


async def _score(metric_class, base_url: str, model: str, timeout: float, **inputs):
    """The metric's result on `inputs`, its judge client closed inside the event loop: a
    client left to the garbage collector schedules its close on the loop `asyncio.run`
    has closed, and each printed a "Task exception was never retrieved" traceback."""
    from openai import AsyncOpenAI
    from ragas.llms import llm_factory

    # No SDK retries: the proxy retries the judge, and each call is counted there once.
    client = AsyncOpenAI(
        base_url=base_url, api_key="ragaudit-judge", max_retries=0, timeout=timeout
    )
    try:
        metric = metric_class(llm=llm_factory(model, client=client))
        return await metric.ascore(**inputs)
    finally:
        await client.close()


def faithfulness(sample: Sample, base_url: str, model: str, timeout: float) -> tuple:
    """RAGAS faithfulness: statements from the answer (1 call), each checked against the
    contexts (1 call); the share supported. (score, reasoning text or None)."""
    from ragas.metrics.collections import Faithfulness

    result = asyncio.run(
        _score(
            Faithfulness, base_url, model, timeout,
            user_input=sample.question,
            response=sample.answer,
            retrieved_contexts=list(sample.contexts),
        )
    )  # fmt: skip
    return result.value, getattr(result, "reason", None)


def context_recall(sample: Sample, base_url: str, model: str, timeout: float) -> tuple:
    """RAGAS context recall: the reference's statements attributed to the contexts (1 call)."""
    from ragas.metrics.collections import ContextRecall

    result = asyncio.run(
        _score(
            ContextRecall, base_url, model, timeout,
            user_input=sample.question,
            retrieved_contexts=list(sample.contexts),
            reference=sample.reference,
        )
    )  # fmt: skip
    return result.value, getattr(result, "reason", None)
