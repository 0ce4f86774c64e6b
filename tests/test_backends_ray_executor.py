"""--executor ray on a real local cluster (ray.init(num_cpus=2)): MiniLM batches and
generation prompts computed on Ray workers give what the local path gives (the same vectors,
cache rows and counts), the driver stays the one writer of the cache, and a worker killed
mid-batch loses only its calls in flight: retried on the restarted worker, or (killed for
good) counted failed and asked again on a rerun."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import ray  # in requirements-dev.txt: a missing Ray is a failed install, not a skip

from ragaudit.backends.cache import CallCache
from ragaudit.backends.cached import CachedGenerator, _engine_vectors
from ragaudit.backends.executors import EngineRecipe, check_executor, executor_scope
from ragaudit.backends.ray_executor import DEPTH
from ragaudit.backends.specs import load_embedder, load_generator
from ragaudit.errors import ModelCallFailed, RagauditError
from ragaudit.runner.generate import build_messages, prefix_order, reuse_chains

pytestmark = pytest.mark.slow  # a Ray cluster and MiniLM in two workers: ~40 s

TEXTS = [f"policy {i}: refunds within {i % 30 + 1} days, clause {i * 7 % 13}" for i in range(160)]


@pytest.fixture(scope="module")
def cluster():
    """One local two-CPU cluster for the module; the executors join it and leave it up."""
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers get our helpers
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


class _EchoEngine:
    """A generator whose reply is the question upside down (slow enough to be caught busy)."""

    backend, name, digest, digest_reason = "test", "echo", "echo-1", None

    def effective_params(self, params: dict) -> dict:
        return dict(params)

    def chat(self, messages: list[dict], params: dict) -> str:
        time.sleep(0.15)
        return messages[-1]["content"][::-1]


def _echo_engine(spec: str) -> _EchoEngine:
    return _EchoEngine()


def _slow_vectors(engine, payload):
    time.sleep(0.3)  # long enough that a kill lands while calls are in flight
    return _engine_vectors(engine, payload)


class _RefusesHere:
    """MiniLM's attributes, but computing nothing in this process."""

    def __init__(self, engine) -> None:
        self._engine = engine

    def __getattr__(self, name):
        if name == "embed_batch":
            raise AssertionError("embedded in the driver, not on a Ray worker")
        return getattr(self._engine, name)


def _threads_seen(engine, _payload) -> tuple[int, str | None]:
    """On a worker: MiniLM's onnxruntime threads and the OpenMP thread count it was given."""
    threads = engine.session.get_session_options().intra_op_num_threads
    return threads, os.environ.get("OMP_NUM_THREADS")


def _rows(cache: CallCache) -> dict:
    with cache._lock:
        return dict(cache._conn.execute("SELECT key, value FROM calls").fetchall())


def test_local_executor_imports_no_ray():
    code = (
        "import sys, ragaudit.cli.run, ragaudit.cli.audit, ragaudit.runner.orchestrate\n"
        "print('ray' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bad_executor_flags_are_one_line_before_any_work():
    with pytest.raises(RagauditError, match="--executor 'dask': valid: local, ray"):
        check_executor("dask")
    with pytest.raises(RagauditError, match="--ray-address applies to --executor ray only"):
        check_executor("local", "auto")
    with pytest.raises(RagauditError, match="--ray-workers 0"):
        check_executor("ray", None, 0)


def test_minilm_on_two_ray_workers_gives_the_local_vectors_rows_and_counts(tmp_path, cluster):
    local_cache = CallCache(tmp_path / "local.sqlite")
    local = load_embedder("local:minilm", local_cache).embed(TEXTS)
    ray_cache = CallCache(tmp_path / "ray.sqlite")
    front = load_embedder("local:minilm", ray_cache)
    front.engine = _RefusesHere(front.engine)
    with executor_scope("ray", workers=2) as executor:
        on_ray = front.embed(TEXTS + TEXTS[:10])  # the repeats are replayed, not asked
        pool = executor.pool(front.recipe)
        assert len(set(pool.pids())) == 2
        seen = ray.get([actor.run.remote(_threads_seen, None) for actor in pool.actors])
    # the cluster's 2 CPUs shared by 2 workers: each runs MiniLM (and would run e5's
    # OpenMP) at 1 thread, not one per core each
    assert seen == [(True, (1, "1")), (True, (1, "1"))]
    assert np.array_equal(np.array(on_ray[:160]), np.array(local))
    assert _rows(ray_cache) == _rows(local_cache)  # 160 rows, byte for byte
    counts = ray_cache.stats_by_model()["local:minilm"]
    assert (counts["computed"], counts["replayed"], counts["failed"]) == (160, 10, 0)


def test_a_worker_killed_mid_batch_is_restarted_and_its_calls_retried(tmp_path, cluster):
    front = load_embedder("local:minilm", CallCache(tmp_path / "kill.sqlite"))
    batches = [(TEXTS[i : i + 20], "passage") for i in range(0, 160, 20)]  # 8 calls
    expected = [_engine_vectors(front.engine, batch) for batch in batches]
    with executor_scope("ray", workers=2) as executor:
        pairs = executor.outcomes(front.recipe, _slow_vectors, batches, answered=True)
        first = next(pairs)
        victim = executor.pool(front.recipe).pids()[1]
        os.kill(victim, signal.SIGKILL)  # the second worker, busy with its first calls
        got = dict([first, *pairs])
        assert executor.pool(front.recipe).pids()[1] != victim  # Ray brought it back
    assert sorted(got) == list(range(8))
    assert all(got[i].error is None for i in got)
    for index, vectors in enumerate(expected):
        assert np.array_equal(got[index].value, vectors)


def test_a_worker_killed_for_good_costs_only_its_calls_in_flight(tmp_path, cluster):
    cache = CallCache(tmp_path / "gen.sqlite")
    generator = CachedGenerator("test:echo", _EchoEngine(), cache)
    generator.recipe = EngineRecipe(_echo_engine, "test:echo")
    requests = [([{"role": "user", "content": f"question {i}"}], None) for i in range(16)]
    with executor_scope("ray", workers=2) as executor:
        replies = generator.generate_each(requests, workers=1)
        first = next(replies)
        pool = executor.pool(generator.recipe)
        killer = threading.Thread(
            target=ray.kill, args=(pool.actors[1],), kwargs={"no_restart": True}
        )
        killer.start()
        rest = list(replies)
        killer.join()
    outcomes = [first, *rest]
    failed = [i for i, o in enumerate(outcomes) if isinstance(o, ModelCallFailed)]
    assert 1 <= len(failed) <= DEPTH  # only what the dead worker held
    for index, outcome in enumerate(outcomes):
        if index not in failed:  # the rest went to the live worker, in order
            assert outcome.text == f"question {index}"[::-1]
    counts = cache.stats_by_model()["test:echo"]
    assert (counts["computed"], counts["failed"]) == (16 - len(failed), len(failed))
    again = list(
        CachedGenerator("test:echo", _EchoEngine(), cache).generate_each(requests, workers=1)
    )
    assert [o.replayed for o in again] == [i not in failed for i in range(16)]  # resume


class _EnvEngine(_EchoEngine):
    """A generator whose reply is the llama.cpp settings its worker's environment holds."""

    def chat(self, messages: list[dict], params: dict) -> str:
        names = ("RAGAUDIT_LLM_THREADS", "RAGAUDIT_PREFIX_CACHE")
        return " ".join(os.environ.get(name, "unset") for name in names)


def _env_engine(spec: str) -> _EnvEngine:
    return _EnvEngine()


def test_workers_run_llama_cpp_with_this_process_threads_and_prefix_setting(
    tmp_path, cluster, monkeypatch
):
    # The cluster was started before these were set: a worker sees them only if sent.
    monkeypatch.setenv("RAGAUDIT_LLM_THREADS", "3")
    monkeypatch.setenv("RAGAUDIT_PREFIX_CACHE", "0")
    generator = CachedGenerator("test:env", _EnvEngine(), CallCache(tmp_path / "env.sqlite"))
    generator.recipe = EngineRecipe(_env_engine, "test:env")
    requests = [([{"role": "user", "content": f"q{i}"}], None) for i in range(4)]
    with executor_scope("ray", workers=2):
        replies = [reply.text for reply in generator.generate_each(requests, workers=1)]
    assert replies == ["3 0"] * 4


def test_default_workers_leave_each_local_llm_its_threads(cluster, monkeypatch):
    qwen = EngineRecipe(_echo_engine, "local:qwen2.5-0.5b")
    minilm = EngineRecipe(_echo_engine, "local:minilm")
    with executor_scope("ray") as executor:  # the fixture's cluster: 2 CPUs
        monkeypatch.setenv("RAGAUDIT_LLM_THREADS", "2")
        assert executor.workers_for(qwen) == 1  # 2 CPUs / 2 threads
        assert executor.workers_for(minilm) == 2  # one per CPU
        monkeypatch.setenv("RAGAUDIT_LLM_THREADS", "1")
        assert executor.workers_for(qwen) == 2
    with executor_scope("ray", workers=3) as executor:
        assert executor.workers_for(qwen) == 3  # as asked


def test_qwen_on_two_ray_workers_gives_the_local_replies(tmp_path, cluster, monkeypatch):
    # Both sides at one llama.cpp thread; the second worker starts mid-segment (its share
    # begins at a prompt whose segment the first worker began), so it rebuilds the segment.
    monkeypatch.setenv("RAGAUDIT_LLM_THREADS", "1")
    chunks = [
        "Current policy for site EB-4: inspect every 38 days, logged in the site book.",
        "The canteen rota changes every Monday; the night shift keeps its own list.",
        "Site EB-9 is audited every 14 days by the regional office.",
    ]
    prompts = []
    for first in (0, 2):
        order = [first, *[i for i in range(3) if i != first]]
        for k in (1, 2, 3):
            picked = [{"chunk_id": str(i), "text": chunks[i]} for i in order[:k]]
            prompts.append(build_messages("How often is site EB-4 inspected?", picked))
    prompts = [m for _, m in prefix_order([(str(i), m) for i, m in enumerate(prompts)])]
    requests = [
        (m, {"max_tokens": 12}, after)
        for m, after in zip(prompts, reuse_chains(prompts), strict=True)
    ]
    local = load_generator("local:qwen2.5-0.5b", CallCache(tmp_path / "local.sqlite"))
    expected = list(local.generate_each(requests, workers=1))
    on_ray = load_generator("local:qwen2.5-0.5b", CallCache(tmp_path / "ray.sqlite"))
    with executor_scope("ray", workers=2) as executor:
        got = list(on_ray.generate_each(requests, workers=1))
        assert len(set(executor.pool(on_ray.recipe).pids())) == 2
    assert [r.text for r in got] == [r.text for r in expected]
    evaluated = [(r.usage["prompt_tokens"], r.usage["prompt_tokens_evaluated"]) for r in got]
    assert evaluated == [
        (r.usage["prompt_tokens"], r.usage["prompt_tokens_evaluated"]) for r in expected
    ]
    assert sum(r.usage["warm_up_tokens_evaluated"] for r in got) > 0  # the second share
    assert sum(r.usage["warm_up_tokens_evaluated"] for r in expected) == 0
