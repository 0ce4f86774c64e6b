"""The judge metrics ragaudit can score, declared once: which library runs each, what it
measures (so what it is scored against), the threshold it flags at and where that
threshold comes from, and the calls per sample its library's source implies.

- An `answer` metric (faithfulness) is scored against ragaudit's verdict on the answer:
  a wrong answer is what it should flag.
- A `context` metric (context recall, contextual recall) measures retrieval, so it is
  scored against `gold_in_context`: missed gold is what it should flag.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ragaudit.errors import RagauditError
from ragaudit.registry import GROUPS, Registry, resolve, unknown_name_message

THRESHOLD = 0.5


@dataclass(frozen=True)
class Metric:
    """One library's metric as ragaudit runs and scores it."""

    name: str
    """`library:metric`, as given to --metric."""
    library: str
    measures: str
    """`answer` (scored against the verdict) or `context` (against gold_in_context)."""
    run: str
    """`module:function(sample, base_url, model, timeout) -> (score, reason)`."""
    calls_in_source: int
    """Judge calls per sample the library's source makes (no retries, no re-asks)."""
    needs_reference: bool
    threshold_source: str
    threshold: float = THRESHOLD

    def runner(self) -> Callable:
        return resolve(self.run)


_RAGAS_THRESHOLD = "ragaudit's choice: RAGAS metrics have no pass/fail threshold"
_DEEPEVAL_THRESHOLD = "DeepEval's default threshold"

METRICS: dict[str, Metric] = {  # the shipped metrics; plugins' join in metric_registry
    metric.name: metric
    for metric in (
        Metric(
            "ragas:faithfulness",
            "ragas",
            "answer",
            "ragaudit.judges.ragas_metrics:faithfulness",
            2,
            False,
            _RAGAS_THRESHOLD,
        ),
        Metric(
            "ragas:context_recall",
            "ragas",
            "context",
            "ragaudit.judges.ragas_metrics:context_recall",
            1,
            True,
            _RAGAS_THRESHOLD,
        ),
        Metric(
            "deepeval:faithfulness",
            "deepeval",
            "answer",
            "ragaudit.judges.deepeval_metrics:faithfulness",
            4,
            False,
            _DEEPEVAL_THRESHOLD,
        ),
        Metric(
            "deepeval:contextual_recall",
            "deepeval",
            "context",
            "ragaudit.judges.deepeval_metrics:contextual_recall",
            2,
            True,
            _DEEPEVAL_THRESHOLD,
        ),
    )
}


def metric_registry() -> Registry[Metric]:
    """A fresh registry of METRICS and the metrics plugins declare in the `ragaudit.metrics`
    entry-point group (each a `Metric` named by its `name`)."""
    registry: Registry[Metric] = Registry("metric", GROUPS["metric"])
    for name, metric in METRICS.items():
        registry.add(name, metric)
    return registry


def metric_names() -> list[str]:
    """Every metric's name, the shipped ones first (nothing imported)."""
    return metric_registry().names()


def metric_named(name: str) -> Metric:
    """The declared metric `name`; one line with the valid names (and a near miss) if none."""
    registry = metric_registry()
    if name not in registry:
        raise RagauditError(f"--metric {unknown_name_message('metric', name, registry.names())}")
    metric = registry.get(name)
    if getattr(metric, "name", None) != name:
        raise RagauditError(f"metric {name!r} ({registry.origin(name)}) is not a Metric named so")
    return metric
