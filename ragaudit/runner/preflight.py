"""Before a run: every model the plan needs can serve, asked of its backend before any work.

A run against an unreachable Ollama, or a model that was never pulled, would otherwise
build the corpus and its indexes and then count every call as failed. So each backend that
can tell beforehand declares a check (`Backend.preflight` in backends/catalogue.py), and it
runs here on the plan's models of that backend, in the catalogue's order: the local
backend names a missing package of the `ragaudit[local]` extra without the network (its
weights are verified when they load); Ollama asks its server once (GET /api/tags) and names
the host and the model missing; an `openai:` server is not listed. The user's stacks
(--stack) are checked too, a model only a stack file names with that file's line in front.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragaudit.backends.catalogue import Backend, backend_registry
from ragaudit.backends.retry import RetryPolicy
from ragaudit.registry import Registry, resolve
from ragaudit.runner.plan import RunPlan


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


def planned_models(plan: RunPlan) -> list[tuple[str, str]]:
    """(spec, origin) of every model the run uses, each spec once: the run's own first
    (origin ""), then those only a stack file names ("stack file F: line N: field F: ")."""
    origins = {spec: "" for spec in _run_specs(plan)}
    for spec, where in _stack_models(plan):
        origins.setdefault(spec, f"{where}: ")
    return list(origins.items())


def _by_backend(
    plan: RunPlan, backends: Registry[Backend]
) -> Iterable[tuple[Backend, list[tuple[str, str]]]]:
    models = planned_models(plan)
    for backend in backends.items():
        mine = [(spec, origin) for spec, origin in models if _prefix(spec) == backend.prefix]
        if mine:
            yield backend, mine


def _prefix(spec: str) -> str:
    return spec.partition(":")[0]


def remote_specs(plan: RunPlan, backends: Registry[Backend] | None = None) -> list[str]:
    """The plan's specs a server is asked about before the run (today: Ollama's): its
    embedders, and its generator if it generates; then those of its stacks."""
    backends = backends if backends is not None else backend_registry()
    return [
        spec
        for backend, models in _by_backend(plan, backends)
        if backend.remote and backend.preflight
        for spec, _ in models
    ]


def preflight(
    plan: RunPlan,
    retry: RetryPolicy | None = None,
    *,
    backends: Registry[Backend] | None = None,
    only: tuple[str, ...] | None = None,
    **lookups: object,
) -> None:
    """Raise a one-line error when a model of `plan` cannot serve, asking each backend's
    declared check in turn (those named in `only`, default all); a model only a stack file
    names is refused with the file, line and field in front. Nothing is written.
    `lookups` reach every check (the local one reads `weights`, where the packages of its
    extra are looked up: a test names packages that are not installed)."""
    backends = backends if backends is not None else backend_registry()
    for backend, models in _by_backend(plan, backends):
        if backend.preflight and (only is None or backend.prefix in only):
            resolve(backend.preflight)(models, retry, **lookups)


def check_local_extra(plan: RunPlan, weights: dict | None = None) -> None:
    """The local backend's check alone: a local generator the plan runs has the
    `ragaudit[local]` extra installed (looked up in `weights`, default qwen.WEIGHTS)."""
    preflight(plan, only=("local",), weights=weights)
