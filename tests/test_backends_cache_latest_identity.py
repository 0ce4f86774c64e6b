"""CallCache.latest_identity: how many calls of a model and kind the file stores, and what
computed the latest of them, read as a dry run reads it (often through a read-only view):
a file with no calls yet, calls that predate identities (a version-1 file, or rows stored
without one), and the latest of two identities, each written here by hand."""

from __future__ import annotations

import sqlite3

from ragaudit.backends.cache import CallCache

OLD = {"backend": "local", "model": "m", "digest": "sha256:old", "server": None, "params": {}}
NEW = {**OLD, "digest": "sha256:new"}
VERSION_1_CALLS = (
    "CREATE TABLE calls (key TEXT PRIMARY KEY, model TEXT NOT NULL, kind TEXT NOT NULL, "
    "value BLOB NOT NULL, created_at REAL NOT NULL)"
)
KEYS = [("k1",), ("k2",)]


def test_the_latest_stored_calls_identity_and_the_count_of_that_model_and_kind(tmp_path):
    path = tmp_path / "cache.sqlite"
    cache = CallCache(path)
    old, new = cache.remember_identity(OLD), cache.remember_identity(NEW)
    cache.put("local:m", "embed", "k1", b"v", identity=new)
    cache.put("local:m", "embed", "k2", b"v", identity=old)
    cache.put("local:m", "embed", "k3", b"v", identity=old)
    cache.put("local:m", "generate", "k4", b"v", identity=old)  # another kind
    cache.put("local:other", "embed", "k5", b"v", identity=old)  # another model
    cache.close()
    # created_at set by hand: k1 (the new identity) is the latest embedding call of local:m
    with sqlite3.connect(path) as db:
        for key, created in [("k1", 30.0), ("k2", 10.0), ("k3", 20.0), ("k4", 40.0), ("k5", 50.0)]:
            db.execute("UPDATE calls SET created_at = ? WHERE key = ?", (created, key))
    for reader in (CallCache(path), CallCache(path, readonly=True)):
        assert reader.latest_identity("local:m", "embed") == (3, NEW)
        assert reader.latest_identity("local:m", "generate") == (1, OLD)
        assert reader.latest_identity("local:nothing", "embed") == (0, None)
        reader.close()


def test_calls_stored_without_an_identity_are_counted_with_none(tmp_path):
    cache = CallCache(tmp_path / "cache.sqlite")
    cache.put("local:m", "embed", "k1", b"v")
    cache.put("local:m", "embed", "k2", b"v")
    assert cache.latest_identity("local:m", "embed") == (2, None)


def test_a_read_only_view_of_a_file_with_no_calls_yet_stores_none(tmp_path):
    path = tmp_path / "cache.sqlite"
    sqlite3.connect(path).close()  # an empty SQLite file: no table at all
    assert CallCache(path, readonly=True).latest_identity("local:m", "embed") == (0, None)


def test_a_read_only_view_of_a_version_1_file_counts_its_calls_with_no_identity(tmp_path):
    path = tmp_path / "cache.sqlite"
    with sqlite3.connect(path) as db:  # version 1: calls without identity, no identities table
        db.execute(VERSION_1_CALLS)
        db.executemany("INSERT INTO calls VALUES (?, 'local:m', 'embed', x'00', 1.0)", KEYS)
        db.execute("PRAGMA user_version=1")
    assert CallCache(path, readonly=True).latest_identity("local:m", "embed") == (2, None)
