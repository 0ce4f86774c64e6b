"""Issue 25's hostile-server items that the fault-mode table of test_backends_hostile.py
does not show: a key read with its newline or holding a control character (item 1), what a
refused batch says (item 5), a cache with two dimensions (item 7), a second server that
lists no models (item 8), the Retry-After cap (item 21), the whole-request deadline on one
request (item 23), and the migration of a version-1 cache."""

from __future__ import annotations

import hashlib
import sqlite3
import time

import numpy as np
import pytest
from helpers.hostile_openai_server import EMBED_MODEL, server_vector, unit
from helpers.hostile_run import PROMPTS, Servers, key_runs, listed_digest, new_key, run_ragaudit
from test_backends_hostile import TEXTS  # the run's texts, read from the shipped corpus

from ragaudit.backends.cache import CallCache
from ragaudit.backends.openai_backend import OpenAIEmbeddingEngine
from ragaudit.backends.retry import RetryPolicy
from ragaudit.errors import ModelCallFailed, RagauditError


@pytest.fixture
def hostile():
    servers = Servers()
    yield servers.start
    servers.stop()


@pytest.fixture
def run_against(ragaudit_home, monkeypatch, capfd):
    def run(server, key=None, env=None):
        return run_ragaudit(ragaudit_home, monkeypatch, capfd, server, key, env)

    return run


FAST = RetryPolicy(retries=0, timeout=5)


def all_computed(run) -> None:
    assert run.status == 0, run.stderr[-2000:]
    assert run.calls == {"replayed": 0, "computed": TEXTS + PROMPTS, "failed": 0}


# -- Secrets (items 1-3) -------------------------------------------------------------------


def test_a_key_read_with_its_newline_is_stripped_said_in_one_line_and_never_written(
    hostile, run_against
):
    key = new_key()
    run = run_against(hostile(), key=key + "\n")  # as read from a mounted secret file
    all_computed(run)  # the server (which echoes nothing) was sent a valid header
    notes = [line for line in run.stderr.splitlines() if "$OPENAI_API_KEY" in line]
    assert notes == [
        "note: $OPENAI_API_KEY has spaces or a newline around the key (as read from a file); "
        "they were stripped before sending"
    ]
    run.key = key
    run.assert_key_never_written()


def test_a_key_with_a_control_character_inside_is_refused_before_any_request(hostile, run_against):
    server = hostile()
    key = new_key()
    run = run_against(server, key=key[:20] + "\x01" + key[20:])
    assert run.status == 2
    assert "$OPENAI_API_KEY holds a control character inside the key" in run.stderr
    assert server.seen()["requests"] == {}
    assert not key_runs(key[:20]) & {run.stderr[i : i + 8] for i in range(len(run.stderr))}


# -- A call cache that cannot be poisoned (items 5-9) --------------------------------------


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("no_index_reversed", "the 3 items carry no index: which vector is whose is unknown"),
        ("string_index", "item indexes must be integers, got str"),
        ("duplicate_index", "item indexes are not 0..2 each once (missing [1, 2], repeated [0])"),
        ("missing_index", "item indexes must be integers, got NoneType"),
    ],
)
def test_indexes_that_are_not_a_permutation_fail_the_batch_with_the_reason(
    mode, reason, hostile, ragaudit_home
):
    # In a run each text is then asked alone (the table in test_backends_hostile.py): what
    # the batch's failure says is seen here, on the engine.
    server = hostile(mode)
    engine = OpenAIEmbeddingEngine(EMBED_MODEL, server.base_url, "NO_SUCH_KEY_VARIABLE", FAST)
    with pytest.raises(ModelCallFailed) as failed:
        engine.embed_batch(["one", "two", "three"], "passage")
    assert str(failed.value).endswith(f"for 'hostile-embed': {reason}")


def test_a_cache_holding_two_dimensions_for_one_model_is_refused_at_open(
    hostile, run_against, ragaudit_home
):
    path = ragaudit_home / "cache.sqlite"
    CallCache(path).close()
    with sqlite3.connect(path) as conn:  # what a3de843 stored when a dimension changed
        for key, size in (("k1", 24), ("k2", 32)):
            conn.execute(
                "INSERT INTO calls (key, model, kind, value, created_at) VALUES (?, ?, ?, ?, 0)",
                (key, "openai:m", "embed", np.ones(size, dtype=np.float32).tobytes()),
            )
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(RagauditError, match=r"cached vectors of openai:m have 2 dimensions"):
        CallCache(path)
    run = run_against(hostile())
    assert run.status == 2 and "Traceback" not in run.stderr
    assert f"{path}: the cached vectors of openai:m have 2 dimensions (24, 32)" in run.stderr
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_another_server_that_lists_no_models_never_replays_the_first_servers_calls(
    hostile, run_against
):
    first = run_against(hostile("normal", salt="A"))
    all_computed(first)
    second_server = hostile("no_models", salt="B")
    second = run_against(second_server)
    all_computed(second)  # computed by B, not replayed from A
    assert len(second.seen["texts"]) == TEXTS
    a_keys = first.texts_by_key(listed_digest(EMBED_MODEL))
    b_keys = second.texts_by_key("unavailable")
    rows = dict(second.rows("embed"))
    assert len(rows) == 2 * TEXTS and set(rows) == set(a_keys) | set(b_keys)
    for keys, salt in ((a_keys, "A"), (b_keys, "B")):
        for key, text in keys.items():
            expected = np.array(unit(server_vector(salt + text)), dtype=np.float32)
            assert np.allclose(np.frombuffer(rows[key], dtype=np.float32), expected, atol=1e-6)
    [embedder] = [m for m in second.results["models"] if m["spec"] == f"openai:{EMBED_MODEL}"]
    assert embedder["base_url"] == second_server.base_url and embedder["digest"] == "unavailable"


# -- Servers that misbehave (items 21-24) --------------------------------------------------


def test_retry_after_is_capped(hostile, monkeypatch):
    server = hostile("throttle_long")  # Retry-After: 3600
    env = {"RAGAUDIT_RETRIES": "1", "RAGAUDIT_TIMEOUT": "5", "RAGAUDIT_RETRY_AFTER_MAX": "0.2"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    policy = RetryPolicy.from_env()
    engine = OpenAIEmbeddingEngine(EMBED_MODEL, server.base_url, "NO_SUCH_KEY_VARIABLE", policy)
    started = time.monotonic()
    with pytest.raises(ModelCallFailed, match=r"after 2 attempt\(s\): HTTP 429: slow down"):
        engine.embed_batch(["a"], "passage")
    assert time.monotonic() - started < 2.0


def test_a_trickled_reply_is_cut_off_at_the_whole_request_deadline(hostile):
    server = hostile("trickle")  # one byte every 0.2 s: the honest reply takes minutes
    policy = RetryPolicy(retries=0, timeout=1.0)
    engine = OpenAIEmbeddingEngine(EMBED_MODEL, server.base_url, "NO_SUCH_KEY_VARIABLE", policy)
    started = time.monotonic()
    with pytest.raises(ModelCallFailed, match=r"no complete reply within the 1 s deadline"):
        engine.embed_batch(["a"], "passage")
    assert time.monotonic() - started < 1.8


# -- The migration --------------------------------------------------------------------------


def test_a_version_1_cache_is_migrated_once_in_one_line_and_keeps_its_calls(tmp_path, capfd):
    path = tmp_path / "cache.sqlite"
    conn = sqlite3.connect(path)  # version 1, as a3de843 wrote it
    conn.execute(
        "CREATE TABLE calls (key TEXT PRIMARY KEY, model TEXT NOT NULL, kind TEXT NOT NULL, "
        "value BLOB NOT NULL, created_at REAL NOT NULL)"
    )
    conn.execute(
        "CREATE TABLE digests (backend TEXT NOT NULL, model TEXT NOT NULL, digest TEXT NOT "
        "NULL, seen_at REAL NOT NULL, PRIMARY KEY (backend, model))"
    )
    conn.execute("INSERT INTO calls VALUES ('k', 'local:minilm', 'embed', ?, 1.0)", (b"\0" * 8,))
    conn.execute("INSERT INTO digests VALUES ('ollama', 'm', 'sha256:d', 1.0)")
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()
    capfd.readouterr()
    cache = CallCache(path)
    lines = capfd.readouterr().err.splitlines()
    assert lines == [
        f"migrated the model-call cache {path} from version 1 to 2 once (1 stored calls kept; "
        "calls now record what computed them and how long they took)"
    ]
    assert cache.get("k") == b"\0" * 8
    assert cache.last_digest("ollama", "m") == "sha256:d"
    cache.put("local:minilm", "embed", "k2", b"\1" * 8, identity="i", seconds=0.5)
    cache.close()
    CallCache(path).close()
    assert capfd.readouterr().err == ""  # once
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        rows = conn.execute("SELECT key, identity, seconds FROM calls ORDER BY key").fetchall()
    assert rows == [("k", None, None), ("k2", "i", 0.5)]
