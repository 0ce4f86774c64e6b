"""toy:always_half: a judge metric that scores every sample 0.5, calling no judge."""

from __future__ import annotations

from ragaudit.judges.metrics import Metric

METRIC = Metric(
    "toy:always_half",
    "toy",
    "answer",
    "ragaudit_toy_plugin.metric:always_half",
    0,
    False,
    "the toy's choice",
)


def always_half(sample, base_url, model, timeout) -> tuple[float, str]:
    """The same score for every sample."""
    return 0.5, "the toy scores every sample 0.5"
