"""The model-call cache: replay, counts, corrupt files, kill -9 and a concurrent reader."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from ragaudit.backends.cache import CallCache, call_key
from ragaudit.errors import RagauditError


def test_default_path_follows_ragaudit_home(ragaudit_home):
    cache = CallCache()
    assert cache.path == ragaudit_home / "cache.sqlite"
    assert cache.path.exists()
    mode = sqlite3.connect(cache.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_key_changes_with_every_part():
    base = ("local", "m", "d1", "generate", {"temperature": 0}, [{"role": "user", "content": "x"}])
    keys = {call_key(*base)}
    for index, changed in enumerate(["ollama", "m2", "d2", "embed", {"temperature": 1}, "y"]):
        variant = list(base)
        variant[index] = changed
        keys.add(call_key(*variant))
    assert len(keys) == 7


def test_key_is_pinned_so_cached_calls_stay_findable():
    """A cache file outlives the code, so a call's key may never drift. The recipe: sha256 of
    the call as JSON with sorted keys, no spaces, and text as UTF-8 (not \\u escapes). The
    canonical texts are written out by hand; the digest of the first is pinned as well."""
    base = ("local", "m", "d1", "generate", {"temperature": 0}, [{"role": "user", "content": "x"}])
    canonical = (
        '{"backend":"local","digest":"d1","input":[{"content":"x","role":"user"}],'
        '"kind":"generate","model":"m","params":{"temperature":0}}'
    )
    pinned = "700d83c5e608eb3017c833ecd3f5ec26ebb32f2c42065bc70056f24fbebe8306"
    assert hashlib.sha256(canonical.encode()).hexdigest() == pinned
    assert call_key(*base) == pinned
    accented = '{"backend":"local","digest":"d1","input":["café"],"kind":"embed",'
    accented += '"model":"m","params":{}}'
    expected = hashlib.sha256(accented.encode("utf-8")).hexdigest()
    assert call_key("local", "m", "d1", "embed", {}, ["café"]) == expected


def test_stored_calls_survive_reopen_and_counts_are_per_run(ragaudit_home):
    cache = CallCache()
    cache.put("local:x", "generate", "k1", b"v1")
    cache.count("local:x", "computed")
    cache.record_failure("local:x", "generate", "boom")
    assert cache.stats() == {"replayed": 0, "computed": 1, "failed": 1}
    assert cache.failures() == [
        {"model": "local:x", "kind": "generate", "error": "boom", "calls": 1}
    ]
    cache.reset_stats()
    assert cache.stats() == {"replayed": 0, "computed": 0, "failed": 0}
    assert cache.failures() == []
    cache.close()
    reopened = CallCache()
    assert reopened.get("k1") == b"v1"
    assert reopened.get_many(["k1", "nope"]) == {"k1": b"v1"}
    assert reopened.stats_by_model() == {}


def test_corrupt_file_is_named_and_left_untouched(tmp_path):
    path = tmp_path / "cache.sqlite"
    garbage = b"this is not a database" * 100
    path.write_bytes(garbage)
    with pytest.raises(RagauditError) as caught:
        CallCache(path)
    assert str(path) in str(caught.value)
    assert "\n" not in str(caught.value)
    assert path.read_bytes() == garbage


def test_foreign_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(RagauditError, match="other.sqlite"):
        CallCache(path)
    assert path.read_bytes() == before


def test_a_stored_value_that_is_not_a_blob_is_a_miss(tmp_path):
    path = tmp_path / "cache.sqlite"
    cache = CallCache(path)
    cache.put("local:x", "embed", "good", b"v")
    cache.close()
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO calls (key, model, kind, value, created_at) "
        "VALUES ('edited', 'local:x', 'embed', 'text, not bytes', 0)"
    )
    conn.commit()
    conn.close()
    cache = CallCache(path)
    assert cache.get("edited") is None  # recomputed, then stored over it
    assert cache.get_many(["good", "edited"]) == {"good": b"v"}
    cache.close()


def test_the_inspectors_read_only_view_checks_every_page_too(tmp_path):
    path = tmp_path / "cache.sqlite"
    cache = CallCache(path)
    cache.put_many("local:x", "embed", [(f"k{i}", bytes(1500)) for i in range(200)])
    cache.close()
    data = bytearray(path.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 4096] = bytes(4096)
    path.write_bytes(bytes(data))
    with pytest.raises(RagauditError, match=r"\(database disk image is malformed\)"):
        CallCache(path, readonly=True)
    assert path.read_bytes() == bytes(data)


WRITER = textwrap.dedent(
    """
    import sys
    from ragaudit.backends.cache import CallCache
    cache = CallCache(sys.argv[1])
    i = 0
    while True:
        cache.put("local:x", "generate", f"key-{i}", b"x" * 2000)
        print(i, flush=True)  # printed only after the commit returned
        i += 1
    """
)


def test_kill_9_loses_at_most_the_call_in_flight(tmp_path):
    path = tmp_path / "cache.sqlite"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    last_committed = -1
    while last_committed < 300:
        last_committed = int(writer.stdout.readline())
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    # Lines written before the kill but not yet read count as committed too.
    for line in writer.stdout.read().split():
        last_committed = int(line)
    cache = CallCache(path)
    stored = cache.stored_calls()
    assert last_committed + 1 <= stored <= last_committed + 2
    assert all(cache.get(f"key-{i}") == b"x" * 2000 for i in range(last_committed + 1))


READER = textwrap.dedent(
    """
    import sqlite3, sys, time
    seen = []
    deadline = time.time() + 20
    while time.time() < deadline:
        conn = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=30)
        seen.append(conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0])
        conn.close()
        if len(seen) == 1:
            print("ready", flush=True)
        if seen[-1] >= int(sys.argv[2]):
            break
    print(len(seen), int(all(a <= b for a, b in zip(seen, seen[1:]))), seen[-1])
    """
)


def test_a_reader_process_sees_commits_while_a_run_writes(tmp_path):
    path = tmp_path / "cache.sqlite"
    cache = CallCache(path)
    total = 400
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(path), str(total)], stdout=subprocess.PIPE, text=True
    )
    assert reader.stdout.readline().strip() == "ready"  # it read once before any write
    for i in range(total):
        cache.put("local:x", "embed", f"k{i}", b"v")
        if i % 50 == 0:
            time.sleep(0.02)
    out, _ = reader.communicate(timeout=30)
    reads, monotonic, last = (int(x) for x in out.split())
    assert reader.returncode == 0
    assert reads > 1
    assert monotonic == 1
    assert last == total


def test_read_only_view_for_the_inspector(tmp_path):
    path = tmp_path / "cache.sqlite"
    writer = CallCache(path)
    writer.put("local:x", "generate", "k", b"v")
    reader = CallCache(path, readonly=True)
    assert reader.get("k") == b"v"
    writer.put("local:x", "generate", "k2", b"v2")
    assert reader.stored_calls() == 2
    with pytest.raises(RagauditError, match="read-only"):
        reader.put("local:x", "generate", "k3", b"v3")
    with pytest.raises(RagauditError, match="no model-call cache"):
        CallCache(tmp_path / "missing.sqlite", readonly=True)
