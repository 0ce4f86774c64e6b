"""Where engine calls run: in this process (`local`, the default) or on Ray workers (`ray`).

The cache-aware fronts (backends/cached.py) look up every call, hand only the misses to
`engine_outcomes`, and store, count and fail what comes back themselves: the process that
runs the command stays the single writer of the call cache and the results file, whichever
executor computes. A command that asks for Ray opens it with `executor_scope` for its
duration; nothing else changes, and `local` imports no Ray at all.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ragaudit.backends.concurrency import Outcome, check_workers, ordered_outcomes
from ragaudit.backends.ray_executor import RayExecutor
from ragaudit.errors import RagauditError

EXECUTORS = ("local", "ray")
RAY_EXTRA = "pip install 'ragaudit[ray]'"

_active: list[RayExecutor] = []  # the executor a command opened (at most one at a time)


@dataclass(frozen=True)
class EngineRecipe:
    """How another process builds the same engine: `build(spec, **args)` (backends/specs)."""

    build: Callable[..., Any]
    """An importable function, so a worker can find it by name."""
    spec: str
    args: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        """One pool of workers per distinct engine."""
        return f"{self.build.__module__}.{self.build.__qualname__}|{self.spec}|{self.args!r}"


def check_executor(name: str, address: str | None = None, workers: int | None = None) -> None:
    """Refuse an unknown executor, a Ray address or worker count without `ray`, and a
    missing Ray install, in one line each, before any work."""
    if name not in EXECUTORS:
        raise RagauditError(f"--executor {name!r}: valid: {', '.join(EXECUTORS)}")
    if name == "local" and address is not None:
        raise RagauditError("--ray-address applies to --executor ray only")
    if name == "local" and workers is not None:
        raise RagauditError("--ray-workers applies to --executor ray only")
    if workers is not None:
        check_workers(workers, "--ray-workers")
    if name == "ray" and importlib.util.find_spec("ray") is None:
        raise RagauditError(f"--executor ray needs Ray: {RAY_EXTRA}")


@contextmanager
def executor_scope(
    name: str = "local", address: str | None = None, workers: int | None = None
) -> Iterator[RayExecutor | None]:
    """For the block's duration, engine calls run on `name`: `local` changes nothing; `ray`
    connects to `address` (None: a local cluster started here and stopped at the end) with
    `workers` workers per model (None: one per CPU of the cluster)."""
    check_executor(name, address, workers)
    if name == "local":
        yield None
        return
    executor = RayExecutor(address, workers)
    _active.append(executor)
    try:
        yield executor
    finally:
        _active.remove(executor)
        executor.close()


def engine_outcomes(
    front: Any,
    call: Callable[[Any, Any], Any],
    payloads: Sequence[Any],
    workers: int,
    *,
    stop_on_error: bool = False,
    answered: bool = False,
) -> Iterator[tuple[int, Outcome]]:
    """(index, outcome) of `call(engine, payload)` for each payload, with the front's
    engine. Locally: in order, at most `workers` at once (backends.concurrency). Under an
    open Ray executor, for a front that says how to rebuild its engine (`recipe`): on the
    workers, as they finish (a caller needing order uses `in_item_order`)."""
    recipe = getattr(front, "recipe", None)
    if _active and recipe is not None:
        return _active[-1].outcomes(
            recipe, call, payloads, stop_on_error=stop_on_error, answered=answered
        )
    engine = front.engine
    outcomes = ordered_outcomes(
        lambda payload: call(engine, payload),
        payloads,
        workers,
        stop_on_error=stop_on_error,
        answered=answered,
    )
    return _numbered(outcomes)


def in_item_order(pairs: Iterator[tuple[int, Outcome]]) -> Iterator[Outcome]:
    """The outcomes of `pairs` in index order (held back until those before them came)."""
    held: dict[int, Outcome] = {}
    wanted = 0
    try:
        for index, outcome in pairs:
            held[index] = outcome
            while wanted in held:
                yield held.pop(wanted)
                wanted += 1
    finally:
        pairs.close()  # closing early stops the calls not yet started


def _numbered(outcomes: Iterator[Outcome]) -> Iterator[tuple[int, Outcome]]:
    try:
        yield from enumerate(outcomes)
    finally:
        outcomes.close()
