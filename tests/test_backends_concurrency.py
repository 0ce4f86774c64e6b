"""--workers N: up to N requests in flight to a remote server, and nothing else changes.

Against a real local process speaking Ollama's API that serves each call after a fixed
delay with a fixed number of slots and answers HTTP 500 to chosen inputs, every time
(tests/helpers/stand_in.py): embeddings, generation and a whole `ragaudit run` at
--workers 1 and 4 give the same records, the same call-cache rows and the same failure
counts, failed calls retried and then counted; the server never sees more than N calls at
once; local engines are called one at a time, in order."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import threading
import time

import pytest
from helpers.stand_in import CHAT_MODEL, EMBED_MODEL, start_stand_in

from ragaudit.backends.cache import CallCache
from ragaudit.backends.cached import CachedEmbedder, CachedGenerator
from ragaudit.backends.retry import RetryPolicy
from ragaudit.backends.specs import load_embedder, load_generator
from ragaudit.cli.main import main
from ragaudit.errors import ModelCallFailed
from ragaudit.runner.generate import build_messages, generate_records

RETRY = RetryPolicy(retries=2, delay=0.0, timeout=20)  # 3 attempts per request
MARK = "FAILS"  # the stand-in answers 500 to any request holding it


@pytest.fixture(scope="module")
def server():
    """4 slots, 50 ms per call, 500 for requests holding MARK."""
    process = start_stand_in(slots=4, delay=0.05, fail_markers=[MARK])
    yield process
    process.stop()


def cache_rows(path) -> list[tuple]:
    """Every stored call as (key, model, kind, value), by key."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT key, model, kind, value FROM calls ORDER BY key").fetchall()


# -- embeddings ----------------------------------------------------------------------------

# 200 texts of one length, so the length sort keeps their order: batches of 16 (Ollama's
# batch size) are 0-15, 16-31, ... and the marked text 100 falls in the seventh (96-111).
TEXTS = [f"passage {i:04d} plain" for i in range(200)]
TEXTS[100] = f"passage 0100 {MARK}"


def _embed_all(server, tmp_path, workers: int) -> dict:
    path = tmp_path / f"calls-{workers}.sqlite"
    cache = CallCache(path)
    spec = f"ollama:{EMBED_MODEL}"
    embedder = load_embedder(spec, cache, host=server.url, retry=RETRY, workers=workers)
    server.reset()
    with pytest.raises(ModelCallFailed) as failed:
        embedder.embed(TEXTS)
    return {
        "error": str(failed.value),
        "stats": cache.stats(),
        "failures": cache.failures(),
        "rows": cache_rows(path),
        "peak": server.stats()["peak_in_flight"],
    }


def test_embedding_batches_in_flight_store_and_fail_as_one_at_a_time(server, tmp_path):
    serial, concurrent = _embed_all(server, tmp_path, 1), _embed_all(server, tmp_path, 4)
    # By hand: batches 1-6 (96 texts) are stored; the seventh fails after 3 attempts and is
    # counted with the 88 texts behind it (16 + 88 = 104); nothing after it is stored.
    assert serial["stats"] == {"replayed": 0, "computed": 96, "failed": 104}
    assert len(serial["rows"]) == 96
    assert "failed /api/embed for 'stand-in-embed' after 3 attempt(s): HTTP 500" in serial["error"]
    assert serial["error"].startswith("ollama:stand-in-embed: embedding 104 text(s) failed")
    assert [f["calls"] for f in serial["failures"]] == [104]
    for field in ("error", "stats", "failures", "rows"):
        assert concurrent[field] == serial[field], field
    assert serial["peak"] == 1 and 2 <= concurrent["peak"] <= 4


# -- generation ----------------------------------------------------------------------------

QUESTIONS = [f"How often is site S-{i:02d} inspected?" for i in range(12)]
QUESTIONS[5] = f"How often is site S-05 {MARK} inspected?"
CHUNKS = {
    f"recursive-1000-0/doc-{i:02d}#0": {"text": f"Site S-{i:02d} is inspected every {i + 3} days."}
    for i in range(12)
}


def _records() -> list[dict]:
    ids = list(CHUNKS)
    return [
        {
            "key": f"control/c-{i:02d}/B/ollama:{EMBED_MODEL}",
            "probe": "control",
            "config": "B",
            "question": question,
            "retrieved": [
                {"chunk_id": ids[i], "rank": 1, "score": 0.9},
                {"chunk_id": ids[(i + 1) % 12], "rank": 2, "score": 0.8},
            ],
            "retrieval_error": None,
        }
        for i, question in enumerate(QUESTIONS)
    ]


def _generate_all(server, tmp_path, workers: int) -> dict:
    path = tmp_path / f"gen-{workers}.sqlite"
    cache = CallCache(path)
    generator = load_generator(f"ollama:{CHAT_MODEL}", cache, host=server.url, retry=RETRY)
    records, seen = _records(), []
    server.reset()
    counts = generate_records(
        records,
        CHUNKS,
        generator,
        gen_configs=["B"],
        workers=workers,
        progress=lambda done, total, replayed: seen.append((done, total)),
    )
    return {
        "records": records,
        "counts": counts,
        "stats": cache.stats(),
        "failures": cache.failures(),
        "rows": cache_rows(path),
        "progress": seen,
        "peak": server.stats()["peak_in_flight"],
    }


def test_generation_in_flight_gives_the_serial_records_cache_and_failures(server, tmp_path):
    serial, concurrent = _generate_all(server, tmp_path, 1), _generate_all(server, tmp_path, 4)
    # 12 distinct prompts; the one asking about S-05 holds the mark and fails, retried.
    assert serial["counts"]["prompts"] == 12
    assert (serial["counts"]["computed"], serial["counts"]["failed"]) == (11, 1)
    assert serial["stats"] == {"replayed": 0, "computed": 11, "failed": 1}
    failed = serial["records"][5]["generation"]
    assert failed["status"] == "failed_call" and "after 3 attempt(s): HTTP 500" in failed["error"]
    assert serial["records"][4]["generation"]["reply"].startswith("stand-in reply to: Context:")
    for field in ("records", "counts", "stats", "failures", "rows", "progress"):
        assert concurrent[field] == serial[field], field
    assert concurrent["progress"] == [(done, 12) for done in range(1, 13)]  # ETA advances
    assert serial["peak"] == 1 and 2 <= concurrent["peak"] <= 4


@pytest.mark.parametrize("workers", [2, 3])
def test_the_server_never_sees_more_calls_at_once_than_workers(server, tmp_path, workers):
    generator = load_generator(
        f"ollama:{CHAT_MODEL}", CallCache(tmp_path / "c.sqlite"), host=server.url
    )
    requests = [([{"role": "user", "content": f"bounded {workers} {i}"}], None) for i in range(16)]
    server.reset()
    replies = list(generator.generate_each(requests, workers=workers))
    assert [r.text for r in replies] == [
        f"stand-in reply to: bounded {workers} {i}" for i in range(16)
    ]
    assert server.stats()["peak_in_flight"] == workers  # 4 slots: the client is the bound


# -- local engines -------------------------------------------------------------------------


class _CountingEngine:
    """A local engine (no `remote`) that records how many calls overlap and their order."""

    backend, name, digest, digest_reason = "fake", "counting", "sha256:0", None
    uses_roles, batch_size = False, 2

    def __init__(self) -> None:
        self.lock, self.active, self.peak, self.asked = threading.Lock(), 0, 0, []

    def _enter(self, what) -> None:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.asked.append(what)
        time.sleep(0.02)
        with self.lock:
            self.active -= 1

    def effective_params(self, params: dict) -> dict:
        return dict(params)

    def chat(self, messages, params) -> str:
        self._enter(messages[-1]["content"])
        return "ok"

    def embed_batch(self, texts, role):
        self._enter(tuple(texts))
        return [[1.0, float(len(t))] for t in texts]

    def dimensions(self) -> int:
        return 2


class _RemoteCountingEngine(_CountingEngine):
    remote = True


def test_local_engines_are_called_one_at_a_time_in_order(tmp_path):
    records, prompts = _records()[::-1], []  # asked last-first: sorting them changes order
    for record in records:  # the user message each record's prompt carries
        chunks = [
            {"chunk_id": h["chunk_id"], "text": CHUNKS[h["chunk_id"]]["text"]}
            for h in record["retrieved"]
        ]
        prompts.append(build_messages(record["question"], chunks)[-1]["content"])
    local = _CountingEngine()
    generate_records(
        records,
        CHUNKS,
        CachedGenerator("fake:counting", local, CallCache(tmp_path / "l.sqlite")),
        gen_configs=["B"],
        workers=8,
    )
    # One system prompt for all: prefix order is the user messages sorted by their text.
    assert local.peak == 1 and local.asked == sorted(prompts) != prompts
    embedder = CachedEmbedder(
        "fake:counting", _CountingEngine(), CallCache(tmp_path / "e.sqlite"), workers=8
    )
    embedder.embed([f"text {i}" for i in range(10)])
    assert embedder.engine.peak == 1 and len(embedder.engine.asked) == 5
    # The same engine declaring itself remote does overlap: the count above can see it.
    remote = _RemoteCountingEngine()
    generate_records(
        _records(),
        CHUNKS,
        CachedGenerator("fake:remote", remote, CallCache(tmp_path / "r.sqlite")),
        gen_configs=["B"],
        workers=8,
    )
    assert remote.peak > 1 and sorted(remote.asked) == sorted(local.asked)


# -- a whole run ---------------------------------------------------------------------------

# The control question fails to embed (its words are in no chunk, so only it); every
# prompt asking the boundary question fails to generate (its text only ever goes to chat).
RUN_MARKS = ["How often are lightning conductors", "Question: How long are key issue logs"]
RUN_FLAGS = [
    "--n", "1", "--no-extra-configs",
    "--embedders", f"ollama:{EMBED_MODEL}",
    "--generator", f"ollama:{CHAT_MODEL}",
    "--gen-configs", "A", "B",
]  # fmt: skip


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """The same `ragaudit run` at --workers 1 and --workers 4, each in a fresh data folder."""
    stand_in = start_stand_in(slots=4, delay=0.01, fail_markers=RUN_MARKS)
    runs = {}
    try:
        for workers in (1, 4):
            home = tmp_path_factory.mktemp(f"home-{workers}")
            patch = pytest.MonkeyPatch()
            patch.setenv("RAGAUDIT_HOME", str(home))
            patch.setenv("OLLAMA_HOST", stand_in.url)
            patch.setenv("RAGAUDIT_RETRIES", "1")
            patch.setenv("RAGAUDIT_RETRY_DELAY", "0")
            patch.delenv("RAGAUDIT_CONTENTION_PATTERN", raising=False)
            out = home / "results" / "latest.json"
            stand_in.reset()
            try:
                with contextlib.redirect_stderr(io.StringIO()):
                    status = main(["run", *RUN_FLAGS, "--workers", str(workers), "--out", str(out)])
            finally:
                patch.undo()
            runs[workers] = {
                "status": status,
                # records lost calls by design, so the run went to latest.failed.json
                "results": json.loads(out.with_name("latest.failed.json").read_text()),
                "rows": cache_rows(home / "cache.sqlite"),
                "peak": stand_in.stats()["peak_in_flight"],
            }
    finally:
        stand_in.stop()
    return runs


def test_a_run_at_4_workers_is_the_run_at_1(two_runs):
    serial, concurrent = two_runs[1], two_runs[4]
    assert serial["status"] == concurrent["status"] == 1  # records lost calls: exit 1
    one, four = serial["results"], concurrent["results"]
    kinds = {entry["kind"] for entry in one["conditions"]["failed_calls"]}
    assert {"embed", "generate"} <= kinds  # failures in both stages, so both are compared
    for section in ("calls", "calls_by_model", "failed_calls", "failure_reasons"):
        assert four["conditions"][section] == one["conditions"][section], section
    assert four["instances"] == one["instances"]
    assert four["chunks"] == one["chunks"] and four["cells"] == one["cells"]
    assert four["run"]["generation_counts"] == one["run"]["generation_counts"]
    assert concurrent["rows"] == serial["rows"]
    assert serial["peak"] == 1 and 2 <= concurrent["peak"] <= 4  # it did overlap
