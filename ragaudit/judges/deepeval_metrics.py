"""DeepEval 4.3.1 metrics, each run on one sample through the proxy: an LLMTestCase with the
fields its documentation names, DeepEval's own LocalModel (an OpenAI-compatible server) for
the judge, the LLM chain (`eval_mode="llm"`), its default threshold (0.5) and its reason."""

from __future__ import annotations

from ragaudit.judges.samples import Sample


def _model(base_url: str, model: str, timeout: float):
    from deepeval.models import LocalModel

    # LocalModel turns the SDK's retries off itself (DeepEval retries, the proxy counts).
    return LocalModel(model=model, base_url=base_url, api_key="ragaudit-judge", timeout=timeout)


def faithfulness(sample: Sample, base_url: str, model: str, timeout: float) -> tuple:
    """DeepEval faithfulness: truths from the contexts, claims from the answer, a verdict per
    claim, then a reason (4 calls). (score, reason)."""
    from deepeval.metrics import FaithfulnessMetric
    from deepeval.test_case import LLMTestCase

    metric = FaithfulnessMetric(
        model=_model(base_url, model, timeout), eval_mode="llm", async_mode=False
    )
    case = LLMTestCase(
        input=sample.question,
        actual_output=sample.answer,
        retrieval_context=list(sample.contexts),
    )
    metric.measure(case, _show_indicator=False)
    return metric.score, metric.reason


def contextual_recall(sample: Sample, base_url: str, model: str, timeout: float) -> tuple:
    """DeepEval contextual recall: a verdict per sentence of the expected output on whether
    the contexts support it, then a reason (2 calls). (score, reason)."""
    from deepeval.metrics import ContextualRecallMetric
    from deepeval.test_case import LLMTestCase

    metric = ContextualRecallMetric(
        model=_model(base_url, model, timeout), eval_mode="llm", async_mode=False
    )
    case = LLMTestCase(
        input=sample.question,
        actual_output=sample.answer,
        expected_output=sample.reference,
        retrieval_context=list(sample.contexts),
    )
    metric.measure(case, _show_indicator=False)
    return metric.score, metric.reason
