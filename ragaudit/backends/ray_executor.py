"""Engine calls fanned out to Ray workers: one actor per worker, each holding its own engine.

A worker builds its engine once from the front's recipe (a local model is loaded once per
worker; a remote one is a client to the same server) and then only computes: it never
sees the call cache. The driver gives each worker a contiguous run of the calls, in the
order asked (generation's prompts arrive sorted so that neighbours share a prefix, which
llama.cpp reuses), keeps at most DEPTH calls queued per worker, and takes each outcome as
it finishes.

A worker that dies (killed, out of memory, its node gone) is restarted by Ray and its
queued calls retried, up to RESTARTS times; past that, each call it held comes back as a
failed outcome (WorkerLost, which the front counts as a failed call) and the calls it had
not been given go to the workers still alive. No call is lost: each comes back once, with
a value or an error.

Ray is imported only when a RayExecutor is made (`--executor ray`).
"""

from __future__ import annotations

import os
import pickle
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ragaudit.backends.catalogue import in_process_embedders
from ragaudit.backends.concurrency import Outcome
from ragaudit.backends.qwen import LOCAL_SPECS, llm_threads, prefix_cache_enabled

DEPTH = 2
"""Calls queued on one worker at once: the next is there when the last one ends."""
RESTARTS = 1
"""Times Ray restarts a dead worker (and retries the calls it held) before they fail."""


class WorkerLost(Exception):
    """A call whose Ray worker died and could not be brought back to answer it."""


class RayExecutor:
    """Ray workers for the duration of one command: pools of actors, one pool per engine."""

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        import ray

        self._ray = ray
        self.started = not ray.is_initialized()
        if self.started:  # a cluster already joined (a test, a notebook) is left running
            ray.init(address=address, include_dashboard=False, **_local_resources(address))
        self.cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = workers
        """Workers (actors) per engine asked for (None: see workers_for)."""
        self._pools: dict[str, _WorkerPool] = {}

    def workers_for(self, recipe: Any) -> int:
        """Workers for `recipe`'s engine: as asked, else one per CPU of the cluster, or
        for a local LLM one per `llm_threads()` CPUs (each worker runs that many threads)."""
        if self.workers is not None:
            return self.workers
        per_worker = llm_threads() if recipe.spec in LOCAL_SPECS else 1
        return max(1, self.cpus // per_worker)

    def outcomes(
        self,
        recipe: Any,
        call: Callable[[Any, Any], Any],
        payloads: Sequence[Any],
        *,
        stop_on_error: bool = False,
        answered: bool = False,
    ) -> Iterator[tuple[int, Outcome]]:
        """(index, outcome) of `call(engine, payload)` on the workers holding `recipe`'s
        engine, as each finishes. Until the engine has answered once (`answered`) the calls
        go one at a time; with `stop_on_error` no call after a failed one is started."""
        if recipe.key not in self._pools:
            workers = self.workers_for(recipe)
            env = _env() | _embedder_env(recipe.spec, self.cpus, workers)
            self._pools[recipe.key] = _WorkerPool(self._ray, recipe, workers, env)
        return self._pools[recipe.key].outcomes(call, payloads, stop_on_error, answered)

    def pool(self, recipe: Any) -> _WorkerPool | None:
        """The pool serving `recipe`'s engine, once it has been used (tests kill its workers)."""
        return self._pools.get(recipe.key)

    def close(self) -> None:
        """Stop the workers, and the local cluster if this executor started it."""
        for pool in self._pools.values():
            pool.close()
        self._pools.clear()
        if self.started:
            self._ray.shutdown()


class _EngineHost:
    """The actor: one engine, built once, asked one call at a time."""

    def __init__(self, recipe: Any) -> None:
        self._engine = recipe.build(recipe.spec, **recipe.args)

    def run(self, call: Callable[[Any, Any], Any], payload: Any) -> tuple[bool, Any]:
        """(True, value) or (False, the engine's exception): an engine failure is an answer."""
        try:
            return True, call(self._engine, payload)
        except Exception as error:  # handed back to the driver, which counts it
            return False, _portable(error)

    def pid(self) -> int:
        """The worker's process id."""
        return os.getpid()


class _WorkerPool:
    """`workers` actors over one engine; a dead one is taken out of the rotation."""

    def __init__(self, ray: Any, recipe: Any, workers: int, env: dict) -> None:
        options = {
            "max_restarts": RESTARTS,
            "max_task_retries": RESTARTS,
            "scheduling_strategy": "SPREAD",  # across the nodes of a real cluster
        }
        if env:
            options["runtime_env"] = {"env_vars": env}
        host = ray.remote(_EngineHost).options(**options)
        self.ray = ray
        self.actors: list[Any] = [host.remote(recipe) for _ in range(workers)]
        self.alive = [True] * workers

    def outcomes(
        self, call: Callable, payloads: Sequence, stop_on_error: bool, answered: bool
    ) -> Iterator[tuple[int, Outcome]]:
        """See RayExecutor.outcomes."""
        opening = 0
        while not answered and opening < len(payloads):
            only = _Schedule(self, call, payloads, [opening], stop_on_error)
            ((index, outcome),) = only.run()
            yield index, outcome
            opening += 1
            if outcome.error is not None and stop_on_error:
                return
            answered = outcome.error is None
        if opening < len(payloads):
            rest = range(opening, len(payloads))
            yield from _Schedule(self, call, payloads, rest, stop_on_error).run()

    def pids(self) -> list[int]:
        """Each live worker's process id, in slot order (a dead slot: -1)."""
        return [
            self.ray.get(actor.pid.remote()) if alive else -1
            for actor, alive in zip(self.actors, self.alive, strict=True)
        ]

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)


class _Schedule:
    """One batch of calls over a pool: contiguous shards, DEPTH queued per worker."""

    def __init__(
        self, pool: _WorkerPool, call: Callable, payloads: Sequence, indices, stop_on_error: bool
    ) -> None:
        self.pool, self.call, self.payloads = pool, call, payloads
        self.stop_on_error = stop_on_error
        self.first_failure: int | None = None
        live = [slot for slot, alive in enumerate(pool.alive) if alive]
        shards = _shards(indices, live)
        self.queues = {slot: deque(shard) for slot, shard in zip(live, shards, strict=True)}
        self.orphans = [] if live else list(indices)  # no worker left to give them to
        self.flight: dict[Any, tuple[int, int]] = {}  # task -> (index, slot)

    def run(self) -> Iterator[tuple[int, Outcome]]:
        """(index, outcome) per call as it finishes; closing it cancels the queued ones."""
        ray = self.pool.ray
        for index in self.orphans:
            yield index, _lost("every worker died")
        try:
            yield from self._submit()
            while self.flight:
                (task,), _ = ray.wait(list(self.flight), num_returns=1)
                index, slot = self.flight.pop(task)
                yield index, self._collect(task, index, slot)
                yield from self._submit()
        finally:
            for task in self.flight:
                ray.cancel(task)  # a queued call is dropped; a running one finishes unread

    def _submit(self) -> Iterator[tuple[int, Outcome]]:
        """Queue calls up to DEPTH per live worker; with none alive, fail what is left."""
        self._rehome()
        for slot, queue in self.queues.items():
            while queue and self._queued(slot) < DEPTH:
                index = queue.popleft()
                if self.first_failure is not None and index > self.first_failure:
                    queue.clear()  # a serial caller would have stopped at the failure
                    break
                task = self.pool.actors[slot].run.remote(self.call, self.payloads[index])
                self.flight[task] = (index, slot)
        if not any(self.pool.alive):
            for queue in self.queues.values():
                while queue:
                    yield queue.popleft(), _lost("every worker died")

    def _collect(self, task: Any, index: int, slot: int) -> Outcome:
        ray = self.pool.ray
        try:
            succeeded, value = ray.get(task)
        except ray.exceptions.RayActorError as error:  # restarts spent: this worker is gone
            self.pool.alive[slot] = False
            return self._failed(index, _lost(f"Ray worker {slot} died: {_first_line(error)}"))
        except ray.exceptions.RayError as error:  # the call lost, the worker still there
            return self._failed(index, _lost(_first_line(error)))
        if succeeded:
            return Outcome(value=value)
        return self._failed(index, Outcome(error=value))

    def _failed(self, index: int, outcome: Outcome) -> Outcome:
        if self.stop_on_error and (self.first_failure is None or index < self.first_failure):
            self.first_failure = index
        return outcome

    def _queued(self, slot: int) -> int:
        return sum(1 for _, held in self.flight.values() if held == slot)

    def _rehome(self) -> None:
        """A dead worker's calls not yet given go, in order, to the least loaded live one."""
        for slot in [s for s, queue in self.queues.items() if queue and not self.pool.alive[s]]:
            live = [s for s in self.queues if self.pool.alive[s]]
            if not live:
                return
            target = min(live, key=lambda s: len(self.queues[s]))
            self.queues[target].extend(self.queues[slot])
            self.queues[slot].clear()


def _shards(indices, slots: list[int]) -> list[list[int]]:
    """`indices` cut into len(slots) contiguous runs of near-equal length, in order."""
    indices = list(indices)
    if not slots:
        return []
    size, extra = divmod(len(indices), len(slots))
    shards, start = [], 0
    for position in range(len(slots)):
        end = start + size + (1 if position < extra else 0)
        shards.append(indices[start:end])
        start = end
    return shards


def _lost(message: str) -> Outcome:
    return Outcome(error=WorkerLost(message))


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _portable(error: Exception) -> Exception:
    """`error` when it survives pickling (most do), else a RuntimeError with its text."""
    try:
        pickle.dumps(error)
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


def _env() -> dict:
    """What each worker's environment must share with this process: llama.cpp's thread
    count and prefix reuse, which move a greedy reply's logits (and key the cached replies),
    so a worker's replies are the ones this process would compute."""
    reuse = "1" if prefix_cache_enabled() else "0"
    return {"RAGAUDIT_LLM_THREADS": str(llm_threads()), "RAGAUDIT_PREFIX_CACHE": reuse}


def _embedder_env(spec: str, cpus: int, workers: int) -> dict:
    """An in-process embedder's threads on each worker: its share of the cluster's cores,
    so N workers do not each start one thread per core (MiniLM's onnxruntime reads
    RAGAUDIT_EMBED_THREADS, e5's OpenMP OMP_NUM_THREADS). Measured here, both give bitwise
    the same vectors at 1 and 2 threads: the share moves no record."""
    if spec not in in_process_embedders():
        return {}
    share = str(max(1, cpus // workers))
    return {"RAGAUDIT_EMBED_THREADS": share, "OMP_NUM_THREADS": share}


def _local_resources(address: str | None) -> dict:
    """A cluster started here gets this machine's cores; an existing one keeps its own."""
    return {} if address else {"num_cpus": os.cpu_count() or 1}
