"""Before a run: every remote model the plan needs is on a server that answers.

A run against an unreachable Ollama, or a model that was never pulled, would otherwise
build the corpus and its indexes and then count every call as failed. The server says
which models it has (GET /api/tags), so both are known before any work: one request per
host, one line naming the host and the model when something is missing. Local specs need
no check (their weights are verified when they load).
"""

from __future__ import annotations

from ragaudit.backends.ollama_backend import list_models, ollama_host, tagged
from ragaudit.backends.retry import RetryPolicy
from ragaudit.backends.specs import remote_model
from ragaudit.errors import RagauditError
from ragaudit.pipeline.plan import RunPlan


def remote_specs(plan: RunPlan) -> list[str]:
    """The plan's specs served by Ollama: its embedders, and its generator if it generates."""
    specs = list(plan.embedders) + ([plan.generator] if plan.generate else [])
    return [spec for spec in dict.fromkeys(specs) if remote_model(spec) is not None]


def preflight(plan: RunPlan, retry: RetryPolicy | None = None) -> None:
    """Raise a one-line RagauditError unless every remote model of `plan` is listed by
    its server (OLLAMA_HOST). Nothing is written."""
    specs = remote_specs(plan)
    if not specs:
        return
    host = ollama_host()
    models = [remote_model(spec) for spec in specs]
    listed = list_models(host, models, retry)  # unreachable: ModelCallFailed, one line
    for spec, model in zip(specs, models, strict=True):
        if tagged(model) not in listed:
            have = ", ".join(sorted(listed)) or "none"
            raise RagauditError(
                f"{spec}: model {model!r} is not on the ollama server at {host} "
                f"(it has: {have}); run `ollama pull {model}` there, or name another model"
            )
